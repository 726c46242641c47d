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
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricstestutil "k8s.io/component-base/metrics/testutil"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresfake "k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// else: no transition, no state.
func TestControllerAggregatesUsesOutsideKubeSystem(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	third := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "acme-gate", Namespace: "acme", Generation: 1},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "AcmeGate", DesiredState: "Disabled", Management: "CommandLine"},
	}
	h.features = featuresfake.NewClientset(third)
	a := h.controller("apiserver-a", true)
	if err := a.informers.Features().V1alpha1().Features().Informer().GetIndexer().Add(third); err != nil {
		t.Fatal(err)
	}
	r := h.report("acme-controller", "pod-1", true)
	r.Namespace, r.Spec.Gates[0].Name = "acme", "AcmeGate"
	a.uses.reports.Set(reports.NewReport(r))
	if _, err := a.sync(context.Background(), "acme/acme-gate"); err != nil {
		t.Fatal(err)
	}
	f, err := h.features.FeaturesV1alpha1().Features("acme").Get(context.Background(), "acme-gate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Status.Uses) != 1 || f.Status.Uses[0].Component != "acme-controller" || !f.Status.Uses[0].Enabled ||
		!slices.Equal(f.Status.Uses[0].Reporters, []string{"pod-1"}) || f.Status.State != "" || len(f.Status.Conditions) != 0 {
		t.Fatalf("a third party's Feature gets its uses and nothing else: %+v", f.Status)
	}
}

