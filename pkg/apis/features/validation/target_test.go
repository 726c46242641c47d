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

package validation

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/apis/features"
)

func validTarget() *features.FeatureTarget {
	return &features.FeatureTarget{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-deletion-cost", Namespace: "kube-system"},
		Spec: features.FeatureTargetSpec{
			Gate: "PodDeletionCost", Management: features.FeatureManagementDynamic, DesiredState: features.FeatureDesiredStateDisabled,
			AppliesWhileRunning: true,
			Rollout: &features.FeatureTargetRollout{Scope: "Nodes", DesiredState: features.FeatureDesiredStateEnabled,
				Cohort: features.FeatureCohort{Seed: "uid", Below: "1844674407370955161"}},
		},
	}
}

func TestValidateFeatureTarget(t *testing.T) {
	if errs := ValidateFeatureTarget(validTarget()); len(errs) != 0 {
		t.Fatalf("valid target: %v", errs)
	}
	onAPIServers := validTarget()
	onAPIServers.Spec.Rollout.Scope = features.FeatureRolloutScopeAPIServers
	if errs := ValidateFeatureTarget(onAPIServers); len(errs) != 0 {
		t.Fatalf("valid target of a rollout on apiservers: %v", errs)
	}
	for _, tc := range []struct {
		name   string
		mutate func(t *features.FeatureTarget)
		want   string // field path and message part
	}{
		{"name is not the Feature's", func(t *features.FeatureTarget) { t.Name = "poddeletioncost" }, `metadata.name: Invalid value: "poddeletioncost": must be "pod-deletion-cost"`},
		{"no gate", func(t *features.FeatureTarget) { t.Spec.Gate = "" }, "spec.gate: Required value"},
		{"bad gate", func(t *features.FeatureTarget) { t.Spec.Gate = "pod-deletion-cost" }, "spec.gate: Invalid value"},
		{"no management", func(t *features.FeatureTarget) { t.Spec.Management = "" }, "spec.management: Required value"},
		{"command line", func(t *features.FeatureTarget) { t.Spec.Management = features.FeatureManagementCommandLine },
			`spec.management: Unsupported value: "CommandLine": supported values: "Central", "Dynamic"`},
		{"no desired state", func(t *features.FeatureTarget) { t.Spec.DesiredState = "" }, "spec.desiredState: Required value"},
		{"bad desired state", func(t *features.FeatureTarget) { t.Spec.DesiredState = "on" }, `spec.desiredState: Unsupported value: "on"`},
		{"rollout of a Central Feature", func(t *features.FeatureTarget) { t.Spec.Management = features.FeatureManagementCentral },
			"spec.rollout: Forbidden: only a Dynamic Feature rolls out in steps"},
		{"bad scope", func(t *features.FeatureTarget) { t.Spec.Rollout.Scope = "Pods" }, `spec.rollout.scope: Unsupported value: "Pods"`},
		{"no rollout value", func(t *features.FeatureTarget) { t.Spec.Rollout.DesiredState = "" }, "spec.rollout.desiredState: Required value"},
		{"bad threshold", func(t *features.FeatureTarget) { t.Spec.Rollout.Cohort.Below = "-1" }, "spec.rollout.cohort.below: Invalid value"},
		{"bad selector", func(t *features.FeatureTarget) {
			t.Spec.Rollout.Cohort.Selectors = []metav1.LabelSelector{{MatchLabels: map[string]string{"a b": "c"}}}
		}, "spec.rollout.cohort.selectors[0].matchLabels: Invalid value"},
		{"selector on apiservers", func(t *features.FeatureTarget) {
			t.Spec.Rollout.Scope = features.FeatureRolloutScopeAPIServers
			t.Spec.Rollout.Cohort.Selectors = []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}
		}, "spec.rollout.cohort.selectors: Forbidden: apiservers have no labels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := validTarget()
			tc.mutate(target)
			errs := ValidateFeatureTarget(target)
			if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Fatalf("errors %v, want one containing %q", errs, tc.want)
			}
		})
	}
}

func TestValidateFeatureTargetUpdate(t *testing.T) {
	old := validTarget()
	old.ResourceVersion = "1"
	target := old.DeepCopy()
	target.Spec.Rollout = nil
	target.Spec.DesiredState = features.FeatureDesiredStateEnabled
	if errs := ValidateFeatureTargetUpdate(target, old); len(errs) != 0 {
		t.Fatalf("a new value is a valid update: %v", errs)
	}
	target.Spec.Gate = "ExtendWebSocketsToKubelet"
	if errs := ValidateFeatureTargetUpdate(target, old); !strings.Contains(errs.ToAggregate().Error(), `spec.gate: Invalid value: "ExtendWebSocketsToKubelet": field is immutable`) {
		t.Fatalf("gate is immutable: %v", errs)
	}
}
