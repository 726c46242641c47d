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
	"context"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apitesting "k8s.io/kubernetes/pkg/api/testing"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	"sigs.k8s.io/randfill"
)

// inventory is what the generator found.
type inventory struct {
	upstreamVersion  string
	emulationVersion string
	seeds            int
	// singles counts the single-field objects made (singles).
	singles int
	// gates are the changeable gates examined, sorted.
	gates []featuregate.Feature
	// locked are the gates skipped because they are locked to their default.
	locked []featuregate.Feature
	// resources are the resources examined.
	resources []resource
	// without are the resources served without a registry store.
	without []noStore
	// footprints holds, for each gate with one, the fields turning it off
	// drops.
	footprints map[featuregate.Feature]*footprint
	// servedOnlyWith maps a gate to the resources served only while it is on.
	servedOnlyWith map[featuregate.Feature][]schema.GroupResource
	// refused maps a gate to the values of fields (by resource and path)
	// that validation refuses with it off and accepts with every gate on
	// (findRefusedValues).
	refused map[featuregate.Feature]map[schema.GroupResource]map[string][]string
	// stricter maps a gate to the probes of free-form string fields (by
	// resource and path) that validation refuses only with the gate on
	// (findStricterValues).
	stricter map[featuregate.Feature]map[schema.GroupResource]map[string][]string
	// notes are problems met on the way (panics, conversion errors), sorted.
	notes []string
	// markers is the cross-check against upstream's gate markers
	// (crossCheckMarkers).
	markers *markerCheck
	// podSpecs maps each resource whose objects hold a pod spec to its
	// path.
	podSpecs map[schema.GroupResource]string
	// relational maps a gate, a resource and a field to what validation
	// with the gate off refuses there only in relation to other values
	// (relational.go).
	relational map[featuregate.Feature]map[schema.GroupResource]map[string]*relFinding
	// trials counts the objects each relational probe validated.
	trials map[string]int
	// corpus is the corpus differential's report (corpus.go).
	corpus *corpusReport
}

// footprint is what turning one gate off drops.
type footprint struct {
	// turnsOff are the gates turned off with it (it and its dependents).
	turnsOff []featuregate.Feature
	// fields maps a resource to its dropped or changed field paths.
	fields map[schema.GroupResource]map[string]Change
	// keeps maps a resource and a dropped path to the values of it the
	// strategy keeps with the gate off (findKeptValues).
	keeps map[schema.GroupResource]map[string][]string
}

// sample is one fuzzed object of a resource and what PrepareForCreate made of
// it with every changeable gate on.
type sample struct {
	res *resource
	// trial says how obj was made, for the notes: "seed N", or "only
	// <path>" for a single-field object.
	trial string
	// single is the path of the one field set in obj, for a single-field
	// object (singles).
	single string
	obj    runtime.Object
	// on is the object prepared with all gates on, in the resource's version.
	on    runtime.Object
	onInt runtime.Object
	// reads are the gates PrepareForCreate read with every gate on.
	reads    map[featuregate.Feature]bool
	unstable map[string]bool
	// found holds, per gate, the paths that differed with the gate off
	// (for a single-field object, in its status update too).
	found map[featuregate.Feature]map[string]Change
}

// fillings are how the seeds fill objects, in turn: with a NilChance of 0
// every optional field is set, which reaches most fields; several list
// elements reach several branches of one-of choices (volume sources, probe
// handlers); the others reach other branches still.
var fillings = []struct {
	nilChance          float64
	minElems, maxElems int
}{
	{0, 1, 3},
	{0.2, 1, 3},
	{0.5, 0, 2},
	{0, 2, 4},
	{0.2, 1, 2},
}

// maxDepth bounds the depth of fuzzed objects (randfill's default is 100);
// it is deeper than any field of the API's workload types
// (cronjob spec.jobTemplate.spec.template.spec...).
const maxDepth = 40

// maxRecursion bounds how deep recursive types nest in a fuzzed object.
const maxRecursion = 2

