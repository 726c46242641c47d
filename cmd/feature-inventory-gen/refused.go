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
	"fmt"
	"maps"
	"reflect"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// maxTypeDepth bounds how deep valuePaths walks a type.
const maxTypeDepth = 16

// boundaries are the values tried in integer fields: validation may refuse
// a number only with a gate off (HPAScaleToZero: minReplicas 0).
var boundaries = []string{"0"}

// valuePaths returns, for every field of t (a versioned API type) whose
// type is a named string type with declared constants, its JSON path (as
// DroppedPaths writes it) and the constants, and for every integer field
// its path and the boundaries. It leaves out metadata and status
// (PrepareForCreate resets status), list elements themselves (a path must
// name a field) and recursive types below their first level.
func valuePaths(t reflect.Type, consts *constantFinder) (map[string][]string, error) {
	out := map[string][]string{}
	var walk func(t reflect.Type, path string, depth int, seen map[reflect.Type]bool) error
	walk = func(t reflect.Type, path string, depth int, seen map[reflect.Type]bool) error {
		t = derefType(t)
		if depth > maxTypeDepth || seen[t] || isLeaf(t) {
			return nil
		}
		switch t.Kind() {
		case reflect.String:
			vs, err := consts.constants(t)
			if err != nil {
				return err
			}
			if len(vs) > 0 && path != "" && path[len(path)-1] != ']' {
				out[path] = vs
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if path != "" && path[len(path)-1] != ']' {
				out[path] = boundaries
			}
		case reflect.Slice, reflect.Array, reflect.Map:
			return walk(t.Elem(), path+"[*]", depth+1, seen)
		case reflect.Struct:
			seen[t] = true
			defer delete(seen, t)
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
					if depth == 0 && (name == "metadata" || name == "status") {
						continue
					}
					p = join(path, name)
				}
				if err := walk(f.Type, p, depth+1, seen); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(t, "", 0, map[reflect.Type]bool{})
}

// valueTrial is an object prepared with every gate on with one field set,
// everywhere it occurs, to one declared value that validation accepts at
// that field with every gate on.
type valueTrial struct {
	res   *resource
	path  string
	value string
	obj   runtime.Object
	// reads are the gates validation read with every gate on.
	reads map[featuregate.Feature]bool
	// above are the errors at fields path is part of with every gate on
	// (errorsAbove).
	above map[string]bool
}

// findRefusedValues fills inv.refused: for every resource, every field
// with a named string type with declared constants and every constant,
// and every integer field and every boundary (valuePaths), it
// sets the field to the constant in the smallest fuzzed object that sets
// it (prepared with every gate on), validates the object with the
// strategy's Validate with every gate on, and, where validation accepted
// the value at the field, again with each gate it read off in turn; a
// value refused at the field only with the gate off is recorded.
// Fuzzed objects are invalid in many other ways, so only the errors at the
// field (indices and keys collapsed to [*]) count, or at a field it is
// part of where another value does not get them (refusedAbove). Values the gate's
// strategy already drops (its fields, but the values it keeps) are not
// recorded again.
func findRefusedValues(inv *inventory, gs *gateSet, rec *recordingGate, samples []*sample, consts *constantFinder, note func(string, ...interface{})) error {
	if err := gs.setAllOn(); err != nil {
		return err
	}
	samples = bySize(samples)
	objects := map[*sample]map[string]interface{}{} // s.on, unstructured
	var trials []*valueTrial
	for i := range inv.resources {
		r := &inv.resources[i]
		var own []*sample
		for _, s := range samples {
			if s.res == r {
				own = append(own, s)
			}
		}
		if len(own) == 0 {
			continue
		}
		paths, err := valuePaths(reflect.TypeOf(own[0].on), consts)
		if err != nil {
			return err
		}
		for _, p := range slices.Sorted(maps.Keys(paths)) {
			fp, err := gatedfield.Parse(p)
			if err != nil {
				return err
			}
			s, err := firstSetting(own, fp, objects)
			if err != nil {
				note("%s: reading %s: %v", r.GroupResource, p, err)
				continue
			}
			if s == nil {
				continue // no fuzzed object sets it
			}
			for _, v := range paths[p] {
				obj, err := withValue(s, fp, v)
				if err != nil || obj == nil {
					note("%s: setting %s=%s, %s: %v", r.GroupResource, p, v, s.trial, err)
					continue
				}
				var errs field.ErrorList
				reads := rec.recordDuring(func() { errs, err = validate(r, obj) })
				if err != nil {
					note("%s: validating %s=%s with every gate on, %s: %v", r.GroupResource, p, v, s.trial, err)
					continue
				}
				if errorsAt(errs, p) {
					continue // refused with every gate on too
				}
				trials = append(trials, &valueTrial{res: r, path: p, value: v, obj: obj, reads: reads, above: errorsAbove(errs, p)})
			}
		}
	}
	total := 0
	for _, t := range trials {
		total += len(t.reads)
	}
	progress("validating %d objects with a declared value with each gate they read off (%d validations)", len(trials), total)
	inv.refused = map[featuregate.Feature]map[schema.GroupResource]map[string][]string{}
	for _, g := range gs.changeable {
		var mine []*valueTrial
		for _, t := range trials {
			if t.reads[g] && !dropsValue(inv.footprints[g], t.res.GroupResource, t.path, t.value) {
				mine = append(mine, t)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if _, err := gs.setOff(g); err != nil {
			return err
		}
		// Validation is safe to run concurrently (an apiserver does); the
		// results are recorded in order.
		refusedOff := make([]bool, len(mine))
		above := make([]map[string]bool, len(mine))
		errs := make([]error, len(mine))
		parallel(len(mine), func(i int) {
			var list field.ErrorList
			list, errs[i] = validate(mine[i].res, mine[i].obj)
			refusedOff[i] = errs[i] == nil && errorsAt(list, mine[i].path)
			above[i] = errorsAbove(list, mine[i].path)
		})
		refusedAbove := refusedAbove(mine, above, errs)
		for i, t := range mine {
			if errs[i] != nil {
				note("%s: validating %s=%s with %s off: %v", t.res.GroupResource, t.path, t.value, g, errs[i])
				continue
			}
			if !refusedOff[i] && !refusedAbove[i] {
				continue
			}
			byRes := inv.refused[g]
			if byRes == nil {
				byRes = map[schema.GroupResource]map[string][]string{}
				inv.refused[g] = byRes
			}
			if byRes[t.res.GroupResource] == nil {
				byRes[t.res.GroupResource] = map[string][]string{}
			}
			if !slices.Contains(byRes[t.res.GroupResource][t.path], t.value) {
				byRes[t.res.GroupResource][t.path] = append(byRes[t.res.GroupResource][t.path], t.value)
			}
		}
	}
	return gs.setAllOn()
}

// parallel calls f(0) ... f(n-1) on GOMAXPROCS goroutines and returns
// when all have returned.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, goruntime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// dropsValue reports whether fp (a gate's footprint, maybe nil) already
// has the strategy drop value at path of gr.
func dropsValue(fp *footprint, gr schema.GroupResource, path, value string) bool {
	if fp == nil || fp.fields[gr][path] != Dropped {
		return false
	}
	return !slices.Contains(fp.keeps[gr][path], value)
}

// firstSetting returns the first of samples that sets p, or nil. objects
// caches the samples' objects in their unstructured form.
func firstSetting(samples []*sample, p gatedfield.Path, objects map[*sample]map[string]interface{}) (*sample, error) {
	for _, s := range samples {
		u, ok := objects[s]
		if !ok {
			var err error
			u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(s.on)
			if err != nil {
				return nil, err
			}
			objects[s] = u
		}
		if p.Has(u) {
			return s, nil
		}
	}
	return nil, nil
}

// validate runs r's create validation (the strategy's Validate) on obj in
// the context of a create request by a cluster admin.
func validate(r *resource, obj runtime.Object) (errs field.ErrorList, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ctx, err := requestContext(r, obj, "create", "")
	if err != nil {
		return nil, err
	}
	return r.Store.CreateStrategy.Validate(ctx, obj.DeepCopyObject()), nil
}

// errorsAbove returns the errors of errs at a field path is part of
// (spec.updateStrategy for spec.updateStrategy.type; indices and keys
// collapsed to [*]), as "<field> <type>".
func errorsAbove(errs field.ErrorList, path string) map[string]bool {
	out := map[string]bool{}
	for _, e := range errs {
		f := indices.ReplaceAllString(e.Field, "[*]")
		if f != path && (strings.HasPrefix(path, f+".") || strings.HasPrefix(path, f+"[")) {
			out[f+" "+string(e.Type)] = true
		}
	}
	return out
}

// refusedAbove reports, for each of trials (validated with a gate off:
// above are the errors at fields their path is part of, errs whether
// validation failed), whether its value is refused at a field its path is
// part of: validation reports some values of a field at the struct
// holding it (StatefulSetRecreateStrategy: updateStrategy.type Recreate
// is refused at spec.updateStrategy). An error there counts only when
// another value of the same field, tried on the same object, does not get
// it with the gate off, and the value did not get it with every gate on:
// an error above the field that any value gets is not about the value.
func refusedAbove(trials []*valueTrial, above []map[string]bool, errs []error) []bool {
	out := make([]bool, len(trials))
	for i, t := range trials {
		if errs[i] != nil {
			continue
		}
		for e := range above[i] {
			if t.above[e] {
				continue
			}
			for j, o := range trials {
				if j != i && errs[j] == nil && o.res == t.res && o.path == t.path && o.value != t.value && !above[j][e] {
					out[i] = true
					break
				}
			}
			if out[i] {
				break
			}
		}
	}
	return out
}

// indices are the list indices and map keys of a validation error's field
// path.
var indices = regexp.MustCompile(`\[[^]]*\]`)

// errorsAt reports whether any of errs is at path (indices and keys
// collapsed to [*]).
func errorsAt(errs field.ErrorList, path string) bool {
	for _, e := range errs {
		if indices.ReplaceAllString(e.Field, "[*]") == path {
			return true
		}
	}
	return false
}
