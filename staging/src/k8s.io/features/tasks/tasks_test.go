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

package tasks

import (
	"context"
	"strings"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

func feature() *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets", Namespace: "acme"},
		Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabling,
			Tasks: []featuresv1alpha1.FeatureTask{{Name: "migrate-widgets", Owner: "acme-controller"}, {Name: "drain", Owner: "other"}}},
	}
}

func TestActive(t *testing.T) {
	f := feature()
	if got, ok := Active(f, "acme-controller"); !ok || got.Name != "migrate-widgets" {
		t.Errorf("the owner's active task: %+v %v", got, ok)
	}
	if _, ok := Active(f, "other"); ok {
		t.Error("another owner's task is active before its turn")
	}
	f.Status.Tasks[0].Done = true
	if _, ok := Active(f, "acme-controller"); ok {
		t.Error("a task marked done is still active")
	}
	if _, ok := Active(&featuresv1alpha1.Feature{}, "acme-controller"); ok {
		t.Error("a Feature with no task has an active one")
	}
}

// TestComplete: the task is marked done through the status subresource,
// after a conflict with kube-apiserver's own write; a task the Feature no
// longer lists is an error that says so.
func TestComplete(t *testing.T) {
	client := fake.NewClientset(feature())
	conflicts := 1
	client.PrependReactor("update", "features", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "status" {
			t.Errorf("wrote %q, not the status subresource", action.GetSubresource())
		}
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "features.k8s.io", Resource: "features"}, "widgets", nil)
		}
		return false, nil, nil
	})
	ctx := context.Background()
	if err := Update(ctx, client, "acme", "widgets", "migrate-widgets", "3/10", "migrating"); err != nil {
		t.Fatal(err)
	}
	if err := Complete(ctx, client, "acme", "widgets", "migrate-widgets", "rewrote 10 widgets"); err != nil {
		t.Fatal(err)
	}
	f, err := client.FeaturesV1alpha1().Features("acme").Get(ctx, "widgets", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Status.Tasks[0]; !got.Done || got.Progress != "3/10" || got.Message != "rewrote 10 widgets" {
		t.Errorf("the task after Update and Complete: %+v", got)
	}
	if f.Status.Tasks[1].Done {
		t.Error("another task was marked done")
	}
	if err := Complete(ctx, client, "acme", "widgets", "gone", ""); err == nil || !strings.Contains(err.Error(), `has no task "gone"`) {
		t.Errorf("completing a task the Feature does not list: %v", err)
	}
}
