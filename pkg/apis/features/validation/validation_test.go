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
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/apis/features"
)

func validFeature() *features.Feature {
	yes := true
	return &features.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "max-unavailable-stateful-set", Namespace: "kube-system", ResourceVersion: "1"},
		Spec: features.FeatureSpec{
			Gate:         "MaxUnavailableStatefulSet",
			DesiredState: features.FeatureDesiredStateEnabled,
			Management:   features.FeatureManagementCommandLine,
		},
		Status: features.FeatureStatus{
			State:      features.FeatureStateDisabling,
			Default:    &yes,
			PreRelease: features.FeaturePreReleaseBeta,
			Version:    "1.36",
			Tasks:      []features.FeatureTask{{Name: "wait-for-uses"}, {Name: "clear-fields", Attempts: 2}},
			Uses: []features.FeatureUse{
				{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-a", "apiserver-b"}},
				{Component: "kube-controller-manager", Enabled: false, Reporters: []string{"kcm-1"}},
			},
			Conditions: []metav1.Condition{{Type: "Converged", Status: metav1.ConditionFalse, Reason: "TasksRemain", LastTransitionTime: metav1.Now()}},
		},
	}
}

// declared makes f a third party's declared Feature.
func declared(f *features.Feature) {
	f.Namespace = "sample-system"
	f.Spec.Declaration = &features.FeatureDeclaration{
		PreRelease: features.FeaturePreReleaseAlpha,
		Components: []string{"sample-controller", "sample-webhook"},
		Tasks: []features.FeatureDeclaredTask{
			{Name: "migrate-widgets", Transition: features.FeatureStateDisabling, Owner: "sample-controller"},
			{Name: "warm-cache", Transition: features.FeatureStateEnabling, Owner: "sample-webhook"},
		},
	}
}

func reporters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "r" + strings.Repeat("x", i)
	}
	return out
}

