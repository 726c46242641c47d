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

// Package versioncheck tells whether it is safe to move the cluster's
// kube-apiservers to another emulation version (an upgrade finished by
// raising it, a rollback by lowering it), from the Features the cluster
// serves and what changes between versions (the generated
// inventory.VersionChanges): the blockers, each with what to do, and what
// the move will change. kubectl-features check prints it.
package versioncheck

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"

	"k8s.io/kubernetes/pkg/features/inventory"
)

// Finding is one thing the move is blocked by or will do.
type Finding struct {
	// Gate is the gate concerned; empty for a resource.
	Gate string
	// Resource is the group-resource concerned, for a storage version.
	Resource string
	// Reason is a CamelCase word, as conditions have.
	Reason string
	// Message says what it is and what to do.
	Message string
}

// Report is the answer for one move.
type Report struct {
	// From is the cluster's emulation version now (the lowest among the
	// Features' status.version), To the target.
	From, To string
	// Blockers must be dealt with before the move.
	Blockers []Finding
	// Changes are what the move will do, for information.
	Changes []Finding
}

// Safe reports whether nothing blocks the move.
func (r *Report) Safe() bool { return len(r.Blockers) == 0 }

// Check computes the report of moving to the emulation version to, given
// the Features of the cluster (kube-system) and the version changes of the
// binary.
//
// targetGates are the --feature-gates the kube-apiservers will run with at
// to, as far as the caller knows (nil: none given); a gate set on the
// command line now (its Feature's state is not its default) is assumed to
// stay set.
func Check(features []featuresv1alpha1.Feature, vc *inventory.VersionChanges, to string, targetGates map[string]bool) (*Report, error) {
	// One check needs the stages at two versions only.
	x := newIndex(vc)
	from := x.from(features)
	for _, v := range []string{from, to} {
		if _, ok := x.order[v]; ok {
			x.stages[v] = x.stageAt(v)
		}
	}
	return x.Check(features, to, targetGates)
}

// Index is the version changes of a binary prepared for checks: the
// position of every version it emulates, and every gate's stage at each of
// them. Build it once (NewIndex) and check many Features: a check of one
// Feature (CheckFeature) then costs what that Feature's gate costs,
// whatever the number of gates. It is read-only and safe for concurrent
// use.
type Index struct {
	vc *inventory.VersionChanges
	// order is the position of each version in vc.Versions.
	order map[string]int
	// stages holds, by version of vc.Versions, the default and stage of
	// every gate the steps mention that exists there (stageAt).
	stages map[string]map[string]*inventory.GateStage
	// mentioned are the gates some step changes; registered says how
	// each is registered in the lifecycle registry.
	mentioned  map[string]bool
	registered map[string]string
}

// NewIndex prepares vc for checks.
func NewIndex(vc *inventory.VersionChanges) *Index {
	x := newIndex(vc)
	for _, v := range vc.Versions {
		x.stages[v] = x.stageAt(v)
	}
	return x
}

// newIndex returns the index of vc without the stages.
func newIndex(vc *inventory.VersionChanges) *Index {
	x := &Index{vc: vc, order: map[string]int{}, stages: map[string]map[string]*inventory.GateStage{},
		mentioned: map[string]bool{}, registered: map[string]string{}}
	for i, v := range vc.Versions {
		x.order[v] = i
	}
	for _, st := range vc.Steps {
		for _, g := range st.Gates {
			x.mentioned[g.Gate] = true
			x.registered[g.Gate] = g.Lifecycle
		}
	}
	return x
}

// from returns the cluster's emulation version: the lowest of the
// Features' status.version ("" when none has one).
func (x *Index) from(features []featuresv1alpha1.Feature) string {
	from := ""
	for _, f := range features {
		if v := f.Status.Version; v != "" && (from == "" || x.less(v, from)) {
			from = v
		}
	}
	return from
}

