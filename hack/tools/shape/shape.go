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

package main

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Limits are the most lines of a file and of a function, and the most
// methods of a type.
type Limits struct {
	File, Func, Methods int
}

var defaultLimits = Limits{File: 800, Func: 120, Methods: 20}

// generated matches the line Go's convention marks generated files with.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// exempt reports whether path is left out: a generated file (src), or an
// API's types.go.
func exempt(path string, src []byte) bool {
	if generated.Match(src) {
		return true
	}
	return filepath.Base(path) == "types.go" && strings.Contains(filepath.ToSlash(path), "staging/src/k8s.io/api/")
}

// check returns, sorted, what of files is over limits.
func check(files []string, limits Limits) ([]string, error) {
	var problems []string
	methods := map[string]int{} // directory and receiver type -> methods
	where := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if !strings.HasSuffix(path, ".go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(path, "_test.go") || exempt(path, src) {
			continue
		}
		if n := bytes.Count(src, []byte("\n")); n > limits.File {
			problems = append(problems, fmt.Sprintf("%s: %d lines (at most %d)", path, n, limits.File))
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > limits.Func {
				problems = append(problems, fmt.Sprintf("%s:%d: func %s: %d lines (at most %d)", path, start.Line, fd.Name.Name, n, limits.Func))
			}
			if recv := receiver(fd); recv != "" {
				key := filepath.Dir(path) + "." + recv
				methods[key]++
				if _, ok := where[key]; !ok {
					where[key] = fmt.Sprintf("%s:%d", path, start.Line)
				}
			}
		}
	}
	for key, n := range methods {
		if n > limits.Methods {
			problems = append(problems, fmt.Sprintf("%s: type %s: %d methods (at most %d)", where[key], key[strings.LastIndex(key, ".")+1:], n, limits.Methods))
		}
	}
	slices.SortFunc(problems, cmp.Compare)
	return problems, nil
}

// receiver returns the name of fd's receiver type, or "" for a function.
func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
