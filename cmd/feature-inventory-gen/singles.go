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
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// The single-field pass complements the fuzzers. Upstream's fuzzer
// functions set some fields only in part (the EnvVar fuzzer sets only
// fieldRef; fuzzed pods have no container statuses), so a field a gate
// guards below them is never set. The pass sets every optional leaf field
// of a resource's type on its own, on an otherwise empty object, and runs
// the same trials on it as on a fuzzed one.

// maxSingles bounds the single-field objects made for one resource; a
// resource with more fields is reported in the notes.
const maxSingles = 20000

// step is one step of a path from an object to one of its fields: a struct
// field, the one element of a list, or the one value of a map.
type step struct {
	field int // index of the struct field, or -1
	elem  bool
	mapV  bool
}

// leaf is a field path of a type in JSON form (as DroppedPaths writes it)
// and the steps to it.
type leaf struct {
	path  string
	steps []step
}

// leaves returns the leaf fields below t (a versioned API type) that a
// representative value can be made for, outside metadata and type meta; a
// type recurs at most maxRecursion times in a path.
func leaves(t reflect.Type, consts *constantFinder) []leaf {
	var out []leaf
	depth := map[reflect.Type]int{}
	var walk func(t reflect.Type, path string, steps []step)
	walk = func(t reflect.Type, path string, steps []step) {
		t = derefType(t)
		if isLeaf(t) || t.Kind() != reflect.Struct && t.Kind() != reflect.Slice && t.Kind() != reflect.Array && t.Kind() != reflect.Map {
			if _, ok := representative(t, consts); ok {
				out = append(out, leaf{path: path, steps: append([]step(nil), steps...)})
			}
			return
		}
		switch t.Kind() {
		case reflect.Slice:
			walk(t.Elem(), path+"[*]", append(steps, step{field: -1, elem: true}))
			return
		case reflect.Map:
			if _, ok := representative(t.Key(), consts); !ok {
				return
			}
			walk(t.Elem(), path+"[*]", append(steps, step{field: -1, mapV: true}))
			return
		case reflect.Array:
			return
		}
		if depth[t] >= maxRecursion {
			return
		}
		depth[t]++
		defer func() { depth[t]-- }()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, inline := jsonName(f)
			if name == "-" {
				continue
			}
			p := path
			if !inline {
				p = join(path, name)
			}
			if path == "" && (name == "metadata" || name == "apiVersion" || name == "kind") {
				continue
			}
			walk(f.Type, p, append(steps, step{field: i}))
		}
	}
	walk(t, "", nil)
	return out
}

// jsonLiterals are tried in turn to make a value of a type that marshals
// itself (resource.Quantity, metav1.Time, metav1.Duration,
// intstr.IntOrString, []byte, ...): the first that decodes to a set value
// is used.
var jsonLiterals = []string{`"1"`, `1`, `"2026-01-01T00:00:00Z"`, `"1s"`, `"eA=="`}

