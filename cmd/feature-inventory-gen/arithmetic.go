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
	"strings"
)

// fractions are the values the arithmetic probe sets quantities to: 0.5
// and 1 round to the same whole number (a set of them holds a duplicate
// once rounded), 1.5 rounds to 2, which does not divide 3 while 1.5 does
// (a step, a range), and 3 is whole.
var fractions = []interface{}{"500m", "1", "1500m", "3"}

// fractionLists are the values the arithmetic probe sets a list of
// quantities to: absent (a one-of left to its other choices), or two
// values that are distinct but round to the same whole number.
var fractionLists = []interface{}{nil, []interface{}{"500m", "1"}}

// maxFamilyTrials bounds the assignments of one family of quantities (the
// product of the values of its fields); a larger family is noted.
const maxFamilyTrials = 4096

// family is the quantities of a struct, of its parent struct and of its
// child structs, which validation may relate (a capacity, the default of
// its request policy, the policy's range).
type family struct {
	anchor  string
	members []relLeaf
}

// quantityFamilies returns, for every struct holding quantity fields, the
// family anchored there, leaving out a family whose members another
// family holds too.
func quantityFamilies(ls []relLeaf) []family {
	var qs []relLeaf
	for _, l := range ls {
		if l.kind == quantityLeaf || l.kind == quantityListLeaf {
			qs = append(qs, l)
		}
	}
	var opts []relLeaf
	for _, l := range ls {
		if l.kind == optionalStruct {
			opts = append(opts, l)
		}
	}
	byAnchor := map[string][]relLeaf{}
	for _, a := range qs {
		s := structOf(a.path)
		if _, done := byAnchor[s]; done {
			continue
		}
		for _, q := range qs {
			qs := structOf(q.path)
			if qs == s || qs == up(s) || up(qs) == s {
				byAnchor[s] = append(byAnchor[s], q)
			}
		}
		// The optional structs below the anchor holding members: present
		// or absent, first.
		var holding []relLeaf
		for _, o := range opts {
			if structOf(o.path) == s && slices.ContainsFunc(byAnchor[s], func(q relLeaf) bool { return within(q.path, o.path) }) {
				holding = append(holding, o)
			}
		}
		byAnchor[s] = append(holding, byAnchor[s]...)
	}
	var out []family
	anchors := slices.Sorted(maps.Keys(byAnchor))
	for _, a := range anchors {
		sub := false
		for _, b := range anchors {
			if a != b && subset(byAnchor[a], byAnchor[b]) && (len(byAnchor[a]) < len(byAnchor[b]) || a > b) {
				sub = true
				break
			}
		}
		if !sub {
			out = append(out, family{anchor: a, members: byAnchor[a]})
		}
	}
	return out
}

// subset reports whether every path of a is in b.
func subset(a, b []relLeaf) bool {
	for _, x := range a {
		if x.kind == optionalStruct {
			continue
		}
		if !slices.ContainsFunc(b, func(y relLeaf) bool { return y.path == x.path }) {
			return false
		}
	}
	return true
}

// arithmeticTrials returns the trials of the arithmetic probe: for every
// resource and every family of quantities, every assignment of fractions
// to its quantity fields and of fractionLists to its lists of
// quantities, in the smallest fuzzed object holding the family's anchor.
// Errors count at a member, an element of it, or a struct on the way from
// the anchor's parent to a member. Pod spec families are tried on pods
// and pod templates only, as pairs are.
func arithmeticTrials(inv *inventory, samples []*sample, consts *constantFinder, note func(string, ...interface{})) ([]*relTrial, error) {
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
		for _, f := range quantityFamilies(ls) {
			if hasPodSpec && within(f.anchor, prefix) && !pairProbed[r.GroupResource.String()] {
				continue
			}
			assignments := familyAssignments(f.members)
			if n := len(assignments); n > maxFamilyTrials {
				note("%s: the quantities at %s make %d assignments, more than the arithmetic probe tries (%d)", r.GroupResource, f.anchor, len(assignments), maxFamilyTrials)
				continue
			}
			s := smallestHolding(cache, own, f.anchor)
			if s == nil {
				continue
			}
			counted := map[string]bool{}
			top := up(f.anchor)
			for _, m := range f.members {
				counted[m.path] = true
				for p := structOf(m.path); p != "" && p != "-" && within(p, top); p = up(p) {
					counted[p] = true
				}
			}
			counts := func(field string) bool {
				if counted[field] {
					return true
				}
				for p := range counted {
					if strings.HasPrefix(field, p+"[") && !strings.Contains(strings.TrimPrefix(field, p), ".") {
						return true // an element of a member
					}
				}
				return false
			}
			for _, as := range assignments {
				obj, err := probeObject(cache, s, as)
				if err != nil {
					note("%s: setting the quantities at %s, %s: %v", r.GroupResource, f.anchor, s.trial, err)
					continue
				}
				if obj == nil {
					continue
				}
				probe := make([]string, len(as))
				for i, a := range as {
					probe[i] = a.String()
				}
				out = append(out, &relTrial{res: r, class: classArithmetic, probe: probe, obj: obj, counts: counts})
			}
		}
	}
	return out, nil
}

// familyAssignments returns every assignment of fractions (fractionLists
// for lists) to members, in a fixed order, with each optional struct
// among them (first) left as it is or absent; the members of an absent
// struct get nothing.
func familyAssignments(members []relLeaf) [][]assignment {
	out := [][]assignment{nil}
	for _, m := range members {
		var next [][]assignment
		for _, prev := range out {
			if slices.ContainsFunc(prev, func(a assignment) bool { return a.absent && within(m.path, a.path) && m.path != a.path }) {
				next = append(next, prev) // in an absent struct
				continue
			}
			if m.kind == optionalStruct {
				next = append(next, prev, append(slices.Clone(prev), assignment{path: m.path, absent: true}))
				continue
			}
			values := fractions
			if m.kind == quantityListLeaf {
				values = fractionLists
			}
			for _, v := range values {
				next = append(next, append(slices.Clone(prev), assignment{path: m.path, value: v, absent: v == nil}))
			}
		}
		out = next
	}
	return out
}
