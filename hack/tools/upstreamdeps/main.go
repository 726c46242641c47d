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

// Command upstreamdeps keeps the project's module graph on the one upstream
// Kubernetes release it builds on. The release is named once, by the root
// module's requirement of k8s.io/kubernetes; everything else follows from
// upstream's own go.mod at that version:
//
//	upstreamdeps rebase [--allow-downgrade] vX.Y.Z   rewrite go.mod files for a release
//	upstreamdeps verify                              check the graph is upstream's
//	upstreamdeps etcd-version                        print the etcd upstream pins
//
// It uses the go command for everything module-related (go mod download,
// go mod edit, go list), so it needs nothing beyond the standard library and
// runs even while the module graph it rewrites is inconsistent.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	root, err := projectRoot()
	if err != nil {
		fail(err)
	}
	switch os.Args[1] {
	case "rebase":
		fs := flag.NewFlagSet("rebase", flag.ExitOnError)
		allowDowngrade := fs.Bool("allow-downgrade", false, "allow a release older than the one go.mod requires")
		_ = fs.Parse(os.Args[2:])
		if fs.NArg() != 1 {
			usage()
		}
		err = rebase(root, fs.Arg(0), *allowDowngrade)
	case "verify":
		err = verify(root, os.Stdout)
	case "etcd-version":
		var v string
		if v, err = pinnedEtcdVersion(root); err == nil {
			fmt.Println(v)
		}
	default:
		usage()
	}
	if err != nil {
		fail(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: upstreamdeps rebase [--allow-downgrade] vX.Y.Z | verify | etcd-version")
	os.Exit(2)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "upstreamdeps: %v\n", err)
	os.Exit(1)
}