// representative returns a set value of t, which is no pointer: the first
// declared constant of a named string type, "x" for other strings, true,
// 1, or a literal that decodes to a set value; false when there is none
// (interfaces, channels, functions).
func representative(t reflect.Type, consts *constantFinder) (reflect.Value, bool) {
	v := reflect.New(t).Elem()
	if isLeaf(t) {
		for _, lit := range jsonLiterals {
			p := reflect.New(t)
			if err := json.Unmarshal([]byte(lit), p.Interface()); err == nil && !p.Elem().IsZero() {
				return p.Elem(), true
			}
		}
		return v, false
	}
	switch t.Kind() {
	case reflect.String:
		s := "x"
		if cs, err := consts.constants(t); err == nil && len(cs) > 0 {
			s = cs[0]
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	default:
		return v, false
	}
	return v, true
}

// setLeaf sets the field at steps below v (settable) to its representative
// value, making every pointer, list (of one element) and map (of one key)
// on the way.
func setLeaf(v reflect.Value, steps []step, consts *constantFinder) bool {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if len(steps) == 0 {
		r, ok := representative(v.Type(), consts)
		if ok {
			v.Set(r)
		}
		return ok
	}
	s := steps[0]
	switch {
	case s.elem:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		return setLeaf(v.Index(0), steps[1:], consts)
	case s.mapV:
		key, ok := representative(v.Type().Key(), consts)
		if !ok {
			return false
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if !setLeaf(elem, steps[1:], consts) {
			return false
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		v.SetMapIndex(key, elem)
		return true
	default:
		return setLeaf(v.Field(s.field), steps[1:], consts)
	}
}

// single is an object of a resource with one optional field set.
type single struct {
	res  *resource
	path string
	obj  runtime.Object // internal
}

// singles returns, for each of resources, an object per leaf field with that
// field set and nothing else but a name (and namespace) and the defaults:
// built in the resource's version, defaulted and converted to the internal
// version.
func singles(resources []resource, consts *constantFinder, note func(string, ...interface{})) []single {
	var out []single
	for i := range resources {
		r := &resources[i]
		ext, err := external(r, r.Store.NewFunc())
		if err != nil {
			note("%s: converting to %s: %v", r.GroupResource, r.Version, err)
			continue
		}
		ls := leaves(reflect.TypeOf(ext), consts)
		if len(ls) > maxSingles {
			note("%s: %d leaf fields, only the first %d are tried on their own", r.GroupResource, len(ls), maxSingles)
			ls = ls[:maxSingles]
		}
		for _, l := range ls {
			obj, err := singleObject(r, ext, l, consts)
			if err != nil {
				note("%s: setting %s on its own: %v", r.GroupResource, l.path, err)
				continue
			}
			if obj != nil {
				out = append(out, single{res: r, path: l.path, obj: obj})
			}
		}
	}
	return out
}

// singleObject returns an internal object of r with only the leaf l set
// (and a name), or nil when no value could be made for it.
func singleObject(r *resource, empty runtime.Object, l leaf, consts *constantFinder) (obj runtime.Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ext := empty.DeepCopyObject()
	if !setLeaf(reflect.ValueOf(ext), l.steps, consts) {
		return nil, nil
	}
	// Defaults, as the apiserver applies them before the strategy (which
	// relies on some: a Job's spec.manualSelector).
	legacyscheme.Scheme.Default(ext)
	a, err := meta.Accessor(ext)
	if err != nil {
		return nil, err
	}
	a.SetName(trialName)
	if r.Store.CreateStrategy.NamespaceScoped() {
		a.SetNamespace(trialName)
	}
	obj = r.Store.NewFunc()
	if err := legacyscheme.Scheme.Convert(ext, obj, nil); err != nil {
		return nil, err
	}
	return obj, nil
}

// underStatus reports whether path is a field of an object's status.
func underStatus(path string) bool {
	return path == "status" || strings.HasPrefix(path, "status.") || strings.HasPrefix(path, "status[")
}

// within reports whether path is q or a field below it.
func within(path, q string) bool {
	return path == q || strings.HasPrefix(path, q+".") || strings.HasPrefix(path, q+"[")
}

// listed reports whether g's footprint of gr already holds path or a field
// it is part of.
func listed(inv *inventory, g featuregate.Feature, gr schema.GroupResource, path string) bool {
	fp := inv.footprints[g]
	if fp == nil {
		return false
	}
	for q := range fp.fields[gr] {
		if within(path, q) {
			return true
		}
	}
	return false
}

// addSingleDrops adds to inv what the single-field objects (ones) found
// with a gate off, in PrepareForCreate and in a status update, where the
// fuzzed objects did not find it already (the field or one it is part of).
//
// A strategy may drop a whole struct because one field of it is set: with
// CrossNamespaceVolumeDataSource off, a PVC's dataSourceRef goes when its
// namespace is set, and stays otherwise. So where a trial drops a field
// that the one field set is part of, the inventory lists that field only
// when every single-field object below it lost it; otherwise it lists the
// fields set that made it go.
func addSingleDrops(inv *inventory, gs *gateSet, ones []*sample) {
	type whole struct {
		g  featuregate.Feature
		gr schema.GroupResource
		q  string
	}
	tried := map[schema.GroupResource][]string{}
	for _, s := range ones {
		tried[s.res.GroupResource] = append(tried[s.res.GroupResource], s.single)
	}
	by := map[whole]map[string]bool{}
	for _, s := range ones {
		gr := s.res.GroupResource
		for _, g := range slices.Sorted(maps.Keys(s.found)) {
			for _, p := range slices.Sorted(maps.Keys(s.found[g])) {
				switch {
				case s.unstable[p]:
				case p != s.single && within(s.single, p):
					w := whole{g, gr, p}
					if by[w] == nil {
						by[w] = map[string]bool{}
					}
					by[w][s.single] = true
				case !listed(inv, g, gr, p):
					inv.addField(gs, g, gr, p, s.found[g][p])
				}
			}
		}
	}
	for _, w := range slices.SortedFunc(maps.Keys(by), func(a, b whole) int {
		return strings.Compare(string(a.g)+a.gr.String()+a.q, string(b.g)+b.gr.String()+b.q)
	}) {
		below := 0
		for _, p := range tried[w.gr] {
			if within(p, w.q) {
				below++
			}
		}
		if len(by[w]) == below {
			if !listed(inv, w.g, w.gr, w.q) {
				inv.addField(gs, w.g, w.gr, w.q, Dropped)
			}
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(by[w])) {
			if !listed(inv, w.g, w.gr, p) {
				inv.addField(gs, w.g, w.gr, p, Dropped)
			}
		}
	}
}