// Check is Check with x's version changes.
func (x *Index) Check(features []featuresv1alpha1.Feature, to string, targetGates map[string]bool) (*Report, error) {
	from := x.from(features)
	if err := x.validate(from, to); err != nil {
		return nil, err
	}
	r := &Report{From: from, To: to}
	byGate := map[string]*featuresv1alpha1.Feature{}
	for i := range features {
		byGate[features[i].Spec.Gate] = &features[i]
	}
	for _, f := range sortedFeatures(features) {
		r.Blockers = append(r.Blockers, unsettled(&f)...)
	}
	start, end := x.stages[from], x.stages[to]
	for _, gate := range sortedKeys(start, end, targetGates) {
		if f := byGate[gate]; f != nil {
			x.addGate(r, f, targetGates)
		}
	}
	r.Changes = append(r.Changes, x.storageChanges(from, to, nil)...)
	return r, nil
}

// CheckFeature computes the report of moving f alone from its
// status.version to the emulation version to, with no target
// --feature-gates: the findings of its gate only (its own storage version
// changes among them), at the cost of that gate.
func (x *Index) CheckFeature(f *featuresv1alpha1.Feature, to string) (*Report, error) {
	from := f.Status.Version
	if err := x.validate(from, to); err != nil {
		return nil, err
	}
	r := &Report{From: from, To: to, Blockers: unsettled(f)}
	gate := f.Spec.Gate
	_, inStart := x.stages[from][gate]
	_, inEnd := x.stages[to][gate]
	if inStart || inEnd {
		x.addGate(r, f, nil)
	}
	r.Changes = append(r.Changes, x.storageChanges(from, to, &gate)...)
	return r, nil
}

// validate returns an error when the move from from to to cannot be
// checked.
func (x *Index) validate(from, to string) error {
	vc := x.vc
	if _, ok := x.order[to]; !ok {
		return fmt.Errorf("--to-version %s: kube-apiserver %s can emulate %s", to, vc.BinaryVersion, strings.Join(vc.Versions, ", "))
	}
	if from == "" {
		return fmt.Errorf("no Feature reports its version yet: is the feature lifecycle running (FeatureLifecycle=true)?")
	}
	if _, ok := x.order[from]; !ok {
		return fmt.Errorf("the cluster is at emulation version %s, which kube-apiserver %s does not emulate (%s)", from, vc.BinaryVersion, strings.Join(vc.Versions, ", "))
	}
	return nil
}

// unsettled returns the blockers of a Feature that is not settled: in a
// transition, with version-keyed tasks left, or with apiservers that
// disagree on it.
func unsettled(f *featuresv1alpha1.Feature) []Finding {
	var out []Finding
	switch f.Status.State {
	case featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling:
		out = append(out, Finding{Gate: f.Spec.Gate, Reason: "InTransition",
			Message: fmt.Sprintf("%s is %s (%s): wait until it is %s", f.Spec.Gate, f.Status.State, activeTask(f), settled(f.Status.State))})
	case featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled:
		if len(f.Status.Tasks) > 0 {
			// Version-keyed tasks of the last move of the emulation
			// version (a storage-version rewrite among them).
			out = append(out, Finding{Gate: f.Spec.Gate, Reason: "VersionTaskPending",
				Message: fmt.Sprintf("%s has %d version-keyed task(s) of the move to %s left (%s): wait until they are done", f.Spec.Gate, len(f.Status.Tasks), f.Status.Version, activeTask(f))})
		}
	}
	if c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed); c != nil && c.Status == metav1.ConditionFalse {
		out = append(out, Finding{Gate: f.Spec.Gate, Reason: "ApiserversDisagree",
			Message: fmt.Sprintf("the kube-apiservers disagree on %s (%s): finish the rolling change first", f.Spec.Gate, c.Message)})
	}
	return out
}

