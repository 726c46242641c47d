/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command shape checks the size of our hand-written Go code, the limits a
// reviewer asks for in one package with one job:
//
//	shape [-file N] [-func N] [-methods N] FILE...
//
// It reports every file over -file lines (800), every function over -func
// lines (120) and every type with over -methods methods (20, counted over
// the files of its directory), and exits 1 when it reports any. Tests
// (scenarios read top to bottom, tables) are left out, and so are
// generated files (a "Code generated ... DO NOT EDIT." line) and an API's
// types.go (staging/src/k8s.io/api/...), which holds one API's types as
// upstream's do.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	limits := defaultLimits
	flag.IntVar(&limits.File, "file", limits.File, "most lines in a non-test file")
	flag.IntVar(&limits.Func, "func", limits.Func, "most lines in a function")
	flag.IntVar(&limits.Methods, "methods", limits.Methods, "most methods of a type")
	flag.Parse()
	problems, err := check(flag.Args(), limits)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "shape: %d over the limits (split by job; see hack/README.md)\n", len(problems))
		os.Exit(1)
	}
}