// TestValidateFeature has one case per rule; each asserts the field path and
// type of the error, so a rule that stops firing or fires on the wrong field fails.
func TestValidateFeature(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(*features.Feature)
		errType field.ErrorType
		path    string
	}{
		{"valid", func(*features.Feature) {}, "", ""},
		{"name must match gate", func(f *features.Feature) { f.Name = "other" }, field.ErrorTypeInvalid, "metadata.name"},
		{"namespace required", func(f *features.Feature) { f.Namespace = "" }, field.ErrorTypeRequired, "metadata.namespace"},
		{"gate required", func(f *features.Feature) { f.Spec.Gate = "" }, field.ErrorTypeRequired, "spec.gate"},
		{"gate charset", func(f *features.Feature) { f.Spec.Gate = "Max-Unavailable" }, field.ErrorTypeInvalid, "spec.gate"},
		{"gate starts with a letter", func(f *features.Feature) { f.Spec.Gate = "1Gate" }, field.ErrorTypeInvalid, "spec.gate"},
		{"gate too long", func(f *features.Feature) { f.Spec.Gate = "G" + strings.Repeat("a", MaxGateNameLength) }, field.ErrorTypeTooLong, "spec.gate"},
		{"desiredState enum", func(f *features.Feature) { f.Spec.DesiredState = "Maybe" }, field.ErrorTypeNotSupported, "spec.desiredState"},
		{"management required", func(f *features.Feature) { f.Spec.Management = "" }, field.ErrorTypeRequired, "spec.management"},
		{"management enum", func(f *features.Feature) { f.Spec.Management = "Manual" }, field.ErrorTypeNotSupported, "spec.management"},
		{"rollout: valid", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Count: 1}, {Percent: 50, SoakSeconds: ptr.To(int32(60))},
				{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}}, {Percent: 100}}}
		}, "", ""},
		{"rollout: step with two sizes", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Count: 1, Percent: 10}}}
		}, field.ErrorTypeInvalid, "spec.rollout.steps[0]"},
		{"rollout: percent above 100", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Percent: 150}}}
		}, field.ErrorTypeInvalid, "spec.rollout.steps[0].percent"},
		{"rollout: cohort shrinks", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Percent: 50}, {Percent: 10}}}
		}, field.ErrorTypeInvalid, "spec.rollout.steps[1].percent"},
		{"rollout: soak over a day", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Count: 1, SoakSeconds: ptr.To(int32(MaxRolloutSeconds + 1))}}}
		}, field.ErrorTypeInvalid, "spec.rollout.steps[0].soakSeconds"},
		{"rollout: bad selector", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "a"}}}}}
		}, field.ErrorTypeInvalid, "spec.rollout.steps[0].selector.matchLabels"},
		{"rollout: interval 0", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Analysis: &features.FeatureRolloutAnalysis{IntervalSeconds: ptr.To(int32(0))}}
		}, field.ErrorTypeInvalid, "spec.rollout.analysis.intervalSeconds"},
		{"rollout: negative maxRestarts", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Analysis: &features.FeatureRolloutAnalysis{MaxRestarts: -1}}
		}, field.ErrorTypeInvalid, "spec.rollout.analysis.maxRestarts"},
		{"rollout: error rate increase above 100 points", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Analysis: &features.FeatureRolloutAnalysis{MaxErrorRateIncreasePercent: ptr.To(int32(101))}}
		}, field.ErrorTypeInvalid, "spec.rollout.analysis.maxErrorRateIncreasePercent"},
		{"rollout: negative minRequests", func(f *features.Feature) {
			f.Spec.Rollout = &features.FeatureRollout{Analysis: &features.FeatureRolloutAnalysis{MinRequests: ptr.To(int32(-5))}}
		}, field.ErrorTypeInvalid, "spec.rollout.analysis.minRequests"},
		{"rollout status: phase enum", func(f *features.Feature) {
			f.Status.Rollout = &features.FeatureRolloutStatus{Phase: "Sideways", Scope: "Nodes", From: "Disabled", To: "Enabled"}
		}, field.ErrorTypeNotSupported, "status.rollout.phase"},
		{"rollout status: below", func(f *features.Feature) {
			f.Status.Rollout = &features.FeatureRolloutStatus{Phase: "Progressing", Scope: "Nodes", From: "Disabled", To: "Enabled", Cohort: features.FeatureCohort{Below: "-1"}}
		}, field.ErrorTypeInvalid, "status.rollout.cohort.below"},
		{"rollout status: selectors on apiservers", func(f *features.Feature) {
			f.Status.Rollout = &features.FeatureRolloutStatus{Phase: "Progressing", Scope: "APIServers", From: "Disabled", To: "Enabled",
				Cohort: features.FeatureCohort{Selectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}}
		}, field.ErrorTypeForbidden, "status.rollout.cohort.selectors"},
		{"state enum", func(f *features.Feature) { f.Status.State = "Half" }, field.ErrorTypeNotSupported, "status.state"},
		{"preRelease enum", func(f *features.Feature) { f.Status.PreRelease = "ALPHA" }, field.ErrorTypeNotSupported, "status.preRelease"},
		{"version format", func(f *features.Feature) { f.Status.Version = "v1.36.0" }, field.ErrorTypeInvalid, "status.version"},
		{"observedGeneration", func(f *features.Feature) { f.Status.ObservedGeneration = -1 }, field.ErrorTypeInvalid, "status.observedGeneration"},
		{"too many tasks", func(f *features.Feature) {
			f.Status.Tasks = nil
			for i := 0; i <= MaxTasks; i++ {
				f.Status.Tasks = append(f.Status.Tasks, features.FeatureTask{Name: "t" + strings.Repeat("a", i)})
			}
		}, field.ErrorTypeTooMany, "status.tasks"},
		{"task name required", func(f *features.Feature) { f.Status.Tasks[1].Name = "" }, field.ErrorTypeRequired, "status.tasks[1].name"},
		{"task name format", func(f *features.Feature) { f.Status.Tasks[1].Name = "Clear_Fields" }, field.ErrorTypeInvalid, "status.tasks[1].name"},
		{"task name unique", func(f *features.Feature) { f.Status.Tasks[1].Name = "wait-for-uses" }, field.ErrorTypeDuplicate, "status.tasks[1].name"},
		{"task attempts", func(f *features.Feature) { f.Status.Tasks[0].Attempts = -1 }, field.ErrorTypeInvalid, "status.tasks[0].attempts"},
		{"task description", func(f *features.Feature) { f.Status.Tasks[0].Description = strings.Repeat("d", MaxMessageLength+1) }, field.ErrorTypeTooLong, "status.tasks[0].description"},
		{"task message", func(f *features.Feature) { f.Status.Tasks[0].Message = strings.Repeat("m", MaxMessageLength+1) }, field.ErrorTypeTooLong, "status.tasks[0].message"},
		{"task progress", func(f *features.Feature) { f.Status.Tasks[0].Progress = strings.Repeat("p", MaxProgressLength+1) }, field.ErrorTypeTooLong, "status.tasks[0].progress"},
		{"task checkpoint", func(f *features.Feature) { f.Status.Tasks[0].Checkpoint = strings.Repeat("c", MaxCheckpointLength+1) }, field.ErrorTypeTooLong, "status.tasks[0].checkpoint"},
		{"too many uses", func(f *features.Feature) {
			f.Status.Uses = nil
			for i := 0; i <= MaxUses; i++ {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{Component: "c" + strings.Repeat("a", i/2), Enabled: i%2 == 0})
			}
		}, field.ErrorTypeTooMany, "status.uses"},
		{"use component required", func(f *features.Feature) { f.Status.Uses[1].Component = "" }, field.ErrorTypeRequired, "status.uses[1].component"},
		{"use component format", func(f *features.Feature) { f.Status.Uses[1].Component = "Kube Scheduler" }, field.ErrorTypeInvalid, "status.uses[1].component"},
		{"use key unique", func(f *features.Feature) { f.Status.Uses[1] = f.Status.Uses[0] }, field.ErrorTypeDuplicate, "status.uses[1]"},
		{"sampled reporters bounded", func(f *features.Feature) { f.Status.Uses[1].Reporters = reporters(MaxSampledReporters + 1) }, field.ErrorTypeTooMany, "status.uses[1].reporters"},
		{"apiserver reporters bounded", func(f *features.Feature) { f.Status.Uses[0].Reporters = reporters(MaxAPIServerReporters + 1) }, field.ErrorTypeTooMany, "status.uses[0].reporters"},
		{"reporter required", func(f *features.Feature) { f.Status.Uses[0].Reporters[1] = "" }, field.ErrorTypeRequired, "status.uses[0].reporters[1]"},
		{"reporter too long", func(f *features.Feature) { f.Status.Uses[0].Reporters[1] = strings.Repeat("r", MaxReporterLength+1) }, field.ErrorTypeTooLong, "status.uses[0].reporters[1]"},
		{"reporter unique", func(f *features.Feature) { f.Status.Uses[0].Reporters[1] = "apiserver-a" }, field.ErrorTypeDuplicate, "status.uses[0].reporters[1]"},
		{"declared", declared, "", ""},
		{"declaration in kube-system", func(f *features.Feature) { declared(f); f.Namespace = "kube-system" }, field.ErrorTypeForbidden, "spec.declaration"},
		{"declared preRelease required", func(f *features.Feature) { declared(f); f.Spec.Declaration.PreRelease = "" }, field.ErrorTypeRequired, "spec.declaration.preRelease"},
		{"declared preRelease enum", func(f *features.Feature) { declared(f); f.Spec.Declaration.PreRelease = "Gamma" }, field.ErrorTypeNotSupported, "spec.declaration.preRelease"},
		{"declared component format", func(f *features.Feature) { declared(f); f.Spec.Declaration.Components[1] = "Sample_Webhook" }, field.ErrorTypeInvalid, "spec.declaration.components[1]"},
		{"declared component unique", func(f *features.Feature) { declared(f); f.Spec.Declaration.Components[1] = "sample-controller" }, field.ErrorTypeDuplicate, "spec.declaration.components[1]"},
		{"declared component not kube-apiserver", func(f *features.Feature) { declared(f); f.Spec.Declaration.Components[1] = "kube-apiserver" }, field.ErrorTypeInvalid, "spec.declaration.components[1]"},
		{"too many declared components", func(f *features.Feature) {
			declared(f)
			f.Spec.Declaration.Components = nil
			for i := 0; i <= MaxDeclaredComponents; i++ {
				f.Spec.Declaration.Components = append(f.Spec.Declaration.Components, "c"+strings.Repeat("a", i))
			}
		}, field.ErrorTypeTooMany, "spec.declaration.components"},
		{"declared task name required", func(f *features.Feature) { declared(f); f.Spec.Declaration.Tasks[0].Name = "" }, field.ErrorTypeRequired, "spec.declaration.tasks[0].name"},
		{"declared task not wait-for-uses", func(f *features.Feature) { declared(f); f.Spec.Declaration.Tasks[0].Name = "wait-for-uses" }, field.ErrorTypeInvalid, "spec.declaration.tasks[0].name"},
		{"declared task name unique", func(f *features.Feature) { declared(f); f.Spec.Declaration.Tasks[1].Name = "migrate-widgets" }, field.ErrorTypeDuplicate, "spec.declaration.tasks[1].name"},
		{"declared task transition required", func(f *features.Feature) { declared(f); f.Spec.Declaration.Tasks[0].Transition = "" }, field.ErrorTypeRequired, "spec.declaration.tasks[0].transition"},
		{"declared task transition enum", func(f *features.Feature) { declared(f); f.Spec.Declaration.Tasks[0].Transition = "Disabled" }, field.ErrorTypeNotSupported, "spec.declaration.tasks[0].transition"},
		{"declared task owner required", func(f *features.Feature) { declared(f); f.Spec.Declaration.Tasks[1].Owner = "" }, field.ErrorTypeRequired, "spec.declaration.tasks[1].owner"},
		{"too many declared tasks", func(f *features.Feature) {
			declared(f)
			f.Spec.Declaration.Tasks = nil
			for i := 0; i <= MaxDeclaredTasks; i++ {
				f.Spec.Declaration.Tasks = append(f.Spec.Declaration.Tasks, features.FeatureDeclaredTask{Name: "t" + strings.Repeat("a", i), Transition: features.FeatureStateDisabling, Owner: "sample-controller"})
			}
		}, field.ErrorTypeTooMany, "spec.declaration.tasks"},
		{"owned task", func(f *features.Feature) {
			f.Status.Tasks[1].Owner = "sample-controller"
			f.Status.Tasks[1].Done = true
		}, "", ""},
		{"task owner format", func(f *features.Feature) { f.Status.Tasks[1].Owner = "Sample Controller" }, field.ErrorTypeInvalid, "status.tasks[1].owner"},
		{"done only with an owner", func(f *features.Feature) { f.Status.Tasks[1].Done = true }, field.ErrorTypeForbidden, "status.tasks[1].done"},
		{"condition type", func(f *features.Feature) { f.Status.Conditions[0].Type = "not a type!" }, field.ErrorTypeInvalid, "status.conditions[0].type"},
		{"too many conditions", func(f *features.Feature) {
			for i := 0; i < MaxConditions; i++ {
				f.Status.Conditions = append(f.Status.Conditions, metav1.Condition{Type: "C" + strings.Repeat("c", i), Status: metav1.ConditionTrue, Reason: "R", LastTransitionTime: metav1.Now()})
			}
		}, field.ErrorTypeTooMany, "status.conditions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := validFeature()
			tc.mutate(f)
			errs := ValidateFeature(f)
			if tc.path == "" {
				if len(errs) != 0 {
					t.Fatalf("expected no errors, got %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("expected exactly one error at %s, got %v", tc.path, errs)
			}
			if errs[0].Field != tc.path || errs[0].Type != tc.errType {
				t.Fatalf("expected %s at %s, got %s at %s: %v", tc.errType, tc.path, errs[0].Type, errs[0].Field, errs[0])
			}
		})
	}
}

func TestValidateFeatureUpdate(t *testing.T) {
	old := validFeature()
	f := validFeature()
	f.Spec.DesiredState = features.FeatureDesiredStateDisabled
	if errs := ValidateFeatureUpdate(f, old); len(errs) != 0 {
		t.Fatalf("changing desiredState must be valid: %v", errs)
	}
	f.Spec.Gate = "OtherGate"
	errs := ValidateFeatureUpdate(f, old)
	if len(errs) != 1 || errs[0].Field != "spec.gate" || errs[0].Type != field.ErrorTypeInvalid || !strings.Contains(errs[0].Detail, "immutable") {
		t.Fatalf("expected spec.gate to be immutable, got %v", errs)
	}
}

func TestValidateFeatureStatusUpdate(t *testing.T) {
	old := validFeature()
	f := validFeature()
	f.Status.State = "Sideways"
	errs := ValidateFeatureStatusUpdate(f, old)
	if len(errs) != 1 || errs[0].Field != "status.state" {
		t.Fatalf("expected status.state error, got %v", errs)
	}
}
