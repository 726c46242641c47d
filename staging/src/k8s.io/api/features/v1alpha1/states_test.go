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
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestStatesAreStringsInYAML: every value of desiredState and state, written
// unquoted in a manifest, reaches the API as the same string when read the
// way kubectl reads manifests (YAML 1.1 to JSON, where an unquoted On, Off,
// yes or no would be a boolean), with no decoding of our own.
func TestStatesAreStringsInYAML(t *testing.T) {
	for _, value := range []FeatureDesiredState{FeatureDesiredStateEnabled, FeatureDesiredStateDisabled} {
		data, err := yaml.YAMLToJSON([]byte("spec:\n  desiredState: " + string(value) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		var f Feature
		if err := json.Unmarshal(data, &f); err != nil {
			t.Errorf("desiredState: %s unquoted: %v", value, err)
		} else if f.Spec.DesiredState != value {
			t.Errorf("desiredState: %s unquoted reads as %q", value, f.Spec.DesiredState)
		}
	}
	for _, value := range []FeatureState{FeatureStateEnabled, FeatureStateDisabled, FeatureStateEnabling, FeatureStateDisabling} {
		data, err := yaml.YAMLToJSON([]byte("status:\n  state: " + string(value) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		var f Feature
		if err := json.Unmarshal(data, &f); err != nil {
			t.Errorf("state: %s unquoted: %v", value, err)
		} else if f.Status.State != value {
			t.Errorf("state: %s unquoted reads as %q", value, f.Status.State)
		}
	}
}
