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

package featuretarget

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/apis/features"
)

func TestStrategyBumpsGenerationOnNewSpec(t *testing.T) {
	ctx := context.Background()
	target := &features.FeatureTarget{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-deletion-cost", Namespace: "kube-system"},
		Spec: features.FeatureTargetSpec{Gate: "PodDeletionCost", Management: features.FeatureManagementDynamic,
			DesiredState: features.FeatureDesiredStateEnabled, AppliesWhileRunning: true},
	}
	Strategy.PrepareForCreate(ctx, target)
	if target.Generation != 1 {
		t.Fatalf("generation %d after create, want 1", target.Generation)
	}
	if errs := Strategy.Validate(ctx, target); len(errs) != 0 {
		t.Fatalf("valid target: %v", errs)
	}
	relabeled := target.DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	Strategy.PrepareForUpdate(ctx, relabeled, target)
	if relabeled.Generation != 1 {
		t.Fatalf("a change of metadata must keep the generation, got %d", relabeled.Generation)
	}
	flipped := target.DeepCopy()
	flipped.ResourceVersion, target.ResourceVersion = "2", "1"
	flipped.Spec.DesiredState = features.FeatureDesiredStateDisabled
	Strategy.PrepareForUpdate(ctx, flipped, target)
	if flipped.Generation != 2 {
		t.Fatalf("a new value must bump the generation, got %d", flipped.Generation)
	}
	if errs := Strategy.ValidateUpdate(ctx, flipped, target); len(errs) != 0 {
		t.Fatalf("valid update: %v", errs)
	}
	flipped.Spec.Management = features.FeatureManagementCommandLine
	if errs := Strategy.ValidateUpdate(ctx, flipped, target); len(errs) == 0 {
		t.Fatal("a CommandLine target must be refused")
	}
	if Strategy.AllowUnconditionalUpdate(ctx) {
		t.Error("a target's updates must be conditional: a former leader must not write over its successor")
	}
}
