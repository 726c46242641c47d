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

package tasks_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/apis/apps"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

var deployments = apps.Resource("deployments")

// clearTerminatingReplicas clears what DeploymentReplicaSetTerminatingReplicas
// adds to a Deployment's status.
func clearTerminatingReplicas(obj runtime.Object) bool {
	d := obj.(*apps.Deployment)
	if d.Status.TerminatingReplicas == nil {
		return false
	}
	d.Status.TerminatingReplicas = nil
	return true
}

// clearNothing is a spec clear function that finds nothing to clear.
func clearNothing(runtime.Object) bool { return false }

// statusUpdate sets a Deployment's status through the status subresource.
type statusUpdate func(*apps.Deployment)

func (statusUpdate) Preconditions() *metav1.Preconditions { return nil }

func (u statusUpdate) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	d := old.DeepCopyObject().(*apps.Deployment)
	u(d)
	return d, nil
}

// TestClearFieldsStatus clears a status field that only a status update
// writes and only the status strategy drops (status.terminatingReplicas of
// Deployments): through the resource's own store the clear would be lost
// (its strategy keeps the stored status), so the task writes through the
// status subresource.
func TestClearFieldsStatus(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.DeploymentReplicaSetTerminatingReplicas, true)
	e := migratortest.StartEtcd(t)
	stores := e.NewStores(t)
	if !tasks.TestingCatalog(t).HasStatus(deployments) {
		t.Fatal("deployments have no status subresource")
	}
	d := migratortest.Internal(t, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: migratortest.PodTemplate("web"),
		},
	})
	create(t, stores, map[schema.GroupResource][]runtime.Object{deployments: {d}})
	status, err := stores.StatusStore(deployments)
	if err != nil {
		t.Fatal(err)
	}
	ctx := migrator.RequestContext(t.Context(), deployments.WithVersion("v1"), "update", "ns", "web")
	if info, ok := genericapirequest.RequestInfoFrom(ctx); ok {
		info.Subresource = "status"
	}
	if _, _, err := status.Update(ctx, "web", statusUpdate(func(d *apps.Deployment) {
		d.Status.Replicas, d.Status.TerminatingReplicas = 1, ptr.To[int32](2)
	}), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	migratortest.TurnOff(t, kubefeatures.DeploymentReplicaSetTerminatingReplicas)

	task := tasks.ClearFieldsOf("clear-fields", "", []tasks.FieldClearer{
		{Resource: deployments, Clear: clearNothing},
		{Resource: deployments, Status: true, Clear: clearTerminatingReplicas},
	})
	if err := task.Validate(tasks.TestingCatalog(t)); err != nil {
		t.Fatal(err)
	}
	if got := task.Resources(); !slices.Equal(got, []schema.GroupResource{deployments}) {
		t.Errorf("Resources() = %v, want deployments once", got)
	}
	stored := listAll(t, stores, deployments)
	if !task.Holds(stored[0]) {
		t.Fatal("Holds is false for a Deployment with status.terminatingReplicas")
	}
	out := newStepper(task, tasks.Env{Stores: stores, Migration: migration()}).run(t, 10)
	if !strings.Contains(out.Message, "deployments.apps/status") {
		t.Errorf("done message %q does not name deployments.apps/status", out.Message)
	}
	stored = listAll(t, stores, deployments)
	got := stored[0].(*apps.Deployment)
	if got.Status.TerminatingReplicas != nil || task.Holds(got) {
		t.Errorf("status.terminatingReplicas = %d after the task, want it cleared", *got.Status.TerminatingReplicas)
	}
	if got.Status.Replicas != 1 || got.Spec.Replicas != 1 {
		t.Errorf("the task changed more than the field: status.replicas %d, spec.replicas %d", got.Status.Replicas, got.Spec.Replicas)
	}
}

func TestClearFieldsStatusDeclarationErrors(t *testing.T) {
	for name, targets := range map[string][]tasks.FieldClearer{
		"configmaps has no status subresource": {{Resource: api.Resource("configmaps"), Status: true, Clear: clearNothing}},
		"deployments.apps/status is listed twice": {
			{Resource: deployments, Status: true, Clear: clearTerminatingReplicas},
			{Resource: deployments, Status: true, Clear: clearTerminatingReplicas},
		},
	} {
		task := tasks.ClearFieldsOf("bad", "", targets)
		if err := task.Validate(tasks.TestingCatalog(t)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Validate() = %v, want an error saying %q", err, name)
		}
	}
	// Stores that cannot write status.
	task := tasks.ClearFieldsOf("status", "", []tasks.FieldClearer{{Resource: deployments, Status: true, Clear: clearTerminatingReplicas}})
	if _, err := task.Step(t.Context(), tasks.Env{Stores: fakeStores{}}, nil, tasks.Status(task), time.Now()); err == nil || !strings.Contains(err.Error(), "status") {
		t.Errorf("Step on stores without status: %v", err)
	}
}
