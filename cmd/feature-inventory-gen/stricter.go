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
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// probes are the values tried in every free-form string field to find the
// gates that make validation stricter when they are on: spellings that a
// sloppy parser accepts and a strict one refuses. They are the ambiguous
// forms upstream has tightened so far (an IPv4 address with leading zeros,
// an IPv4-mapped IPv6 address, a CIDR with bits set beyond its prefix
// length); a new kind of tightening needs a new probe here.
var probes = []string{"010.000.000.001", "::ffff:1.2.3.4", "10.0.0.1/8"}

// stringPaths returns the JSON path of every field of t (a versioned API
// type) whose type is a string kind without declared constants (a
// free-form string), and of every list of those; lists are true for the
// lists. It leaves out what valuePaths leaves out: metadata, status, list
// elements themselves and recursive types below their first level.
func stringPaths(t reflect.Type, consts *constantFinder) (paths map[string]bool, err error) {
	out := map[string]bool{}
	var walk func(t reflect.Type, path string, depth int, seen map[reflect.Type]bool) error
	walk = func(t reflect.Type, path string, depth int, seen map[reflect.Type]bool) error {
		t = derefType(t)
		if depth > maxTypeDepth || seen[t] || isLeaf(t) {
			return nil
		}
		switch t.Kind() {
		case reflect.String:
			if free, err := freeForm(t, consts); err != nil || !free {
				return err
			}
			if path != "" && path[len(path)-1] != ']' {
				out[path] = false
			}
		case reflect.Slice:
			if e := derefType(t.Elem()); e.Kind() == reflect.String {
				if free, err := freeForm(e, consts); err != nil || !free || path == "" || path[len(path)-1] == ']' {
					return err
				}
				out[path] = true
				return nil
			}
			return walk(t.Elem(), path+"[*]", depth+1, seen)
		case reflect.Array, reflect.Map:
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

// freeForm reports whether t, a string kind, has no declared constants.
func freeForm(t reflect.Type, consts *constantFinder) (bool, error) {
	vs, err := consts.constants(t)
	return len(vs) == 0, err
}

// probeTrial is an object prepared with every gate on with one free-form
// string field (or every element of a list of them) set, everywhere it
// occurs, to a probe that validation refuses at the field with every gate
// on.
type probeTrial struct {
	res   *resource
	path  string
	probe string
	obj   runtime.Object
	// reads are the gates validation read with every gate on.
	reads map[featuregate.Feature]bool
	// open is false once a gate was found that accepts the probe when off.
	open bool
}

// findStricterValues fills inv.stricter: for every resource, every
// free-form string field (stringPaths) and every probe, it sets the field
// to the probe in the smallest fuzzed object that sets it (prepared with
// every gate on) and validates the object with the strategy's Validate
// with every gate on. Where the probe is refused at the field, it
// validates again with every changeable gate off and, where it is then
// accepted, with each gate the first validation read off in turn: a probe
// refused only with a gate on is recorded for that gate. A probe that
// needs two gates off together to be accepted is noted, not recorded.
func findStricterValues(inv *inventory, gs *gateSet, rec *recordingGate, samples []*sample, consts *constantFinder, note func(string, ...interface{})) error {
	if err := gs.setAllOn(); err != nil {
		return err
	}
	probed, err := stringProbes(inv, bySize(samples), consts, note)
	if err != nil {
		return err
	}
	// Validation is safe to run concurrently (an apiserver does); which
	// gates it reads is recorded below, for the few that matter.
	refusedOn := make([]bool, len(probed))
	failed := make([]error, len(probed))
	parallel(len(probed), func(i int) {
		var errs field.ErrorList
		errs, failed[i] = validate(probed[i].res, probed[i].obj)
		refusedOn[i] = failed[i] == nil && errorsAtOrIn(errs, probed[i].path)
	})
	var trials []*probeTrial
	for i, t := range probed {
		if failed[i] != nil {
			note("%s: validating %s=%s with every gate on: %v", t.res.GroupResource, t.path, t.probe, failed[i])
		}
		if refusedOn[i] {
			trials = append(trials, t)
		}
	}
	progress("validating %d of %d probed objects whose probe is refused with every gate on with every gate off", len(trials), len(probed))
	if err := gs.setAllOff(); err != nil {
		return err
	}
	acceptedOff := make([]bool, len(trials))
	parallel(len(trials), func(i int) {
		errs, err := validate(trials[i].res, trials[i].obj)
		acceptedOff[i] = err == nil && !errorsAtOrIn(errs, trials[i].path)
	})
	var candidates []*probeTrial
	if err := gs.setAllOn(); err != nil {
		return err
	}
	for i, t := range trials {
		if acceptedOff[i] {
			t.reads = rec.recordDuring(func() { _, _ = validate(t.res, t.obj) })
			candidates = append(candidates, t)
		}
	}
	inv.stricter = map[featuregate.Feature]map[schema.GroupResource]map[string][]string{}
	for _, g := range gs.changeable {
		var mine []*probeTrial
		for _, t := range candidates {
			if t.reads[g] {
				mine = append(mine, t)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if _, err := gs.setOff(g); err != nil {
			return err
		}
		accepted := make([]bool, len(mine))
		parallel(len(mine), func(i int) {
			errs, err := validate(mine[i].res, mine[i].obj)
			accepted[i] = err == nil && !errorsAtOrIn(errs, mine[i].path)
		})
		for i, t := range mine {
			if !accepted[i] {
				continue
			}
			t.open = false
			byRes := inv.stricter[g]
			if byRes == nil {
				byRes = map[schema.GroupResource]map[string][]string{}
				inv.stricter[g] = byRes
			}
			if byRes[t.res.GroupResource] == nil {
				byRes[t.res.GroupResource] = map[string][]string{}
			}
			if !slices.Contains(byRes[t.res.GroupResource][t.path], t.probe) {
				byRes[t.res.GroupResource][t.path] = append(byRes[t.res.GroupResource][t.path], t.probe)
			}
		}
	}
	for _, t := range candidates {
		if t.open {
			note("%s: %s=%s is refused with every gate on and accepted with every gate off, but with no single gate off", t.res.GroupResource, t.path, t.probe)
		}
	}
	return gs.setAllOn()
}

// errorsAtOrIn reports whether any of errs is at path or at an element of
// it (indices and keys collapsed to [*]).
func errorsAtOrIn(errs field.ErrorList, path string) bool {
	return errorsAt(errs, path) || errorsAt(errs, path+"[*]")
}

// stringProbes sets, in the first of samples of each resource that sets it,
// each free-form string path (stringPaths) to each of probes.
func stringProbes(inv *inventory, samples []*sample, consts *constantFinder, note func(string, ...interface{})) ([]*probeTrial, error) {
	objects := map[*sample]map[string]interface{}{}
	var probed []*probeTrial
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
		paths, err := stringPaths(reflect.TypeOf(own[0].on), consts)
		if err != nil {
			return nil, err
		}
		for _, p := range slices.Sorted(maps.Keys(paths)) {
			fp, err := gatedfield.Parse(p)
			if err != nil {
				return nil, err
			}
			s, err := firstSetting(own, fp, objects)
			if err != nil {
				note("%s: reading %s: %v", r.GroupResource, p, err)
				continue
			}
			if s == nil {
				continue
			}
			for _, probe := range probes {
				var v interface{} = probe
				if paths[p] {
					v = []interface{}{probe}
				}
				obj, err := withObject(s, fp, v)
				if err != nil || obj == nil {
					note("%s: setting %s=%s, %s: %v", r.GroupResource, p, probe, s.trial, err)
					continue
				}
				probed = append(probed, &probeTrial{res: r, path: p, probe: probe, obj: obj, open: true})
			}
		}
	}
	return probed, nil
}
