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

package transition

import (
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Drift returns the components whose uses report the opposite of a final
// state (component names sorted, deduplicated), e.g. state Disabled and a use
// {kubelet, enabled:true}. For a state that is not final (empty, Enabling,
// Disabling or unknown) it returns nil: disagreeing uses are then what the
// transition's tasks wait out, not drift. A use counts whatever its
// reporters; that the reporters are still alive is for the caller to judge
// (uses are reset when a transition starts).
func Drift(state featuresv1alpha1.FeatureState, uses []featuresv1alpha1.FeatureUse) []string {
	switch state {
	case featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled:
		return disagreeing(state == featuresv1alpha1.FeatureStateEnabled, uses)
	default:
		return nil
	}
}

// disagreeing returns the sorted, deduplicated components of the uses whose
// value is not enabled, or nil if there are none.
func disagreeing(enabled bool, uses []featuresv1alpha1.FeatureUse) []string {
	var out []string
	for _, u := range uses {
		if u.Enabled != enabled {
			out = append(out, u.Component)
		}
	}
	return sortedUnique(out)
}
