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
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
)

func TestTargetOf(t *testing.T) {
	const (
		on  = featuresv1alpha1.FeatureDesiredStateEnabled
		off = featuresv1alpha1.FeatureDesiredStateDisabled
	)
	feature := func(m featuresv1alpha1.FeatureManagement, desired featuresv1alpha1.FeatureDesiredState, rollout bool) *featuresv1alpha1.Feature {
		f := &featuresv1alpha1.Feature{Spec: featuresv1alpha1.FeatureSpec{Gate: "PodDeletionCost", Management: m, DesiredState: desired}}
		if rollout {
			f.Spec.Rollout = &featuresv1alpha1.FeatureRollout{}
		}
		return f
	}
	rolling := func(to featuresv1alpha1.FeatureDesiredState, c featuresv1alpha1.FeatureCohort) *featuresv1alpha1.FeatureStatus {
		from := off
		if to == off {
			from = on
		}
		return &featuresv1alpha1.FeatureStatus{Rollout: &featuresv1alpha1.FeatureRolloutStatus{
			Phase: featuresv1alpha1.FeatureRolloutProgressing, Scope: featuresv1alpha1.FeatureRolloutScopeNodes, From: from, To: to, Cohort: c}}
	}
	target := func(m featuresv1alpha1.FeatureManagement, desired featuresv1alpha1.FeatureDesiredState, applies bool) *featuresv1alpha1.FeatureTargetSpec {
		return &featuresv1alpha1.FeatureTargetSpec{Gate: "PodDeletionCost", Management: m, DesiredState: desired, AppliesWhileRunning: applies}
	}
	dynamic, central := featuresv1alpha1.FeatureManagementDynamic, featuresv1alpha1.FeatureManagementCentral
	held := target(dynamic, off, true)
	cohort := featuresv1alpha1.FeatureCohort{Seed: "uid", Below: "100", Selectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"canary": "true"}}}}
	inCohort := target(dynamic, off, true)
	inCohort.Rollout = &featuresv1alpha1.FeatureTargetRollout{Scope: featuresv1alpha1.FeatureRolloutScopeNodes, DesiredState: on, Cohort: cohort}

	for _, tc := range []struct {
		name    string
		feature *featuresv1alpha1.Feature
		status  *featuresv1alpha1.FeatureStatus
		current *featuresv1alpha1.FeatureTargetSpec
		want    *featuresv1alpha1.FeatureTargetSpec
	}{
		{"command line: no target", feature(featuresv1alpha1.FeatureManagementCommandLine, on, false), &featuresv1alpha1.FeatureStatus{}, held, nil},
		{"no desired state: no target", feature(central, "", false), &featuresv1alpha1.FeatureStatus{}, held, nil},
		{"central, read at start", feature(central, on, false), &featuresv1alpha1.FeatureStatus{}, nil, target(central, on, false)},
		{"central, applies while running", feature(central, off, false), &featuresv1alpha1.FeatureStatus{AppliesWhileRunning: true}, nil, target(central, off, true)},
		{"dynamic", feature(dynamic, on, false), &featuresv1alpha1.FeatureStatus{}, nil, target(dynamic, on, true)},
		{"rollout not published yet: held", feature(dynamic, on, true), &featuresv1alpha1.FeatureStatus{}, held, held},
		{"rollout of the former value: held", feature(dynamic, on, true), rolling(off, cohort), held, held},
		{"rollout not published, no target yet: none", feature(dynamic, on, true), &featuresv1alpha1.FeatureStatus{}, nil, nil},
		{"rollout step: the cohort takes the new value", feature(dynamic, on, true), rolling(on, cohort), held, inCohort},
		{"rollout with nobody in the cohort", feature(dynamic, on, true), rolling(on, featuresv1alpha1.FeatureCohort{Seed: "uid", Below: "0"}), nil, target(dynamic, off, true)},
		{"rollout complete", feature(dynamic, on, true), rolling(on, featuresv1alpha1.FeatureCohort{Seed: "uid", All: true}), inCohort, target(dynamic, on, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := targetOf(tc.feature, tc.status, tc.current)
			if !apiequality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("target %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPublish: the leader creates a Feature's target, writes nothing while
// it says the same, updates it on a change and deletes it when no component
// follows the Feature any more.
func TestPublish(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	x := &targets{client: client, lister: featureslisters.NewFeatureTargetLister(indexer)}
	f := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-deletion-cost", Namespace: "kube-system", UID: "uid-1"},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "PodDeletionCost", Management: featuresv1alpha1.FeatureManagementDynamic,
			DesiredState: featuresv1alpha1.FeatureDesiredStateEnabled},
	}
	targets := client.FeaturesV1alpha1().FeatureTargets("kube-system")
	publish := func() *featuresv1alpha1.FeatureTarget {
		t.Helper()
		if err := x.publish(ctx, f, &f.Status); err != nil {
			t.Fatal(err)
		}
		got, err := targets.Get(ctx, f.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := indexer.Add(got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	writes := func() int {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() != "get" {
				n++
			}
		}
		return n
	}

	got := publish()
	if got == nil || got.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != "uid-1" {
		t.Fatalf("created target %+v", got)
	}
	before := writes()
	publish()
	if writes() != before {
		t.Errorf("an unchanged target was written: %v", client.Actions()[before:])
	}
	f.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateDisabled
	if got := publish(); got == nil || got.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateDisabled {
		t.Fatalf("updated target %+v", got)
	}
	f.Spec.Management = featuresv1alpha1.FeatureManagementCommandLine
	if got := publish(); got != nil {
		t.Fatalf("the target of a CommandLine Feature was kept: %+v", got)
	}
}

// TestForget checks that the target of a Feature that is gone is deleted
// when the Feature controlled it, and that a target no Feature controls
// (an administrator's, say) is left alone.
func TestForget(t *testing.T) {
	ctx := context.Background()
	owned := &featuresv1alpha1.FeatureTarget{ObjectMeta: metav1.ObjectMeta{Name: "owned", Namespace: "kube-system", UID: "t-1",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Name: "owned", UID: "f-1"}},
			featuresv1alpha1.SchemeGroupVersion.WithKind("Feature"))}}}
	unowned := &featuresv1alpha1.FeatureTarget{ObjectMeta: metav1.ObjectMeta{Name: "unowned", Namespace: "kube-system", UID: "t-2"}}
	client := fake.NewClientset(owned, unowned)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, o := range []*featuresv1alpha1.FeatureTarget{owned, unowned} {
		if err := indexer.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	x := &targets{client: client, lister: featureslisters.NewFeatureTargetLister(indexer)}
	for _, name := range []string{"owned", "unowned", "absent"} {
		if err := x.forget(ctx, "kube-system", name); err != nil {
			t.Fatalf("forget(%s): %v", name, err)
		}
	}
	api := client.FeaturesV1alpha1().FeatureTargets("kube-system")
	if _, err := api.Get(ctx, "owned", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the target a gone Feature controlled is still there: %v", err)
	}
	if _, err := api.Get(ctx, "unowned", metav1.GetOptions{}); err != nil {
		t.Errorf("a target no Feature controls was deleted: %v", err)
	}
}
