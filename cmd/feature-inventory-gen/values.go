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
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// leafType returns the Go type of what the path (as DroppedPaths writes
// it, possibly ending with [*]) designates in t, a versioned API type, with pointers removed: struct
// fields by their json names (inline and embedded fields flattened), [*]
// for the elements of a list or the values of a map.
func leafType(t reflect.Type, path string) (reflect.Type, error) {
	t = derefType(t)
	for _, part := range strings.Split(path, ".") {
		name, each := strings.TrimRight(part, "[*]"), strings.Count(part, "[*]")
		f, ok := fieldByJSONName(t, name)
		if !ok {
			return nil, fmt.Errorf("%s has no field %q (path %s)", t, name, path)
		}
		t = derefType(f.Type)
		for range each {
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array && t.Kind() != reflect.Map {
				return nil, fmt.Errorf("%s is no list or map (path %s)", t, path)
			}
			t = derefType(t.Elem())
		}
	}
	return t, nil
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fieldByJSONName finds the field of struct type t named name in JSON,
// looking into inline and embedded fields.
func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		n, inline := jsonName(f)
		if inline {
			if g, ok := fieldByJSONName(derefType(f.Type), name); ok {
				return g, true
			}
			continue
		}
		if n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// constantFinder finds the string constants a package declares of its
// named string types, by parsing the package's source (its directory from
// go list), once per package.
type constantFinder struct {
	mu   sync.Mutex
	pkgs map[string]map[string][]string // package path -> type name -> values
	errs map[string]error
}

func newConstantFinder() *constantFinder {
	return &constantFinder{pkgs: map[string]map[string][]string{}, errs: map[string]error{}}
}

// constants returns the values of the constants declared of t in its
// package, sorted, or none when t is not a named string type. Constants
// of the empty string are left out: setting one is unsetting the field.
func (c *constantFinder) constants(t reflect.Type) ([]string, error) {
	if t.Kind() != reflect.String || t.PkgPath() == "" || t.Name() == "" {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	pkg, ok := c.pkgs[t.PkgPath()]
	if !ok && c.errs[t.PkgPath()] == nil {
		var err error
		pkg, err = parseConstants(t.PkgPath())
		c.pkgs[t.PkgPath()], c.errs[t.PkgPath()] = pkg, err
	}
	if err := c.errs[t.PkgPath()]; err != nil {
		return nil, err
	}
	return pkg[t.Name()], nil
}

// parseConstants returns, for every type of the package at importPath,
// the string values of the constants declared with it as their explicit
// type (const A T = "a") or converted to it (const A = T("a")).
func parseConstants(importPath string) (map[string][]string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", importPath).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", importPath, err)
	}
	dir := strings.TrimSpace(string(out))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	consts := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i := range vs.Names {
					if i >= len(vs.Values) {
						break
					}
					typ, val, ok := typedString(vs.Type, vs.Values[i])
					if ok && val != "" {
						consts[typ] = append(consts[typ], val)
					}
				}
			}
		}
	}
	for typ, vs := range consts {
		slices.Sort(vs)
		consts[typ] = slices.Compact(vs)
	}
	return consts, nil
}

// typedString returns the type name and value of a constant declared as
// `T = "v"` or `= T("v")`.
func typedString(typ ast.Expr, value ast.Expr) (string, string, bool) {
	if call, ok := value.(*ast.CallExpr); ok && typ == nil && len(call.Args) == 1 {
		typ, value = call.Fun, call.Args[0]
	}
	id, ok := typ.(*ast.Ident)
	if !ok {
		return "", "", false
	}
	lit, ok := value.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", "", false
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return "", "", false
	}
	return id.Name, s, true
}

// maxValueTrials bounds how many objects a value is tried on per gate,
// resource and path.
const maxValueTrials = 3

