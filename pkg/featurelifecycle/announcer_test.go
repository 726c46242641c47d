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
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/client-go/kubernetes/fake"
)

func testGate(t *testing.T) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	g := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	v := func(v string, def bool, pre featuregate.FeatureSpec) featuregate.VersionedSpecs {
		pre.Version, pre.Default = version.MustParse(v), def
		return featuregate.VersionedSpecs{pre}
	}
	err := g.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"MaxUnavailableStatefulSet": v("1.35", true, featuregate.FeatureSpec{PreRelease: featuregate.Beta}),
		"AlphaThing":                v("1.36", false, featuregate.FeatureSpec{PreRelease: featuregate.Alpha}),
		"LockedThing":               v("1.30", true, featuregate.FeatureSpec{PreRelease: featuregate.GA, LockToDefault: true}),
		"FutureThing":               v("1.40", false, featuregate.FeatureSpec{PreRelease: featuregate.Alpha}),
		"FooBar":                    v("1.36", false, featuregate.FeatureSpec{PreRelease: featuregate.Alpha}),
		"FOOBar":                    v("1.36", false, featuregate.FeatureSpec{PreRelease: featuregate.Alpha}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetFromMap(map[string]bool{"AlphaThing": true}); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGatesLeavesOutPseudoFutureAndCollidingGates(t *testing.T) {
	a := &Announcer{Gate: testGate(t)}
	want := []featuregate.Feature{"AlphaThing", "LockedThing", "MaxUnavailableStatefulSet"}
	if got := a.Gates(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Gates() = %v, want %v", got, want)
	}
}

func TestAnnounceAllIsIdempotent(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	a := &Announcer{Client: client, Gate: testGate(t), Namespace: "kube-system", Workers: 2}
	if err := a.AnnounceAll(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := client.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]featuresv1alpha1.Feature{}
	for _, f := range list.Items {
		got[f.Name] = f
	}
	if len(got) != 3 {
		t.Fatalf("expected 3 Features, got %d", len(got))
	}
	alpha := got["alpha-thing"]
	if alpha.Spec.Gate != "AlphaThing" || alpha.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled ||
		alpha.Status.State != featuresv1alpha1.FeatureStateEnabled || *alpha.Status.Default || alpha.Status.PreRelease != featuresv1alpha1.FeaturePreReleaseAlpha ||
		alpha.Status.Version != "1.36" {
		t.Errorf("alpha-thing announced as %+v / %+v", alpha.Spec, alpha.Status)
	}
	locked := got["locked-thing"]
	if locked.Status.State != featuresv1alpha1.FeatureStateEnabled || !locked.Status.LockToDefault || locked.Status.PreRelease != featuresv1alpha1.FeaturePreReleaseGA {
		t.Errorf("locked-thing announced as %+v", locked.Status)
	}
	if s := got["max-unavailable-stateful-set"].Status; s.PreRelease != featuresv1alpha1.FeaturePreReleaseBeta || !*s.Default {
		t.Errorf("max-unavailable-stateful-set announced as %+v", s)
	}

	// A second pass (a restart) lists the Features and writes nothing: one
	// request, not two per gate.
	client.ClearActions()
	if err := a.AnnounceAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, action := range client.Actions() {
		if action.GetVerb() == "update" {
			t.Errorf("second pass updated %v", action.(clienttesting.UpdateAction).GetObject().(*featuresv1alpha1.Feature).Name)
		}
	}
	if n := len(client.Actions()); n != 1 || client.Actions()[0].GetVerb() != "list" {
		t.Errorf("second pass made %d requests, want one list: %v", n, client.Actions())
	}
}

func TestAnnounceKeepsAnExistingState(t *testing.T) {
	ctx := context.Background()
	existing := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha-thing", Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "AlphaThing"},
		Status:     featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabling},
	}
	client := fake.NewClientset(existing)
	a := &Announcer{Client: client, Gate: testGate(t), Namespace: "kube-system"}
	if err := a.Announce(ctx, "AlphaThing", a.Gate.GetAll()["AlphaThing"]); err != nil {
		t.Fatal(err)
	}
	f, err := client.FeaturesV1alpha1().Features("kube-system").Get(ctx, "alpha-thing", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || f.Status.Version != "1.36" {
		t.Fatalf("state must be kept and the spec refreshed, got %+v", f.Status)
	}
}

func TestAnnounceRefusesAFeatureOfAnotherGate(t *testing.T) {
	ctx := context.Background()
	squatter := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha-thing", Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "ALPHAThing"},
	}
	a := &Announcer{Client: fake.NewClientset(squatter), Gate: testGate(t), Namespace: "kube-system"}
	if err := a.Announce(ctx, "AlphaThing", a.Gate.GetAll()["AlphaThing"]); err == nil {
		t.Fatal("expected an error for a Feature that belongs to another gate")
	}
}

func TestNameCollisions(t *testing.T) {
	got := nameCollisions([]string{"FooBar", "FOOBar", "Foobar", "FooBAR", "Other", "FooBar"})
	want := []nameCollision{{Name: "foo-bar", Gates: []string{"FOOBar", "FooBAR", "FooBar"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("nameCollisions = %#v, want %#v", got, want)
	}
	if got := nameCollisions([]string{"A", "B"}); len(got) != 0 {
		t.Fatalf("unexpected collisions: %v", got)
	}
	if msg := want[0].Error(); msg != `feature gates FOOBar, FooBAR, FooBar all map to the Feature name "foo-bar"` {
		t.Fatalf("unexpected message %q", msg)
	}
}
