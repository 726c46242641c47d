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

package v1alpha1

import (
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/conversion"

	"k8s.io/kubernetes/pkg/apis/features"
)

// Objects stored before the states were renamed hold the old values:
// desiredState On or Off, and state On, Off, TurningOn or TurningOff (an
// unquoted On or Off in YAML 1.1 is a boolean, so v1alpha1 moved to values
// every reader keeps as strings). Conversion from v1alpha1 reads them as
// the new values, so that a stored Feature or FeatureTarget stays readable
// and valid; nothing writes them any more, and the next write of the object
// stores the new value.
var (
	legacyDesiredStates = map[featuresv1alpha1.FeatureDesiredState]features.FeatureDesiredState{
		"On":  features.FeatureDesiredStateEnabled,
		"Off": features.FeatureDesiredStateDisabled,
	}
	legacyStates = map[featuresv1alpha1.FeatureState]features.FeatureState{
		"On":         features.FeatureStateEnabled,
		"Off":        features.FeatureStateDisabled,
		"TurningOn":  features.FeatureStateEnabling,
		"TurningOff": features.FeatureStateDisabling,
	}
)

// desiredState returns the internal value of a v1alpha1 desired state,
// reading a legacy value as its new name.
func desiredState(in featuresv1alpha1.FeatureDesiredState) features.FeatureDesiredState {
	if s, ok := legacyDesiredStates[in]; ok {
		return s
	}
	return features.FeatureDesiredState(in)
}

// state returns the internal value of a v1alpha1 state, reading a legacy
// value as its new name.
func state(in featuresv1alpha1.FeatureState) features.FeatureState {
	if s, ok := legacyStates[in]; ok {
		return s
	}
	return features.FeatureState(in)
}

// Convert_v1alpha1_FeatureSpec_To_features_FeatureSpec converts a spec,
// reading a legacy desiredState as its new name.
func Convert_v1alpha1_FeatureSpec_To_features_FeatureSpec(in *featuresv1alpha1.FeatureSpec, out *features.FeatureSpec, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FeatureSpec_To_features_FeatureSpec(in, out, s); err != nil {
		return err
	}
	out.DesiredState = desiredState(in.DesiredState)
	return nil
}

// Convert_v1alpha1_FeatureStatus_To_features_FeatureStatus converts a
// status, reading a legacy state as its new name.
func Convert_v1alpha1_FeatureStatus_To_features_FeatureStatus(in *featuresv1alpha1.FeatureStatus, out *features.FeatureStatus, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FeatureStatus_To_features_FeatureStatus(in, out, s); err != nil {
		return err
	}
	out.State = state(in.State)
	return nil
}

// Convert_v1alpha1_FeatureDeclaredTask_To_features_FeatureDeclaredTask converts a declared task,
// reading a legacy transition as its new name.
func Convert_v1alpha1_FeatureDeclaredTask_To_features_FeatureDeclaredTask(in *featuresv1alpha1.FeatureDeclaredTask, out *features.FeatureDeclaredTask, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FeatureDeclaredTask_To_features_FeatureDeclaredTask(in, out, s); err != nil {
		return err
	}
	out.Transition = state(in.Transition)
	return nil
}

// Convert_v1alpha1_FeatureRolloutStatus_To_features_FeatureRolloutStatus
// converts a rollout's status, reading legacy values of from and to as
// their new names.
func Convert_v1alpha1_FeatureRolloutStatus_To_features_FeatureRolloutStatus(in *featuresv1alpha1.FeatureRolloutStatus, out *features.FeatureRolloutStatus, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FeatureRolloutStatus_To_features_FeatureRolloutStatus(in, out, s); err != nil {
		return err
	}
	out.From, out.To = desiredState(in.From), desiredState(in.To)
	return nil
}

// Convert_v1alpha1_FeatureTargetSpec_To_features_FeatureTargetSpec converts
// a FeatureTarget's spec, reading a legacy desiredState as its new name.
func Convert_v1alpha1_FeatureTargetSpec_To_features_FeatureTargetSpec(in *featuresv1alpha1.FeatureTargetSpec, out *features.FeatureTargetSpec, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FeatureTargetSpec_To_features_FeatureTargetSpec(in, out, s); err != nil {
		return err
	}
	out.DesiredState = desiredState(in.DesiredState)
	return nil
}

// Convert_v1alpha1_FeatureTargetRollout_To_features_FeatureTargetRollout
// converts a FeatureTarget's rollout, reading a legacy desiredState as its
// new name.
func Convert_v1alpha1_FeatureTargetRollout_To_features_FeatureTargetRollout(in *featuresv1alpha1.FeatureTargetRollout, out *features.FeatureTargetRollout, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_FeatureTargetRollout_To_features_FeatureTargetRollout(in, out, s); err != nil {
		return err
	}
	out.DesiredState = desiredState(in.DesiredState)
	return nil
}
