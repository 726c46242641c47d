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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
)

// Relational footprints: what validation with a gate off refuses only in
// relation to other values, which the one-field probes (refused.go) never
// try. Three classes, each with its own probe:
//
//   - combination (pairs.go): two fields of one object, the booleans and
//     enums of one struct and of its parent, each pair of their values;
//   - arithmetic (arithmetic.go): the quantities of a struct, its parent
//     and its children set together to fractional values that integer
//     rounding or a relation among them (a default within a range, a
//     step that divides it) treats differently;
//   - prepared (prepared.go): what PrepareForCreate writes with the gate
//     on (not the user), validated with it off.
//
// A corpus of real objects (corpus.go) is validated the same way, to catch
// what the probes do not imagine.

// Classes of relational footprints, as the inventory writes them.
const (
	classCombination = "combination"
	classArithmetic  = "arithmetic"
	classPrepared    = "prepared"
	// classCopied is prepared content a user copies from a stored pod into
	// a pod template (the spec kubectl get shows).
	classCopied = "prepared-copied"
	classCorpus = "corpus"
)

// relFinding is one relational footprint: validation with gate off
// refuses an object of res at field (indices collapsed to [*]) that it
// accepts there with every gate on.
type relFinding struct {
	class string
	// probe says what was set: "path=value" assignments, or the corpus
	// object's source.
	probe []string
	// none is why no task is needed (empty: the objects are held).
	none string
}

// relTrial is one object of a probe, prepared with every gate on (stored),
// with the fields validation's errors count at.
type relTrial struct {
	res   *resource
	class string
	probe []string
	obj   runtime.Object
	// counts reports whether an error at field (collapsed) is about the
	// probe.
	counts func(field string) bool
	// on are the error fields with every gate on; cand those with every
	// gate off but not on that count.
	on, cand map[string]bool
	reads    map[featuregate.Feature]bool
	failed   bool
}

// errorFields returns the fields of errs, indices and keys collapsed.
func errorFields(errs field.ErrorList) map[string]bool {
	out := make(map[string]bool, len(errs))
	for _, e := range errs {
		out[indices.ReplaceAllString(e.Field, "[*]")] = true
	}
	return out
}

// newFields returns the fields of got that are not in on and that counts
// accepts (nil: all).
func newFields(got, on map[string]bool, counts func(string) bool) map[string]bool {
	out := map[string]bool{}
	for f := range got {
		if !on[f] && (counts == nil || counts(f)) {
			out[f] = true
		}
	}
	return out
}