// TestControllerLeadsDynamicFeaturesOutsideKubeSystem: a third party's
// Dynamic Feature goes through its transitions by its spec's desired
// state, waiting for its namespace's reporters only, with no task of the
// lifecycle registry even when its gate has the name of one of Kubernetes'
// own, and no ConfigurationAgreed condition (no apiserver configures it).
func TestControllerLeadsDynamicFeaturesOutsideKubeSystem(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Named as a kube-system gate with tasks would be: none of them apply.
	third := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "acme", Generation: 1},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "TestGate", DesiredState: "Enabled", Management: "Dynamic"},
	}
	h.features = featuresfake.NewClientset(third)
	steps := 0
	h.lifecycles["TestGate"] = lifecycle.Lifecycle{OnDisable: []tasks.Task{countingTask{steps: &steps}}}
	a := h.controller("apiserver-a", true)
	indexer := a.informers.Features().V1alpha1().Features().Informer().GetIndexer()
	if err := indexer.Add(third); err != nil {
		t.Fatal(err)
	}
	report := func(enabled bool) {
		r := h.report("acme-controller", "pod-1", enabled)
		r.Namespace = "acme"
		a.uses.reports.Set(reports.NewReport(r))
	}
	sync := func() *featuresv1alpha1.Feature {
		t.Helper()
		if _, err := a.sync(context.Background(), "acme/test-gate"); err != nil {
			t.Fatal(err)
		}
		f, err := h.features.FeaturesV1alpha1().Features("acme").Get(context.Background(), "test-gate", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := indexer.Update(f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	report(true)
	f := sync()
	if f.Status.State != featuresv1alpha1.FeatureStateEnabled || len(f.Status.Tasks) != 0 {
		t.Fatalf("a new Dynamic Feature desired Enabled: %s %+v", f.Status.State, f.Status.Tasks)
	}
	if meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed) != nil {
		t.Errorf("a third party's Feature has ConfigurationAgreed: %+v", f.Status.Conditions)
	}
	if !meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged) {
		t.Errorf("Enabled as desired, not Converged: %+v", f.Status.Conditions)
	}

	// Asked Disabled: Disabling, waiting for the reporter only.
	f.Spec.DesiredState, f.Generation = "Disabled", 2
	if _, err := h.features.FeaturesV1alpha1().Features("acme").Update(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := indexer.Update(f); err != nil {
		t.Fatal(err)
	}
	f = sync()
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || len(f.Status.Tasks) != 1 || f.Status.Tasks[0].Name != tasks.WaitForUsesName {
		t.Fatalf("asked Disabled: %s %+v, want Disabling with %s only", f.Status.State, f.Status.Tasks, tasks.WaitForUsesName)
	}
	if !strings.Contains(f.Status.Tasks[0].Message, "acme-controller (pod-1)") {
		t.Errorf("the wait does not name the reporter: %q", f.Status.Tasks[0].Message)
	}
	report(false)
	h.advance(tasks.WaitForUsesSettle + time.Second)
	f = sync()
	h.advance(tasks.WaitForUsesSettle + time.Second)
	f = sync()
	if f.Status.State != featuresv1alpha1.FeatureStateDisabled || len(f.Status.Tasks) != 0 || f.Status.ObservedGeneration != 2 {
		t.Fatalf("once the reporter is off: %s %+v (observed generation %d)", f.Status.State, f.Status.Tasks, f.Status.ObservedGeneration)
	}
	if steps != 0 {
		t.Errorf("kube-system's TestGate task ran %d steps for a third party's gate of the same name", steps)
	}
	if n, err := metricstestutil.GetCounterMetricValue(transitionsTotal.WithLabelValues(ThirdPartyMetricFeature, "Disabling", "Disabled")); err != nil || n < 1 {
		t.Errorf("the transition to Disabled is not counted under %s: %v %v", ThirdPartyMetricFeature, n, err)
	}
}

// TestControllerLeadsDeclaredFeatures: a third party's declared Feature
// starts at its declared default with its declared stage in status; only
// the declared components' reports hold a transition; the declared task of
// the transition waits for its owner, keeps what the owner writes, and is
// done when the owner marks it done.
func TestControllerLeadsDeclaredFeatures(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	declared := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets", Namespace: "acme", Generation: 1},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "Widgets", Management: "Dynamic", Declaration: &featuresv1alpha1.FeatureDeclaration{
			PreRelease: featuresv1alpha1.FeaturePreReleaseBeta, Default: true, Components: []string{"acme-controller"},
			Tasks: []featuresv1alpha1.FeatureDeclaredTask{
				{Name: "migrate-widgets", Description: "Move widgets to the old format.", Transition: "Disabling", Owner: "acme-controller"},
				{Name: "warm-cache", Transition: "Enabling", Owner: "acme-controller"},
			},
		}},
	}
	h.features = featuresfake.NewClientset(declared)
	a := h.controller("apiserver-a", true)
	indexer := a.informers.Features().V1alpha1().Features().Informer().GetIndexer()
	if err := indexer.Add(declared); err != nil {
		t.Fatal(err)
	}
	report := func(component string, enabled bool) {
		r := h.report(component, "pod-1", enabled)
		r.Namespace = "acme"
		a.uses.reports.Set(reports.NewReport(r))
	}
	sync := func() *featuresv1alpha1.Feature {
		t.Helper()
		if _, err := a.sync(context.Background(), "acme/widgets"); err != nil {
			t.Fatal(err)
		}
		f, err := h.features.FeaturesV1alpha1().Features("acme").Get(context.Background(), "widgets", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := indexer.Update(f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	update := func(f *featuresv1alpha1.Feature) {
		t.Helper()
		if _, err := h.features.FeaturesV1alpha1().Features("acme").Update(context.Background(), f, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := indexer.Update(f); err != nil {
			t.Fatal(err)
		}
	}
	report("acme-controller", true)
	report("acme-dashboard", true) // not a declared component
	f := sync()
	if f.Status.State != featuresv1alpha1.FeatureStateEnabled || f.Status.PreRelease != featuresv1alpha1.FeaturePreReleaseBeta ||
		f.Status.Default == nil || !*f.Status.Default {
		t.Fatalf("a declared Feature with default true: %s, preRelease %q, default %v; want Enabled, Beta, true", f.Status.State, f.Status.PreRelease, f.Status.Default)
	}

	// Asked Disabled: wait-for-uses, then the owner's task.
	f.Spec.DesiredState, f.Generation = "Disabled", 2
	update(f)
	f = sync()
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || len(f.Status.Tasks) != 2 ||
		f.Status.Tasks[1].Name != "migrate-widgets" || f.Status.Tasks[1].Owner != "acme-controller" {
		t.Fatalf("asked Disabled: %s %+v, want Disabling with %s and migrate-widgets owned by acme-controller", f.Status.State, f.Status.Tasks, tasks.WaitForUsesName)
	}
	report("acme-controller", false) // acme-dashboard stays on: not declared, it does not hold the transition
	h.advance(tasks.WaitForUsesSettle + time.Second)
	f = sync()
	h.advance(tasks.WaitForUsesSettle + time.Second)
	f = sync()
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || len(f.Status.Tasks) != 1 || f.Status.Tasks[0].Name != "migrate-widgets" {
		t.Fatalf("once the declared component is off: %s %+v, want the owner's task left", f.Status.State, f.Status.Tasks)
	}
	if !strings.Contains(f.Status.Tasks[0].Message, "waiting for component acme-controller") {
		t.Errorf("the owner's task does not say what it waits for: %q", f.Status.Tasks[0].Message)
	}
	// The owner reports progress: the leader keeps it.
	f.Status.Tasks[0].Progress, f.Status.Tasks[0].Message = "3/10 widgets", "migrating"
	if _, err := h.features.FeaturesV1alpha1().Features("acme").UpdateStatus(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f = sync()
	if got := f.Status.Tasks[0]; got.Progress != "3/10 widgets" || got.Message != "migrating" {
		t.Errorf("the leader overwrote the owner's progress: %+v", got)
	}
	f.Status.Tasks[0].Done = true
	if _, err := h.features.FeaturesV1alpha1().Features("acme").UpdateStatus(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f = sync()
	if f.Status.State != featuresv1alpha1.FeatureStateDisabled || len(f.Status.Tasks) != 0 {
		t.Fatalf("once the owner marked its task done: %s %+v, want Disabled", f.Status.State, f.Status.Tasks)
	}

	// Back to the default (desiredState unset): Enabling with its own task.
	f.Spec.DesiredState, f.Generation = "", 3
	update(f)
	f = sync()
	if f.Status.State != featuresv1alpha1.FeatureStateEnabling || len(f.Status.Tasks) != 2 || f.Status.Tasks[1].Name != "warm-cache" {
		t.Fatalf("back to the default Enabled: %s %+v, want Enabling with warm-cache", f.Status.State, f.Status.Tasks)
	}
}

// apiserverReport returns kube-apiserver id's report of TestGate=enabled,
