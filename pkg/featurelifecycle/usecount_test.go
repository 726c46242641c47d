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
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestUsesSummary: the summary says which way the objects matter.
func TestUsesSummary(t *testing.T) {
	for _, c := range []struct {
		counts map[string]*useCount
		want   string
	}{
		{nil, "no stored object uses it"},
		{map[string]*useCount{"statefulsets.apps": {n: 12, names: []string{"default/web"}}}, "stored objects use it: 12 statefulsets.apps (default/web, ...)"},
		{map[string]*useCount{"endpoints": {n: 1, names: []string{"default/sloppy-ip"}, turningOn: true}}, "turning it on waits for stored objects its rules refuse: 1 endpoints (default/sloppy-ip)"},
	} {
		if got := usesSummary(c.counts); got != c.want {
			t.Errorf("usesSummary = %q, want %q", got, c.want)
		}
	}
}

// TestTurnsOnWithTasks: only a Disabled Feature whose version condition says
// it turns on at the target has its Enabling tasks' objects counted.
func TestTurnsOnWithTasks(t *testing.T) {
	feature := func(state featuresv1alpha1.FeatureState, reason string) *featuresv1alpha1.Feature {
		return &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{State: state, Conditions: []metav1.Condition{
			{Type: featuresv1alpha1.FeatureConditionUpgradeSafe, Status: metav1.ConditionTrue, Reason: reason},
		}}}
	}
	for _, c := range []struct {
		f    *featuresv1alpha1.Feature
		want bool
	}{
		{feature(featuresv1alpha1.FeatureStateDisabled, "TurnsOnAtTarget"), true},
		{feature(featuresv1alpha1.FeatureStateDisabled, "NothingBlocks"), false},
		{feature(featuresv1alpha1.FeatureStateEnabled, "TurnsOnAtTarget"), false},
	} {
		if got := turnsOnWithTasks(c.f); got != c.want {
			t.Errorf("turnsOnWithTasks(%s, %s) = %t, want %t", c.f.Status.State, c.f.Status.Conditions[0].Reason, got, c.want)
		}
	}
}