// boundRecursion returns fuzzer functions that stop recursive types from
// nesting more than maxRecursion deep: with several list elements per
// level scheduling's CompositePodGroupTemplate would otherwise grow
// exponentially up to maxDepth.
func boundRecursion(runtimeserializer.CodecFactory) []interface{} {
	depth := 0
	return []interface{}{
		func(t *scheduling.CompositePodGroupTemplate, c randfill.Continue) {
			depth++
			defer func() { depth-- }()
			if depth > maxRecursion {
				t.Name = c.String(0)
				return
			}
			c.FillNoCustom(t)
		},
	}
}

func build(release string, seeds int, exhaustive bool, corpusRoot string) (*inventory, error) {
	rec := &recordingGate{FeatureGate: utilfeature.DefaultFeatureGate}
	utilfeature.DefaultFeatureGate = rec
	gs := newGateSet(utilfeature.DefaultMutableFeatureGate)
	inv := &inventory{
		upstreamVersion:  release,
		emulationVersion: utilfeature.DefaultMutableFeatureGate.EmulationVersion().String(),
		seeds:            seeds,
		gates:            gs.changeable,
		locked:           slices.Sorted(maps.Keys(gs.locked)),
		footprints:       map[featuregate.Feature]*footprint{},
		servedOnlyWith:   map[featuregate.Feature][]schema.GroupResource{},
	}
	notes := map[string]bool{}
	note := func(format string, args ...interface{}) { notes[fmt.Sprintf(format, args...)] = true }

	if err := findServedOnlyWith(inv, gs, note); err != nil {
		return nil, err
	}
	// Fuzzed objects prepared with every gate on, then objects with one
	// field set each.
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	consts := newConstantFinder()
	fuzzed, ones := newSamples(inv, rec, seeds, consts, note)
	samples := slices.Concat(fuzzed, ones)
	progress("running PrepareForCreate on %d objects with each gate off", len(samples))
	if err := findDrops(gs, samples, exhaustive, note); err != nil {
		return nil, err
	}
	// Every gate on again: what now differs from the first runs is unstable
	// too (a clock that moved between the runs).
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	for _, s := range samples {
		on3, err := prepare(s.res, s.obj)
		if err != nil {
			note("%s: PrepareForCreate with every gate on, %s: %v", s.res.GroupResource, s.trial, err)
			continue
		}
		if err := s.markUnstable(on3); err != nil {
			note("%s: converting to %s, %s: %v", s.res.GroupResource, s.res.Version, s.trial, err)
		}
	}
	for _, s := range fuzzed {
		for g, paths := range s.found {
			for p, c := range paths {
				if !s.unstable[p] {
					inv.addField(gs, g, s.res.GroupResource, p, c)
				}
			}
		}
	}
	if err := findValueFootprints(inv, gs, rec, fuzzed, ones, consts, note); err != nil {
		return nil, err
	}
	if err := findRelational(inv, gs, rec, fuzzed, consts, corpusRoot, note); err != nil {
		return nil, err
	}
	inv.notes = slices.Sorted(maps.Keys(notes))
	progress("done")
	return inv, nil
}

// findServedOnlyWith lists the resources served with every gate on (and
// those without a store), then which of them each gate's being off
// unserves.
func findServedOnlyWith(inv *inventory, gs *gateSet, note func(string, ...interface{})) error {
	if err := gs.setAllOn(); err != nil {
		return err
	}
	resources, without, err := discoverResources()
	if err != nil {
		return err
	}
	inv.resources, inv.without = resources, without
	served := map[schema.GroupResource]bool{}
	for _, r := range resources {
		served[r.GroupResource] = true
	}
	for _, n := range without {
		served[n.GroupResource] = true
	}
	progress("building storage with each of %d gates off", len(gs.changeable))
	for _, g := range gs.changeable {
		if _, err := gs.setOff(g); err != nil {
			return err
		}
		rs, ws, err := discoverResources()
		if err != nil {
			note("building storage with %s off: %v", g, err)
			continue
		}
		still := map[schema.GroupResource]bool{}
		for _, r := range rs {
			still[r.GroupResource] = true
		}
		for _, n := range ws {
			still[n.GroupResource] = true
		}
		for _, gr := range sortedGRs(served) {
			if !still[gr] {
				inv.servedOnlyWith[g] = append(inv.servedOnlyWith[g], gr)
			}
		}
	}
	return nil
}