// addGate adds to r what moving from r.From to r.To does to f's gate,
// whose default or existence may differ between the two, or which the
// target's --feature-gates set.
func (x *Index) addGate(r *Report, f *featuresv1alpha1.Feature, targetGates map[string]bool) {
	gate, from, to := f.Spec.Gate, r.From, r.To
	a, inA := x.stages[from][gate]
	b, inB := x.stages[to][gate]
	if !x.mentioned[gate] {
		// The same at every version: it exists wherever its Feature does.
		inA, inB = true, true
	}
	flag, flagged := targetGates[gate]
	if inA && inB && (a == nil || *a == *b) && !flagged {
		return
	}
	cur := f.Status.State == featuresv1alpha1.FeatureStateEnabled
	// The value at the target: what its --feature-gates say, else the
	// value set on the command line now (a Feature whose state is not its
	// default) if the gate can still be set, else the default.
	tgt, why := false, ""
	switch {
	case !inB:
		why = "does not exist at " + to
	case flagged:
		tgt, why = flag, fmt.Sprintf("is set to %t by the target's --feature-gates", flag)
	case a != nil && cur != a.Default && b.PreRelease != "GA":
		tgt, why = cur, "is set on the command line now, and the same setting is assumed at "+to
	case b != nil:
		tgt, why = b.Default, fmt.Sprintf("is %s and %s by default at %s", b.PreRelease, onOff(b.Default), to)
	default:
		tgt, why = cur, "does not change"
	}
	switch {
	case flagged && !inB:
		r.Blockers = append(r.Blockers, Finding{Gate: gate, Reason: "GateMissingAtTarget",
			Message: fmt.Sprintf("--feature-gates sets %s, which does not exist at %s: kube-apiserver %s would refuse to start; remove it", gate, to, to)})
	case cur && !tgt && !inB:
		r.Blockers = append(r.Blockers, Finding{Gate: gate, Reason: "GateMissingAtTarget",
			Message: fmt.Sprintf("%s is on and does not exist at %s: turn it off (--feature-gates=%s=false) and wait for its Feature to be Disabled before moving to %s", gate, to, gate, to)})
	case cur && !tgt:
		r.Blockers = append(r.Blockers, x.turnsOff(f, b, why, to))
	case !cur && tgt:
		r.Changes = append(r.Changes, Finding{Gate: gate, Reason: "TurnsOnAtTarget",
			Message: fmt.Sprintf("%s is off and %s: it turns on (Enabling, then Enabled)", gate, why)})
	case a != nil && b != nil && a.PreRelease != b.PreRelease:
		r.Changes = append(r.Changes, Finding{Gate: gate, Reason: "StageChanges",
			Message: fmt.Sprintf("%s goes from %s to %s", gate, a.PreRelease, b.PreRelease)})
	}
}

// turnsOff is the blocker of f's gate, on now, that is off at to because
// it why; b is its stage there.
func (x *Index) turnsOff(f *featuresv1alpha1.Feature, b *inventory.GateStage, why, to string) Finding {
	gate := f.Spec.Gate
	keep := fmt.Sprintf("or keep it on at %s with --feature-gates=%s=true (and pass it to this check)", to, gate)
	if b != nil && b.PreRelease == "Alpha" {
		keep = fmt.Sprintf("or keep it on at %s with --feature-gates=%s=true, where it is alpha (and pass it to this check)", to, gate)
	}
	if f.Status.LockToDefault {
		return Finding{Gate: gate, Reason: "TurnsOffAtTarget",
			Message: fmt.Sprintf("%s is locked on now and %s: keep it on at %s with --feature-gates=%s=true (and pass it to this check); turning it off there leaves what it stored unserved", gate, why, to, gate)}
	}
	tasks := "its tasks clear or wait for what it left in storage"
	if x.registered[gate] == "none" {
		tasks = "it only waits until no component uses it"
	}
	return Finding{Gate: gate, Reason: "TurnsOffAtTarget",
		Message: fmt.Sprintf("%s is on and %s: turn it off and wait for its Feature to be Disabled (%s) before moving to %s, %s%s", gate, why, tasks, to, keep, storedUses(f))}
}

// storageChanges returns the storage versions that change moving from
// from to to: of gate's resources only, when gate is not nil.
func (x *Index) storageChanges(from, to string, gate *string) []Finding {
	var out []Finding
	for _, s := range x.between(from, to) {
		for _, c := range s.StorageVersions {
			if gate != nil && c.Gate != *gate {
				continue
			}
			old, now, at := c.From, c.To, s.To
			task := "migrate-storage-to-" + strings.ReplaceAll(s.To, ".", "-")
			if x.less(to, from) {
				old, now, at = now, old, s.From
				task = "migrate-storage-below-" + strings.ReplaceAll(s.To, ".", "-")
			}
			out = append(out, Finding{Gate: c.Gate, Resource: c.Resource, Reason: "StorageVersionChanges",
				Message: fmt.Sprintf("at %s, %s is stored at %s instead of %s; once every kube-apiserver emulates %s, task %s of Feature %s rewrites the objects stored before at %s",
					at, c.Resource, now, old, at, task, featuresv1alpha1.FeatureName(c.Gate), now)})
		}
	}
	return out
}