// findKeptValues fills the keeps of every footprint: for each dropped path
// whose type is a named string type with declared constants, it sets, in
// objects prepared with every gate on where the gate's strategy dropped
// the path, every occurrence of the path to each constant in turn, runs
// PrepareForCreate with the gate off again, and records the constants the
// strategy kept in every object tried (dropContainerRestartRules keeps an
// init container's restartPolicy Always: sidecars are GA).
func findKeptValues(inv *inventory, gs *gateSet, samples []*sample, consts *constantFinder, note func(string, ...interface{})) error {
	// The smallest objects first: trying ~60 signal names on pod
	// templates' stopSignal fields costs seconds on the largest.
	samples = bySize(samples)
	for _, g := range slices.Sorted(maps.Keys(inv.footprints)) {
		fp := inv.footprints[g]
		type candidate struct {
			gr     schema.GroupResource
			path   string
			values []string
		}
		var cands []candidate
		for _, gr := range sortedGRs(fp.fields) {
			for _, p := range slices.Sorted(maps.Keys(fp.fields[gr])) {
				if fp.fields[gr][p] != Dropped {
					continue
				}
				values, err := pathConstants(samples, gr, p, consts)
				if err != nil {
					note("%s: constants of %s: %v", gr, p, err)
					continue
				}
				if len(values) > 0 {
					cands = append(cands, candidate{gr, p, values})
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		if _, err := gs.setOff(g); err != nil {
			return err
		}
		progress("%s: %d paths with declared values", g, len(cands))
		for _, c := range cands {
			var kept []string
			for _, v := range c.values {
				tried, keptAll := 0, true
				for _, s := range samples {
					if tried == maxValueTrials || !keptAll {
						break
					}
					if s.res.GroupResource != c.gr || s.found[g][c.path] != Dropped || s.unstable[c.path] {
						continue
					}
					ok, err := keepsValue(s, c.path, v)
					if err != nil {
						note("%s: trying %s=%s with %s off, %s: %v", c.gr, c.path, v, g, s.trial, err)
						continue
					}
					tried++
					keptAll = ok
				}
				if tried > 0 && keptAll {
					kept = append(kept, v)
				}
			}
			if len(kept) > 0 {
				if fp.keeps == nil {
					fp.keeps = map[schema.GroupResource]map[string][]string{}
				}
				if fp.keeps[c.gr] == nil {
					fp.keeps[c.gr] = map[string][]string{}
				}
				fp.keeps[c.gr][c.path] = kept
			}
		}
	}
	return gs.setAllOn()
}

// bySize returns samples sorted by the size of their object prepared with
// every gate on (in JSON), the smallest first.
func bySize(samples []*sample) []*sample {
	out := slices.Clone(samples)
	size := make(map[*sample]int, len(out))
	for _, s := range out {
		data, err := json.Marshal(s.on)
		if err != nil {
			size[s] = 1 << 30 // last
			continue
		}
		size[s] = len(data)
	}
	slices.SortStableFunc(out, func(a, b *sample) int { return size[a] - size[b] })
	return out
}

// pathConstants returns the declared constants of the type of path in gr's
// version (none when it is no named string type).
func pathConstants(samples []*sample, gr schema.GroupResource, path string, consts *constantFinder) ([]string, error) {
	for _, s := range samples {
		if s.res.GroupResource != gr {
			continue
		}
		t, err := leafType(reflect.TypeOf(s.on), path)
		if err != nil {
			return nil, err
		}
		return consts.constants(t)
	}
	return nil, nil
}

// keepsValue sets every occurrence of path in s.on (prepared with every
// gate on) to value, runs PrepareForCreate with the current gates again
// and reports whether every occurrence is still there with that value.
func keepsValue(s *sample, path string, value string) (bool, error) {
	p, err := gatedfield.Parse(path)
	if err != nil {
		return false, err
	}
	in, err := withValue(s, p, value)
	if err != nil {
		return false, err
	}
	if in == nil {
		return false, fmt.Errorf("no occurrence of the path")
	}
	out, err := prepare(s.res, in)
	if err != nil {
		return false, err
	}
	before, err := pathValues(s.res, in, p)
	if err != nil {
		return false, err
	}
	after, err := pathValues(s.res, out, p)
	if err != nil {
		return false, err
	}
	return slices.Equal(before, after), nil
}

// withValue returns s.on with every occurrence of p set to value, as an
// internal object, or nil when s.on sets p nowhere. A number field is set
// to value read as a number.
func withValue(s *sample, p gatedfield.Path, value string) (runtime.Object, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.on)
	if err != nil {
		return nil, err
	}
	var v interface{} = value
	if old := p.Values(u); len(old) > 0 {
		if _, number := old[0].(int64); number {
			if v, err = strconv.ParseInt(value, 10, 64); err != nil {
				return nil, fmt.Errorf("%s is a number field: %w", p, err)
			}
		}
	}
	return withObjectFrom(s, u, p, v)
}

// withObject returns s.on, in its internal version, with the field p set
// to v (a string, a number or a list, as JSON reads them) everywhere it
// occurs, or nil when s does not set it.
func withObject(s *sample, p gatedfield.Path, v interface{}) (runtime.Object, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.on)
	if err != nil {
		return nil, err
	}
	return withObjectFrom(s, u, p, v)
}

// withObjectFrom is withObject on u, s.on in its unstructured form.
func withObjectFrom(s *sample, u map[string]interface{}, p gatedfield.Path, v interface{}) (runtime.Object, error) {
	if p.Replace(u, v) == 0 {
		return nil, nil
	}
	versioned := reflect.New(reflect.TypeOf(s.on).Elem()).Interface().(runtime.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, versioned); err != nil {
		return nil, err
	}
	internal := s.res.Store.NewFunc()
	if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}

// pathValues returns the values of p in an internal object of r, read in
// r's version, as strings.
func pathValues(r *resource, obj runtime.Object, p gatedfield.Path) ([]string, error) {
	ext, err := external(r, obj)
	if err != nil {
		return nil, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ext)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range p.Values(u) {
		out = append(out, fmt.Sprint(v))
	}
	return out, nil
}