// newSamples prepares, with the gates as they are (every one on), seeds
// fuzzed objects of each resource, twice (what differs between the two
// runs, random names and clocks, is left out), and objects with one field
// set each, for the fields the fuzzers leave unset.
func newSamples(inv *inventory, rec *recordingGate, seeds int, consts *constantFinder, note func(string, ...interface{})) (fuzzed, ones []*sample) {
	for i := range inv.resources {
		r := &inv.resources[i]
		progress("fuzzing %s", r.GroupResource)
		for seed := 0; seed < seeds; seed++ {
			obj, err := fuzz(r, seed)
			if err != nil {
				note("%s: fuzzing with seed %d: %v", r.GroupResource, seed, err)
				continue
			}
			if s := newSample(rec, r, obj, fmt.Sprintf("seed %d", seed), note); s != nil {
				fuzzed = append(fuzzed, s)
			}
		}
	}
	singleObjects := singles(inv.resources, consts, note)
	inv.singles = len(singleObjects)
	progress("preparing %d objects with one field set each", len(singleObjects))
	for _, o := range singleObjects {
		if s := newSample(rec, o.res, o.obj, "only "+o.path, note); s != nil {
			s.single = o.path
			ones = append(ones, s)
		}
	}
	return fuzzed, ones
}

// findDrops runs PrepareForCreate on every sample with each gate off in
// turn and records, in the sample, the paths it drops (without
// exhaustive, only of the samples whose preparation read the gate).
func findDrops(gs *gateSet, samples []*sample, exhaustive bool, note func(string, ...interface{})) error {
	for _, g := range gs.changeable {
		off, err := gs.setOff(g)
		if err != nil {
			return err
		}
		for _, s := range samples {
			if !exhaustive && !readsAny(s.reads, off) {
				continue
			}
			res, err := prepare(s.res, s.obj)
			if err != nil {
				note("%s: PrepareForCreate with %s off, %s: %v", s.res.GroupResource, g, s.trial, err)
				continue
			}
			if equality.Semantic.DeepEqual(res, s.onInt) {
				continue
			}
			ext, err := external(s.res, res)
			if err != nil {
				note("%s: converting to %s with %s off, %s: %v", s.res.GroupResource, s.res.Version, g, s.trial, err)
				continue
			}
			if paths := DroppedPaths(s.on, ext); len(paths) > 0 {
				s.found[g] = paths
			}
		}
	}
	return nil
}

// findValueFootprints adds the footprints found beyond the fields the
// strategies drop on create: on status updates, in one-field objects, in
// kept values, refused values and stricter values (but the status updates
// and values in relationalOnly runs).
func findValueFootprints(inv *inventory, gs *gateSet, rec *recordingGate, fuzzed, ones []*sample, consts *constantFinder, note func(string, ...interface{})) error {
	samples := slices.Concat(fuzzed, ones)
	if !relationalOnly {
		progress("running status updates on %d objects with each gate off", len(samples))
		if err := findUpdateDrops(inv, gs, rec, samples, note); err != nil {
			return err
		}
	}
	addSingleDrops(inv, gs, ones)
	if relationalOnly {
		return nil
	}
	progress("trying the declared values of dropped fields")
	if err := findKeptValues(inv, gs, fuzzed, consts, note); err != nil {
		return err
	}
	progress("validating the declared values of fields")
	if err := findRefusedValues(inv, gs, rec, fuzzed, consts, note); err != nil {
		return err
	}
	progress("validating probes of free-form string fields")
	return findStricterValues(inv, gs, rec, fuzzed, consts, note)
}

// addField records that turning g off drops or changes path p of gr; a
// path dropped in one trial stays dropped.
func (inv *inventory) addField(gs *gateSet, g featuregate.Feature, gr schema.GroupResource, p string, c Change) {
	fp := inv.footprints[g]
	if fp == nil {
		fp = &footprint{turnsOff: gs.closure(g), fields: map[schema.GroupResource]map[string]Change{}}
		inv.footprints[g] = fp
	}
	if fp.fields[gr] == nil {
		fp.fields[gr] = map[string]Change{}
	}
	if fp.fields[gr][p] != Dropped {
		fp.fields[gr][p] = c
	}
}

