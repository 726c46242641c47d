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
	"strings"

	"github.com/go-logr/logr"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

// Status fields: upstream drops a gated status field in the status
// strategy's PrepareForUpdate (or, for a resource without a status
// subresource, its own), and only when the old object does not hold it
// already. PrepareForCreate resets status, so the create trials never see
// these. findUpdateDrops runs, for every sample of a resource whose type
// has a status, the update of an object with its status zeroed (old) to the
// fuzzed object (new) through upstream's own update path, with every gate
// on, then with each gate off, and records the status fields dropped.

// trialName is the name and namespace of both objects of a trial.
const trialName = "trial"

// hasStatus reports whether obj, an internal API object, has a status
// field.
func hasStatus(obj runtime.Object) bool {
	_, ok := standalone.StatusField(obj)
	return ok
}

// withoutStatus returns a copy of obj with its status zeroed.
func withoutStatus(obj runtime.Object) runtime.Object {
	out := obj.DeepCopyObject()
	f, _ := standalone.StatusField(out)
	f.SetZero()
	return out
}

// updateStatus runs the update of old to a copy of obj through r's status
// writer (standalone.StatusWriter) by a cluster admin and returns the copy as the
// strategy prepared it (standalone.TryUpdate). Validation may refuse
// the object afterwards: the copy is prepared all the same.
func updateStatus(r *resource, old, obj runtime.Object) (out runtime.Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	// Both objects get one valid name and namespace (where the resource
	// has one): fuzzed ones stop an update before the strategy.
	old, obj = old.DeepCopyObject(), obj.DeepCopyObject()
	for _, o := range []runtime.Object{old, obj} {
		a, err := meta.Accessor(o)
		if err != nil {
			return nil, err
		}
		a.SetName(trialName)
		a.SetNamespace("")
		if r.Store.CreateStrategy.NamespaceScoped() {
			a.SetNamespace(trialName)
		}
	}
	updater, subresource := standalone.StatusWriter(*r)
	ctx, err := requestContext(r, obj, "update", subresource)
	if err != nil {
		return nil, err
	}
	// Validation logs what declarative and hand-written validation
	// disagree on; fuzzed objects are invalid in many ways.
	out, _, err = standalone.TryUpdate(klog.NewContext(ctx, logr.Discard()), updater, old, obj)
	return out, err
}

// findUpdateDrops adds to inv's footprints the status fields that a status
// update (standalone.StatusWriter) drops with a gate off and keeps with every gate
// on, from an old object without status to each sample's fuzzed object.
// Fields that differ between two runs with every gate on are left out.
func findUpdateDrops(inv *inventory, gs *gateSet, rec *recordingGate, samples []*sample, note func(string, ...interface{})) error {
	type trial struct {
		s        *sample
		old      runtime.Object
		on       runtime.Object // external
		onInt    runtime.Object
		reads    map[featuregate.Feature]bool
		unstable map[string]bool
	}
	if err := gs.setAllOn(); err != nil {
		return err
	}
	var trials []*trial
	for _, s := range samples {
		if !hasStatus(s.obj) || s.single != "" && !underStatus(s.single) {
			continue
		}
		t := &trial{s: s, old: withoutStatus(s.obj), unstable: map[string]bool{}}
		var err error
		t.reads = rec.recordDuring(func() { t.onInt, err = updateStatus(s.res, t.old, s.obj) })
		if err != nil {
			note("%s: status update with every gate on, %s: %v", s.res.GroupResource, s.trial, err)
			continue
		}
		if t.on, err = external(s.res, t.onInt); err != nil {
			note("%s: converting to %s, %s: %v", s.res.GroupResource, s.res.Version, s.trial, err)
			continue
		}
		again, err := updateStatus(s.res, t.old, s.obj)
		if err != nil {
			note("%s: status update with every gate on, %s: %v", s.res.GroupResource, s.trial, err)
			continue
		}
		if !equality.Semantic.DeepEqual(again, t.onInt) {
			ext, err := external(s.res, again)
			if err != nil {
				continue
			}
			for p := range DroppedPaths(t.on, ext) {
				t.unstable[p] = true
			}
			for p := range DroppedPaths(ext, t.on) {
				t.unstable[p] = true
			}
		}
		trials = append(trials, t)
	}
	for _, g := range gs.changeable {
		off, err := gs.setOff(g)
		if err != nil {
			return err
		}
		for _, t := range trials {
			if !readsAny(t.reads, off) {
				continue
			}
			res, err := updateStatus(t.s.res, t.old, t.s.obj)
			if err != nil {
				note("%s: status update with %s off, %s: %v", t.s.res.GroupResource, g, t.s.trial, err)
				continue
			}
			if equality.Semantic.DeepEqual(res, t.onInt) {
				continue
			}
			ext, err := external(t.s.res, res)
			if err != nil {
				note("%s: converting to %s with %s off, %s: %v", t.s.res.GroupResource, t.s.res.Version, g, t.s.trial, err)
				continue
			}
			for p, c := range DroppedPaths(t.on, ext) {
				if t.unstable[p] || !strings.HasPrefix(p, "status.") {
					continue
				}
				if t.s.single != "" { // addSingleDrops decides
					if t.s.found[g] == nil {
						t.s.found[g] = map[string]Change{}
					}
					t.s.found[g][p] = c
					continue
				}
				inv.addField(gs, g, t.s.res.GroupResource, p, c)
			}
		}
	}
	return gs.setAllOn()
}
