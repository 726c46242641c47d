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

package customresourcefeaturebinding

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/apis/features"
)

func TestStrategy(t *testing.T) {
	ctx := context.Background()
	if Strategy.NamespaceScoped() {
		t.Fatal("a binding extends a cluster-scoped CRD: it must be cluster-scoped")
	}
	binding := &features.CustomResourceFeatureBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: features.CustomResourceFeatureBindingSpec{Bindings: []features.CustomResourceFieldBinding{{
			Name: "color", Path: "spec.color", Feature: features.FeatureReference{Namespace: "widgets-system", Name: "widget-colors"},
			WhenOff: features.CustomResourceWhenOffDrop, WhenStored: features.CustomResourceWhenStoredClear,
		}}},
	}
	Strategy.PrepareForCreate(ctx, binding)
	if binding.Generation != 1 {
		t.Fatalf("generation %d after create, want 1", binding.Generation)
	}
	if errs := Strategy.Validate(ctx, binding); len(errs) != 0 {
		t.Fatalf("valid binding: %v", errs)
	}
	relabeled := binding.DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	relabeled.Generation = 7
	Strategy.PrepareForUpdate(ctx, relabeled, binding)
	if relabeled.Generation != 1 {
		t.Fatalf("a change of metadata must keep the generation, got %d", relabeled.Generation)
	}
	refused := binding.DeepCopy()
	refused.ResourceVersion, binding.ResourceVersion = "2", "1"
	refused.Spec.Bindings[0].WhenOff = features.CustomResourceWhenOffRefuse
	Strategy.PrepareForUpdate(ctx, refused, binding)
	if refused.Generation != 2 {
		t.Fatalf("a new spec must bump the generation, got %d", refused.Generation)
	}
	if errs := Strategy.ValidateUpdate(ctx, refused, binding); len(errs) != 0 {
		t.Fatalf("valid update: %v", errs)
	}
	refused.Spec.Bindings[0].Path = "metadata.name"
	if errs := Strategy.ValidateUpdate(ctx, refused, binding); len(errs) == 0 {
		t.Fatal("an update to a path outside spec and status must be refused")
	}
}
