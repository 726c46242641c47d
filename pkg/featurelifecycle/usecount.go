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

package featurelifecycle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

// The UpgradeSafe and DowngradeSafe conditions of a Feature that is Enabled and
// turns off at the target version (TurnsOffAtTarget) say how many stored
// objects use it, so that an operator knows what turning it off before
// the version change will wait for or clear: after each residue pass, the
// leader counts, for those Features it leads, the stored objects its
// Disabling tasks' inspectors find (what clear-fields would clear and
// wait-for-absence would wait for), with a few names.

// blocksVersionChange says whether f is Enabled and one of its version
// conditions is False because its gate turns off at the target.
func blocksVersionChange(f *featuresv1alpha1.Feature) bool {
	if f.Status.State != featuresv1alpha1.FeatureStateEnabled {
		return false
	}
	for _, cond := range []string{featuresv1alpha1.FeatureConditionUpgradeSafe, featuresv1alpha1.FeatureConditionDowngradeSafe} {
		if c := meta.FindStatusCondition(f.Status.Conditions, cond); c != nil && c.Status == metav1.ConditionFalse && c.Reason == "TurnsOffAtTarget" {
			return true
		}
	}
	return false
}

// turnsOnWithTasks says whether f is Disabled and one of its version
// conditions says its gate turns on at the target (TurnsOnAtTarget): its
// Enabling tasks (a gate stricter when on, StrictIPCIDRValidation) will
// wait for the stored objects they find.
func turnsOnWithTasks(f *featuresv1alpha1.Feature) bool {
	if f.Status.State != featuresv1alpha1.FeatureStateDisabled {
		return false
	}
	for _, cond := range []string{featuresv1alpha1.FeatureConditionUpgradeSafe, featuresv1alpha1.FeatureConditionDowngradeSafe} {
		if c := meta.FindStatusCondition(f.Status.Conditions, cond); c != nil && c.Reason == "TurnsOnAtTarget" {
			return true
		}
	}
	return false
}

// useTargets returns, by resource, the inspectors of the Disabling tasks
// of the Features this apiserver leads that block a version change (opt-in
// tasks included: they say what the admin may clear), and of the Enabling
// tasks of those that turn on at a version next to theirs.
func (s *residueScanner) useTargets() map[schema.GroupResource][]residueTarget {
	out := s.inspectorsOf(blocksVersionChange, featuresv1alpha1.FeatureStateDisabling, false)
	for gr, ts := range s.inspectorsOf(turnsOnWithTasks, featuresv1alpha1.FeatureStateEnabling, false) {
		out[gr] = append(out[gr], ts...)
	}
	return out
}

// useCount is what one pass found for one Feature in one resource.
type useCount struct {
	n     int
	names []string
	// turningOn: the objects are what turning the feature on waits for.
	turningOn bool
}

// countUses counts the stored objects that use each Feature of
// useTargets, records the summary in s.uses, and requeues the Features
// whose summary changed. It returns how many objects it read.
func (s *residueScanner) countUses(ctx context.Context) (int, error) {
	targets := s.useTargets()
	counts := map[string]map[string]*useCount{} // feature -> resource -> count
	for _, ts := range targets {
		for _, t := range ts {
			if counts[t.feature] == nil {
				counts[t.feature] = map[string]*useCount{}
			}
		}
	}
	read := 0
	err := s.eachServed(targets, func(gr schema.GroupResource, store migrator.Store) error {
		n, err := s.walk(ctx, store, gr, func(obj runtime.Object) {
			seen := map[string]bool{}
			for _, t := range targets[gr] {
				if seen[t.feature] || !t.in.Holds(obj) {
					continue
				}
				seen[t.feature] = true
				c := counts[t.feature][gr.String()]
				if c == nil {
					c = &useCount{turningOn: t.turningOn}
					counts[t.feature][gr.String()] = c
				}
				c.n++
				if len(c.names) < residueSample {
					if name, ok := objectName(obj); ok {
						c.names = append(c.names, name)
					}
				}
			}
		})
		read += n
		return err
	})
	if err != nil {
		return read, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for feature := range s.uses {
		if _, ok := counts[feature]; !ok {
			delete(s.uses, feature)
		}
	}
	for feature, byResource := range counts {
		summary := usesSummary(byResource)
		if old, ok := s.uses[feature]; ok && old == summary {
			continue
		}
		s.uses[feature] = summary
		s.enqueue(KubeNamespace + "/" + feature)
	}
	return read, nil
}

// usesSummary says how many stored objects of each resource use a
// feature, with up to residueSample names each.
func usesSummary(byResource map[string]*useCount) string {
	if len(byResource) == 0 {
		return "no stored object uses it"
	}
	var parts []string
	turningOn := false
	for _, gr := range slices.Sorted(maps.Keys(byResource)) {
		c := byResource[gr]
		turningOn = turningOn || c.turningOn
		part := fmt.Sprintf("%d %s (%s", c.n, gr, strings.Join(c.names, ", "))
		if c.n > len(c.names) {
			part += ", ..."
		}
		parts = append(parts, part+")")
	}
	if turningOn {
		return "turning it on waits for stored objects its rules refuse: " + strings.Join(parts, "; ")
	}
	return "stored objects use it: " + strings.Join(parts, "; ")
}

// usesOf returns the last count of the stored objects that use feature,
// or "" when none was made.
func (s *residueScanner) usesOf(feature string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uses[feature]
}