// stageAt returns every gate's default and stage at version v, walking the
// steps from the first version; a gate absent is not in the map.
func (x *Index) stageAt(v string) map[string]*inventory.GateStage {
	vc := x.vc
	out := map[string]*inventory.GateStage{}
	// Gates the steps never mention keep one stage at every version: they
	// are not in the map and never differ.
	for _, s := range vc.Steps {
		for _, g := range s.Gates {
			if _, seen := out[g.Gate]; !seen {
				out[g.Gate] = g.From
			}
		}
	}
	for _, s := range vc.Steps {
		if x.less(v, s.To) {
			break
		}
		for _, g := range s.Gates {
			out[g.Gate] = g.To
		}
	}
	for g, st := range out {
		if st == nil {
			delete(out, g)
		}
	}
	return out
}

// between returns the steps crossed moving from a to b, either way.
func (x *Index) between(a, b string) []inventory.VersionStep {
	lo, hi := a, b
	if x.less(b, a) {
		lo, hi = b, a
	}
	var out []inventory.VersionStep
	for _, s := range x.vc.Steps {
		if !x.less(s.From, lo) && !x.less(hi, s.To) {
			out = append(out, s)
		}
	}
	return out
}

// sortedKeys returns the gates of a, b and c, sorted.
func sortedKeys(a, b map[string]*inventory.GateStage, c map[string]bool) []string {
	var out []string
	for g := range a {
		out = append(out, g)
	}
	for g := range b {
		out = append(out, g)
	}
	for g := range c {
		out = append(out, g)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// storedUses returns what the leader of f last counted of the stored
// objects that use it (the end of a TurnsOffAtTarget message of its
// UpgradeSafe or DowngradeSafe condition, pkg/featurelifecycle/usecount.go),
// as "; ..." to append, or "".
func storedUses(f *featuresv1alpha1.Feature) string {
	for _, cond := range []string{featuresv1alpha1.FeatureConditionDowngradeSafe, featuresv1alpha1.FeatureConditionUpgradeSafe} {
		c := meta.FindStatusCondition(f.Status.Conditions, cond)
		if c == nil || c.Reason != "TurnsOffAtTarget" {
			continue
		}
		for _, marker := range []string{"; stored objects use it: ", "; no stored object uses it"} {
			if i := strings.LastIndex(c.Message, marker); i >= 0 {
				return c.Message[i:]
			}
		}
	}
	return ""
}

func sortedFeatures(fs []featuresv1alpha1.Feature) []featuresv1alpha1.Feature {
	out := slices.Clone(fs)
	slices.SortFunc(out, func(a, b featuresv1alpha1.Feature) int { return cmp.Compare(a.Spec.Gate, b.Spec.Gate) })
	return out
}

func activeTask(f *featuresv1alpha1.Feature) string {
	if len(f.Status.Tasks) == 0 {
		return "no task left"
	}
	t := f.Status.Tasks[0]
	if t.Message != "" {
		return "task " + t.Name + ": " + t.Message
	}
	return "task " + t.Name
}

func settled(s featuresv1alpha1.FeatureState) featuresv1alpha1.FeatureState {
	if s == featuresv1alpha1.FeatureStateEnabling {
		return featuresv1alpha1.FeatureStateEnabled
	}
	return featuresv1alpha1.FeatureStateDisabled
}

// less compares major.minor versions, by their position among the
// versions emulated when both are, else by parsing them; one that does not
// parse sorts first.
func (x *Index) less(a, b string) bool {
	if i, ok := x.order[a]; ok {
		if j, ok := x.order[b]; ok {
			return i < j
		}
	}
	return less(a, b)
}

// less compares major.minor versions; one that does not parse sorts
// first.
func less(a, b string) bool {
	vb, err := version.Parse(b)
	if err != nil {
		return false
	}
	va, err := version.Parse(a)
	return err != nil || va.LessThan(vb)
}
