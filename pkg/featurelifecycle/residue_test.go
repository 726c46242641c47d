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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresfake "k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// podStore is a migrator.Store of pods held in memory, listed in one page.
type podStore struct{ pods []api.Pod }

func (s *podStore) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	return &api.PodList{Items: append([]api.Pod(nil), s.pods...)}, nil
}

func (s *podStore) Update(context.Context, string, rest.UpdatedObjectInfo, rest.ValidateObjectFunc, rest.ValidateObjectUpdateFunc, bool, *metav1.UpdateOptions) (runtime.Object, bool, error) {
	panic("the residue scan and WaitForAbsence never write")
}

func (s *podStore) New() runtime.Object { return &api.Pod{} }

type podStores struct{ store *podStore }

func (p podStores) Store(gr schema.GroupResource) (migrator.Store, error) {
	return p.store, nil
}

// TestControllerReentersDisablingOnResidue: a Feature that is Disabled while a
// stored pod still uses what its gate guards (restored from a backup) is
// found by the residue scan, goes back to Disabling with StoredDataRemains
// naming the pod, waits for it to be deleted, and is Disabled again with the
// condition False. Opt-in tasks nobody opted in to are not scanned.
func TestControllerReentersDisablingOnResidue(t *testing.T) {
	t.Parallel()
	store := &podStore{pods: []api.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "restored"}, Spec: api.PodSpec{HostnameOverride: ptr.To("h")}},
	}}
	h := newHarness(t)
	h.env = tasks.Env{Stores: podStores{store}}
	uses := func(p *api.Pod) bool { return p.Spec.HostnameOverride != nil }
	scannedOptIn := false
	h.lifecycles["TestGate"] = lifecycle.Lifecycle{OnDisable: []tasks.Task{
		tasks.OptIn(tasks.WaitForAbsence("opt-in-check", "Never scanned unless opted in.", api.Resource("pods"), "anything",
			func(*api.Pod) bool { scannedOptIn = true; return false })),
		tasks.WaitForAbsence("wait-for-no-pods", "Wait for pods with spec.hostnameOverride.", api.Resource("pods"), "spec.hostnameOverride", uses),
	}}
	off := testGateFeature("Disabled", "Disabled")
	h.features = featuresfake.NewClientset(off)
	a := h.controller("apiserver-a", false)
	a.residue.pageInterval = 0

	f, _ := h.sync(a)
	if f.Status.State != "Disabled" {
		t.Fatalf("the Feature must be Disabled: %+v", f.Status)
	}
	if read, err := a.residue.pass(context.Background()); err != nil || read != 2 {
		t.Fatalf("pass: %d objects read, %v", read, err)
	}
	if scannedOptIn {
		t.Error("an opt-in task nobody opted in to was scanned")
	}
	f, _ = h.sync(a)
	c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains)
	if f.Status.State != "Disabling" || c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "ns/restored") || strings.Contains(c.Message, "ns/plain") {
		t.Fatalf("the residue must send the Feature back to Disabling naming the pod: %+v", f.Status)
	}
	if f, _ = h.sync(a); f.Status.State != "Disabling" {
		t.Fatalf("a finding is acted on once: %+v", f.Status)
	}

	// The admin deletes the pod; the tasks complete.
	store.pods = store.pods[:1]
	for range 10 {
		h.advance(2 * time.Minute)
		if f, _ = h.sync(a); f.Status.State == "Disabled" {
			break
		}
	}
	c = meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains)
	if f.Status.State != "Disabled" || c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("the Feature must be Disabled again with StoredDataRemains False: %+v", f.Status)
	}
	// The cache catches up with the stored Feature, as an informer would.
	if err := a.informers.Features().V1alpha1().Features().Informer().GetIndexer().Update(f); err != nil {
		t.Fatal(err)
	}
	if read, err := a.residue.pass(context.Background()); err != nil || read != 1 {
		t.Fatalf("pass: %d objects read, %v", read, err)
	}
	if f, _ = h.sync(a); f.Status.State != "Disabled" {
		t.Fatalf("nothing left: the Feature stays Disabled: %+v", f.Status)
	}
}