// runTrials validates trials with every gate on and with every changeable
// gate off, and, for those validation refuses at a counting field only
// with every gate off, with each gate it read off in turn. It returns the
// findings by gate, resource and field, every probe that found each.
func runTrials(gs *gateSet, rec *recordingGate, trials []*relTrial) (findings, error) {
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	parallel(len(trials), func(i int) {
		errs, err := validate(trials[i].res, trials[i].obj)
		trials[i].failed = err != nil
		trials[i].on = errorFields(errs)
	})
	if err := gs.setAllOff(); err != nil {
		return nil, err
	}
	parallel(len(trials), func(i int) {
		t := trials[i]
		if t.failed {
			return
		}
		errs, err := validate(t.res, t.obj)
		if err == nil {
			t.cand = newFields(errorFields(errs), t.on, t.counts)
		}
	})
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	var cands []*relTrial
	for _, t := range trials {
		if len(t.cand) > 0 {
			t.reads = rec.recordDuring(func() { _, _ = validate(t.res, t.obj) })
			cands = append(cands, t)
		}
	}
	progress("%d of %d trials refused at the probe only with every gate off", len(cands), len(trials))
	out := findings{}
	for _, g := range gs.changeable {
		var mine []*relTrial
		for _, t := range cands {
			if t.reads[g] {
				mine = append(mine, t)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if _, err := gs.setOff(g); err != nil {
			return nil, err
		}
		found := make([]map[string]bool, len(mine))
		parallel(len(mine), func(i int) {
			errs, err := validate(mine[i].res, mine[i].obj)
			if err == nil {
				found[i] = newFields(errorFields(errs), mine[i].on, func(f string) bool { return mine[i].cand[f] })
			}
		})
		for i, t := range mine {
			for _, f := range slices.Sorted(maps.Keys(found[i])) {
				out.add(g, t.res.GroupResource, f, &relFinding{class: t.class, probe: t.probe})
			}
		}
	}
	return out, gs.setAllOn()
}

// findings are relational footprints by gate, resource and field, each
// with every probe that found it, in the order found.
type findings map[featuregate.Feature]map[schema.GroupResource]map[string][]*relFinding

// add records f under gate, resource and field; an error at an element of
// a list or a map (matchLabelKeys[*]) is recorded at the field.
func (m findings) add(g featuregate.Feature, gr schema.GroupResource, field string, f *relFinding) {
	for strings.HasSuffix(field, "[*]") {
		field = strings.TrimSuffix(field, "[*]")
	}
	if m[g] == nil {
		m[g] = map[schema.GroupResource]map[string][]*relFinding{}
	}
	if m[g][gr] == nil {
		m[g][gr] = map[string][]*relFinding{}
	}
	m[g][gr][field] = append(m[g][gr][field], f)
}

// filter keeps the findings keep accepts, and drops what is left empty.
func (m findings) filter(keep func(g featuregate.Feature, gr schema.GroupResource, field string, f *relFinding) bool) {
	for g, byRes := range m {
		for gr, fields := range byRes {
			for field, fs := range fields {
				fs = slices.DeleteFunc(fs, func(f *relFinding) bool { return !keep(g, gr, field, f) })
				if len(fs) == 0 {
					delete(fields, field)
				} else {
					fields[field] = fs
				}
			}
			if len(fields) == 0 {
				delete(byRes, gr)
			}
		}
		if len(byRes) == 0 {
			delete(m, g)
		}
	}
}

// mergeFindings adds the first finding of each field of from to
// inv.relational, but those the inventory already holds (covered), and
// returns how many it added.
func (inv *inventory) mergeFindings(from findings) int {
	if inv.relational == nil {
		inv.relational = map[featuregate.Feature]map[schema.GroupResource]map[string]*relFinding{}
	}
	added := 0
	for _, g := range slices.Sorted(maps.Keys(from)) {
		for _, gr := range sortedGRs(from[g]) {
			for _, f := range slices.Sorted(maps.Keys(from[g][gr])) {
				if inv.covered(g, gr, f) {
					continue
				}
				if inv.relational[g] == nil {
					inv.relational[g] = map[schema.GroupResource]map[string]*relFinding{}
				}
				if inv.relational[g][gr] == nil {
					inv.relational[g][gr] = map[string]*relFinding{}
				}
				inv.relational[g][gr][f] = from[g][gr][f][0]
				added++
			}
		}
	}
	return added
}

// covered reports whether the inventory already holds a refusal of gate g
// at field of gr: a field its strategy drops, a refused value or a
// relational footprint at the field, at a field it is part of or at a
// field below it; a pod spec path recorded under one resource holding a
// pod spec counts for all of them, as the derived tasks apply it.
func (inv *inventory) covered(g featuregate.Feature, gr schema.GroupResource, f string) bool {
	var recorded []string
	if fp := inv.footprints[g]; fp != nil {
		for res, paths := range fp.fields {
			for p, c := range paths {
				if c == Dropped {
					recorded = append(recorded, inv.relativeTo(gr, res, p)...)
				}
			}
		}
	}
	for res, paths := range inv.refused[g] {
		for p := range paths {
			recorded = append(recorded, inv.relativeTo(gr, res, p)...)
		}
	}
	for res, fields := range inv.relational[g] {
		for p, fd := range fields {
			if fd.class == classPrepared || fd.class == classCopied {
				// What the apiserver wrote into pods is not what a user
				// writes into a template: each resource on its own.
				if res == gr {
					recorded = append(recorded, p)
				}
				continue
			}
			recorded = append(recorded, inv.relativeTo(gr, res, p)...)
		}
	}
	for _, p := range recorded {
		if p == f || within(f, p) || within(p, f) {
			return true
		}
	}
	return false
}

// relativeTo returns path p of resource res as the path(s) it stands for
// in gr: itself when res is gr, the same pod spec path under gr's pod spec
// when both hold one, none otherwise.
func (inv *inventory) relativeTo(gr, res schema.GroupResource, p string) []string {
	if res == gr {
		return []string{p}
	}
	from, ok1 := inv.podSpecs[res]
	to, ok2 := inv.podSpecs[gr]
	if !ok1 || !ok2 {
		return nil
	}
	if rel, ok := strings.CutPrefix(p, from+"."); ok {
		return []string{to + "." + rel}
	}
	return nil
}

// findRelational runs the relational probes and the corpus differential
// (in that order: what a probe found first is what the inventory says
// about a field) and fills inv.relational and inv.corpus.
func findRelational(inv *inventory, gs *gateSet, rec *recordingGate, fuzzed []*sample, consts *constantFinder, corpusRoot string, note func(string, ...interface{})) error {
	findPodSpecs(inv, fuzzed)
	inv.trials = map[string]int{}
	inv.corpus = &corpusReport{}
	objs, err := loadCorpus(inv, corpusRoot, inv.corpus, note)
	if err != nil {
		return err
	}
	// The probes set their values in valid objects first: the corpus's
	// objects validation accepts with every gate on, then the fuzzed ones
	// (invalid in many ways, which may keep validation from reaching the
	// rule a probe is after), the smallest first.
	valid, err := validSamples(gs, rec, objs, note)
	if err != nil {
		return err
	}
	samples := slices.Concat(bySize(valid), bySize(fuzzed))

	pairs, err := pairTrials(inv, samples, consts, note)
	if err != nil {
		return err
	}
	progress("validating %d objects with a pair of related booleans and enums set", len(pairs))
	found, err := runTrials(gs, rec, pairs)
	if err != nil {
		return err
	}
	combinations(pairs, found)
	inv.trials[classCombination] = len(pairs)
	inv.mergeFindings(found)

	sums, err := arithmeticTrials(inv, samples, consts, note)
	if err != nil {
		return err
	}
	progress("validating %d objects with a family of quantities set to fractions", len(sums))
	if found, err = runTrials(gs, rec, sums); err != nil {
		return err
	}
	inv.trials[classArithmetic] = len(sums)
	inv.mergeFindings(found)

	if err := gs.setAllOn(); err != nil {
		return err
	}
	colliding := slices.Clone(fuzzed)
	for i := range inv.resources {
		r := &inv.resources[i]
		for seed := range collideSeeds {
			obj, err := fuzzColliding(r, seed)
			if err != nil {
				note("%s: fuzzing a colliding object with seed %d: %v", r.GroupResource, seed, err)
				continue
			}
			if s := newSample(rec, r, obj, fmt.Sprintf("colliding seed %d", seed), note); s != nil {
				colliding = append(colliding, s)
			}
		}
	}
	progress("validating %d objects as PrepareForCreate made them with every gate on, with the gates off", len(colliding))
	if found, err = findPrepared(inv, gs, colliding, note); err != nil {
		return err
	}
	inv.trials[classPrepared] = len(colliding)
	inv.mergeFindings(found)

	progress("validating %d objects of the corpus", len(objs))
	if found, err = corpusDifferential(gs, rec, objs, inv.corpus, note); err != nil {
		return err
	}
	inv.trials[classCorpus] = len(objs)
	inv.addCorpus(found, inv.corpus)
	return gs.setAllOn()
}

// validSamples returns the objects of the corpus validation accepts with
// every gate on, prepared as samples.
func validSamples(gs *gateSet, rec *recordingGate, objs []*corpusObject, note func(string, ...interface{})) ([]*sample, error) {
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	var out []*sample
	for _, o := range objs {
		s := newSample(rec, o.res, o.obj, "corpus "+o.source, note)
		if s == nil {
			continue
		}
		if errs, err := validate(o.res, s.onInt); err == nil && len(errs) == 0 {
			out = append(out, s)
		}
	}
	progress("%d of %d objects of the corpus are valid with every gate on", len(out), len(objs))
	return out, nil
}
