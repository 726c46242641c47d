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

package featurereport

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/apis/features"
)

func TestStrategyBumpsGenerationOnNewValues(t *testing.T) {
	ctx := context.Background()
	renew := metav1.NewMicroTime(time.Now())
	r := &features.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: "kubelet.n1", Namespace: "kube-system"},
		Spec: features.FeatureReportSpec{Component: "kubelet", Identity: "n1", RenewTime: &renew,
			Gates: []features.FeatureReportGate{{Name: "A", Enabled: true}}},
	}
	Strategy.PrepareForCreate(ctx, r)
	if r.Generation != 1 {
		t.Fatalf("generation %d after create, want 1", r.Generation)
	}
	renewed := r.DeepCopy()
	later := metav1.NewMicroTime(renew.Add(10 * time.Second))
	renewed.Spec.RenewTime = &later
	Strategy.PrepareForUpdate(ctx, renewed, r)
	if renewed.Generation != 1 {
		t.Fatalf("a renewal must keep the generation, got %d", renewed.Generation)
	}
	switched := renewed.DeepCopy()
	switched.ResourceVersion, renewed.ResourceVersion = "2", "1"
	switched.Spec.Gates[0].Enabled = false
	Strategy.PrepareForUpdate(ctx, switched, renewed)
	if switched.Generation != 2 {
		t.Fatalf("new values must bump the generation, got %d", switched.Generation)
	}
	if errs := Strategy.ValidateUpdate(ctx, switched, renewed); len(errs) != 0 {
		t.Fatalf("valid update: %v", errs)
	}
	if !Strategy.AllowCreateOnUpdate(ctx) {
		t.Error("a reporter creates its report with an apply: create on update must be allowed")
	}
}
