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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// leafKind is what kind of value a relational probe sets in a field.
type leafKind int

const (
	boolLeaf leafKind = iota
	enumLeaf
	quantityLeaf
	quantityListLeaf
	// optionalStruct is a pointer to a struct: present or absent (a one-of
	// choice left to the others).
	optionalStruct
)

// maxPairValues bounds the declared constants of an enum field the pair
// probe tries (signal names: dozens); a field with more is left out of
// pairs (its values alone are tried by refused.go).
const maxPairValues = 12

// relLeaf is a field a relational probe sets.
type relLeaf struct {
	path string
	kind leafKind
	// values are the values tried (booleans, constants).
	values []interface{}
	// optional is true for a pointer or list field, which may be absent.
	optional bool
}

var quantityType = reflect.TypeFor[apiresource.Quantity]()

// relLeaves returns the boolean, enum and quantity fields of t (a versioned
// API type) outside metadata and status, and lists of quantities, as
// valuePaths walks it.
func relLeaves(t reflect.Type, consts *constantFinder) ([]relLeaf, error) {
	var out []relLeaf
	var walk func(t reflect.Type, path string, depth int, optional bool, seen map[reflect.Type]bool) error
	walk = func(t reflect.Type, path string, depth int, optional bool, seen map[reflect.Type]bool) error {
		if t.Kind() == reflect.Pointer {
			optional = true
		}
		t = derefType(t)
		named := path != "" && path[len(path)-1] != ']'
		if t == quantityType {
			if path != "" {
				out = append(out, relLeaf{path: path, kind: quantityLeaf, optional: optional})
			}
			return nil
		}
		if depth > maxTypeDepth || seen[t] || isLeaf(t) {
			return nil
		}
		switch t.Kind() {
		case reflect.Bool:
			if named {
				out = append(out, relLeaf{path: path, kind: boolLeaf, values: []interface{}{true, false}, optional: optional})
			}
		case reflect.String:
			vs, err := consts.constants(t)
			if err != nil {
				return err
			}
			if named && len(vs) > 0 && len(vs) <= maxPairValues {
				l := relLeaf{path: path, kind: enumLeaf, optional: optional}
				for _, v := range vs {
					l.values = append(l.values, v)
				}
				out = append(out, l)
			}
		case reflect.Slice:
			if derefType(t.Elem()) == quantityType {
				if named {
					out = append(out, relLeaf{path: path, kind: quantityListLeaf, optional: true})
				}
				return nil
			}
			return walk(t.Elem(), path+"[*]", depth+1, false, seen)
		case reflect.Map:
			return walk(t.Elem(), path+"[*]", depth+1, false, seen)
		case reflect.Array:
			return walk(t.Elem(), path+"[*]", depth+1, false, seen)
		case reflect.Struct:
			if optional && named {
				out = append(out, relLeaf{path: path, kind: optionalStruct, optional: true})
			}
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
				if err := walk(f.Type, p, depth+1, false, seen); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(t, "", 0, false, map[reflect.Type]bool{})
}

// structOf returns the path of the struct holding the field at p (for a
// map value, of the struct holding the map); "" for a top-level field.
func structOf(p string) string {
	p = strings.TrimSuffix(p, "[*]")
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// up returns the path of the struct holding the struct at s.
func up(s string) string {
	if s == "" {
		return "-"
	}
	return structOf(s)
}

// related reports whether a and b are fields of one struct, or one is a
// field of the other's parent struct.
func related(a, b string) bool {
	sa, sb := structOf(a), structOf(b)
	return sa == sb || sa == up(sb) || sb == up(sa)
}

// assignment is one value set at a path of a probe; absent removes it.
type assignment struct {
	path   string
	value  interface{}
	absent bool
}

func (a assignment) String() string {
	if a.absent {
		return a.path + "=<absent>"
	}
	if l, ok := a.value.([]interface{}); ok {
		s := make([]string, len(l))
		for i, e := range l {
			s[i] = fmt.Sprint(e)
		}
		return a.path + "=[" + strings.Join(s, ",") + "]"
	}
	return fmt.Sprintf("%s=%v", a.path, a.value)
}

// assign sets each assignment in u (an object's unstructured form) at
// every occurrence of its path, or, where the field is unset, in every
// struct that holds it; it returns false when some assignment found no
// place.
func assign(u map[string]interface{}, as []assignment) bool {
	for _, a := range as {
		if m, ok := strings.CutSuffix(a.path, "[*]"); ok {
			// The values of a map: every one of them.
			placed := false
			for _, v := range gatedfield.MustParse(m).Values(u) {
				mv, ok := v.(map[string]interface{})
				if !ok || len(mv) == 0 {
					continue
				}
				for k := range mv {
					if a.absent {
						delete(mv, k)
					} else {
						mv[k] = runtime.DeepCopyJSONValue(a.value)
					}
				}
				placed = true
			}
			if !placed {
				return false
			}
			continue
		}
		p := gatedfield.MustParse(a.path) // paths come from the type
		last := p[len(p)-1]
		if last.Each > 0 {
			if a.absent || p.Replace(u, a.value) == 0 {
				return false
			}
			continue
		}
		parents := []interface{}{u}
		each := false
		if len(p) > 1 {
			parent := slices.Clone(p[:len(p)-1])
			parents = parent.Values(u)
			each = parent[len(parent)-1].Each > 0
		}
		placed := false
		for _, v := range parents {
			for _, m := range structs(v, each) {
				if a.absent {
					delete(m, last.Field)
				} else {
					m[last.Field] = runtime.DeepCopyJSONValue(a.value)
				}
				placed = true
			}
		}
		if !placed {
			return false
		}
	}
	return true
}

// structs returns the structs v holds: v itself, or with each (a parent
// path ending with [*]) the elements of a list or the values of a map.
func structs(v interface{}, each bool) []map[string]interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		if !each {
			return []map[string]interface{}{v}
		}
		var out []map[string]interface{}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if m, ok := v[k].(map[string]interface{}); ok {
				out = append(out, m)
			}
		}
		return out
	case []interface{}:
		var out []map[string]interface{}
		for _, e := range v {
			if m, ok := e.(map[string]interface{}); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// unstructuredOf caches samples' objects (prepared with every gate on) in
// their unstructured form.
type unstructuredOf map[*sample]map[string]interface{}

// of returns s.on in its unstructured form, not to be changed.
func (c unstructuredOf) of(s *sample) (map[string]interface{}, error) {
	if u, ok := c[s]; ok {
		return u, nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.on)
	if err != nil {
		return nil, err
	}
	c[s] = u
	return u, nil
}

// probeObject returns s.on (prepared with every gate on) with as set, as
// an internal object, or nil when an assignment found no place.
func probeObject(cache unstructuredOf, s *sample, as []assignment) (runtime.Object, error) {
	on, err := cache.of(s)
	if err != nil {
		return nil, err
	}
	u := runtime.DeepCopyJSON(on)
	if !assign(u, as) {
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

// pairProbed are the resources whose pod spec pairs are probed: a pod and
// a pod template (one function validates the pod spec of every workload;
// the derived tasks apply a pod spec path to all).
var pairProbed = map[string]bool{"pods": true, "podtemplates": true}

// pairTrials returns the trials of the combination probe: for every
// resource, every pair of related boolean and enum fields (relLeaves,
// related) and every pair of their values, the smallest fuzzed object
// holding the fields' structs with both set. Errors count at either field,
// an element of it or the struct holding it. Pod spec pairs are tried on
// pods and pod templates only.
func pairTrials(inv *inventory, samples []*sample, consts *constantFinder, note func(string, ...interface{})) ([]*relTrial, error) {
	var out []*relTrial
	cache := unstructuredOf{}
	for i := range inv.resources {
		r := &inv.resources[i]
		own := ownSamples(samples, r)
		if len(own) == 0 {
			continue
		}
		ls, err := relLeaves(reflect.TypeOf(own[0].on), consts)
		if err != nil {
			return nil, err
		}
		prefix, hasPodSpec := inv.podSpecs[r.GroupResource]
		var choices []relLeaf
		for _, l := range ls {
			if l.kind != boolLeaf && l.kind != enumLeaf {
				continue
			}
			if hasPodSpec && within(l.path, prefix) && !pairProbed[r.GroupResource.String()] {
				continue
			}
			choices = append(choices, l)
		}
		for x := range choices {
			for y := x + 1; y < len(choices); y++ {
				a, b := choices[x], choices[y]
				if !related(a.path, b.path) {
					continue
				}
				s := smallestHolding(cache, own, structOf(a.path), structOf(b.path))
				if s == nil {
					continue
				}
				counted := map[string]bool{a.path: true, b.path: true, structOf(a.path): true, structOf(b.path): true}
				counts := func(f string) bool {
					return counted[f] || counted[strings.TrimSuffix(f, "[*]")]
				}
				for _, va := range a.values {
					for _, vb := range b.values {
						as := []assignment{{path: a.path, value: va}, {path: b.path, value: vb}}
						obj, err := probeObject(cache, s, as)
						if err != nil {
							note("%s: setting %v, %s: %v", r.GroupResource, as, s.trial, err)
							continue
						}
						if obj == nil {
							continue
						}
						out = append(out, &relTrial{res: r, class: classCombination, probe: []string{as[0].String(), as[1].String()}, obj: obj, counts: counts})
					}
				}
			}
		}
	}
	return out, nil
}

// combinations keeps the findings of the pair probe that need both values:
// for a refusal of the pair (a=va, b=vb) at a field, some other value of b
// with va, and some other value of a with vb, are not refused there with
// every gate off (a value refused whatever the other field holds is the
// one-field probe's to find).
func combinations(trials []*relTrial, found findings) {
	type half struct {
		gr         schema.GroupResource
		set, other string // "path=value" of the value kept, the other path
	}
	byHalf := map[half][]*relTrial{}
	for _, t := range trials {
		if t.failed || t.class != classCombination {
			continue
		}
		for i := range 2 {
			h := half{t.res.GroupResource, t.probe[i], pathOf(t.probe[1-i])}
			byHalf[h] = append(byHalf[h], t)
		}
	}
	// alone reports whether f is refused with every value of the other
	// field (among the trials whose validation with every gate on accepts
	// f).
	alone := func(h half, f string) bool {
		n := 0
		for _, t := range byHalf[h] {
			if t.on[f] {
				continue
			}
			if !t.cand[f] {
				return false
			}
			n++
		}
		return n > 0
	}
	found.filter(func(_ featuregate.Feature, gr schema.GroupResource, f string, fd *relFinding) bool {
		if fd.class != classCombination {
			return true
		}
		return !alone(half{gr, fd.probe[0], pathOf(fd.probe[1])}, f) && !alone(half{gr, fd.probe[1], pathOf(fd.probe[0])}, f)
	})
}

// pathOf returns the path of a "path=value" assignment.
func pathOf(a string) string {
	p, _, _ := strings.Cut(a, "=")
	return p
}

// ownSamples returns the samples of r, in the order of samples.
func ownSamples(samples []*sample, r *resource) []*sample {
	var own []*sample
	for _, s := range samples {
		if s.res == r {
			own = append(own, s)
		}
	}
	return own
}

// smallestHolding returns the first of samples (sorted by size) whose
// object holds a struct at each of paths ("" is the object itself).
func smallestHolding(cache unstructuredOf, samples []*sample, paths ...string) *sample {
	for _, s := range samples {
		u, err := cache.of(s)
		if err != nil {
			continue
		}
		ok := true
		for _, p := range paths {
			if p == "" {
				continue
			}
			fp, err := gatedfield.Parse(p)
			if err != nil || len(fp.Values(u)) == 0 {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	return nil
}

var podSpecType = reflect.TypeFor[corev1.PodSpec]()

// podSpecPath returns the JSON path of the first corev1.PodSpec field of
// t (a versioned API type), depth first, outside metadata and status.
func podSpecPath(t reflect.Type, prefix string, depth int) (string, bool) {
	t = derefType(t)
	if depth > 6 || t.Kind() != reflect.Struct {
		return "", false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline := jsonName(f)
		if inline || name == "-" || name == "metadata" || name == "status" {
			continue
		}
		p := join(prefix, name)
		if derefType(f.Type) == podSpecType {
			return p, true
		}
		if q, ok := podSpecPath(f.Type, p, depth+1); ok {
			return q, true
		}
	}
	return "", false
}

// findPodSpecs fills inv.podSpecs from the samples' versioned types.
func findPodSpecs(inv *inventory, samples []*sample) {
	inv.podSpecs = map[schema.GroupResource]string{}
	for _, s := range samples {
		if _, done := inv.podSpecs[s.res.GroupResource]; done {
			continue
		}
		if p, ok := podSpecPath(reflect.TypeOf(s.on), "", 0); ok {
			inv.podSpecs[s.res.GroupResource] = p
		}
	}
}