// readsAny reports whether any of gates was read.
func readsAny(reads map[featuregate.Feature]bool, gates []featuregate.Feature) bool {
	for _, g := range gates {
		if reads[g] {
			return true
		}
	}
	return false
}

// markUnstable adds to s.unstable the paths in which other, another run of
// PrepareForCreate on s.obj with every gate on, differs from s.on.
func (s *sample) markUnstable(other runtime.Object) error {
	if equality.Semantic.DeepEqual(other, s.onInt) {
		return nil
	}
	ext, err := external(s.res, other)
	if err != nil {
		return err
	}
	for p := range DroppedPaths(s.on, ext) {
		s.unstable[p] = true
	}
	for p := range DroppedPaths(ext, s.on) {
		s.unstable[p] = true
	}
	return nil
}

// newSample prepares obj, an internal object of r, with every gate on,
// twice, and returns it as a sample with what differs between the runs
// marked unstable; nil, with a note, when preparing or converting fails.
func newSample(rec *recordingGate, r *resource, obj runtime.Object, trial string, note func(string, ...interface{})) *sample {
	var on1 runtime.Object
	var err error
	reads := rec.recordDuring(func() { on1, err = prepare(r, obj) })
	if err != nil {
		note("%s: PrepareForCreate with every gate on, %s: %v", r.GroupResource, trial, err)
		return nil
	}
	on2, err := prepare(r, obj)
	if err != nil {
		note("%s: PrepareForCreate with every gate on, %s: %v", r.GroupResource, trial, err)
		return nil
	}
	ext, err := external(r, on1)
	if err != nil {
		note("%s: converting to %s, %s: %v", r.GroupResource, r.Version, trial, err)
		return nil
	}
	s := &sample{res: r, trial: trial, obj: obj, on: ext, onInt: on1, reads: reads, unstable: map[string]bool{}, found: map[featuregate.Feature]map[string]Change{}}
	if err := s.markUnstable(on2); err != nil {
		note("%s: converting to %s, %s: %v", r.GroupResource, r.Version, trial, err)
		return nil
	}
	return s
}

// fuzz returns an internal object of r filled by upstream's API fuzzers with
// a fixed seed.
func fuzz(r *resource, seed int) (obj runtime.Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	filling := fillings[seed%len(fillings)]
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(apitesting.FuzzerFuncs, boundRecursion), rand.NewSource(int64(seed)), legacyscheme.Codecs).
		NilChance(filling.nilChance).
		NumElements(filling.minElems, filling.maxElems).
		MaxDepth(maxDepth)
	obj = r.Store.NewFunc()
	f.Fill(obj)
	return obj, nil
}

// prepare runs r's PrepareForCreate on a deep copy of obj, in the context of
// a create request by a cluster admin, and returns the copy.
func prepare(r *resource, obj runtime.Object) (out runtime.Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	out = obj.DeepCopyObject()
	ctx, err := requestContext(r, out, "create", "")
	if err != nil {
		return nil, err
	}
	r.Store.CreateStrategy.PrepareForCreate(ctx, out)
	return out, nil
}

// requestContext returns the context of a request by a cluster admin to
// create or update (verb) obj, an object of r, or its subresource.
func requestContext(r *resource, obj runtime.Object, verb, subresource string) (context.Context, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ns := ""
	if r.Store.CreateStrategy.NamespaceScoped() {
		ns = accessor.GetNamespace()
	}
	ctx = genericapirequest.WithNamespace(ctx, ns)
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "gate-inventory", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}})
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              verb,
		APIGroup:          r.Version.Group,
		APIVersion:        r.Version.Version,
		Resource:          r.GroupResource.Resource,
		Subresource:       subresource,
		Namespace:         ns,
		Name:              accessor.GetName(),
	})
	return ctx, nil
}

// external converts a copy of an internal object of r to r's version.
func external(r *resource, obj runtime.Object) (runtime.Object, error) {
	return legacyscheme.Scheme.ConvertToVersion(obj.DeepCopyObject(), r.Version)
}

// sortedGRs returns the keys of m sorted by their string form.
func sortedGRs[V any](m map[schema.GroupResource]V) []schema.GroupResource {
	return slices.SortedFunc(maps.Keys(m), func(a, b schema.GroupResource) int { return strings.Compare(a.String(), b.String()) })
}
