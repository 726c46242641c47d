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
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestDesiredStateFromYAML: the manifests users write, read the way kubectl
// reads them (YAML 1.1 to JSON, where an unquoted Enabled or Disabled is a boolean).
func TestDesiredStateFromYAML(t *testing.T) {
	for manifest, want := range map[string]FeatureDesiredState{
		`desiredState: Enabled`:    FeatureDesiredStateEnabled,
		`desiredState: Disabled`:   FeatureDesiredStateDisabled,
		`desiredState: "Enabled"`:  FeatureDesiredStateEnabled,
		`desiredState: 'Disabled'`: FeatureDesiredStateDisabled,
		`desiredState: yes`:        FeatureDesiredStateEnabled,
		`desiredState: false`:      FeatureDesiredStateDisabled,
		`gate: X`:                  "",
	} {
		data, err := yaml.YAMLToJSON([]byte("apiVersion: features.k8s.io/v1alpha1\nkind: Feature\nspec:\n  " + manifest + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		var f Feature
		if err := json.Unmarshal(data, &f); err != nil {
			t.Errorf("%s: %v", manifest, err)
			continue
		}
		if f.Spec.DesiredState != want {
			t.Errorf("%s: desiredState %q, want %q", manifest, f.Spec.DesiredState, want)
		}
	}
	var f Feature
	err := json.Unmarshal([]byte(`{"spec":{"desiredState":1}}`), &f)
	if err == nil || !strings.Contains(err.Error(), `desiredState must be "Enabled" or "Disabled"`) {
		t.Errorf("a number must be refused with a message that says how to write it, got %v", err)
	}
	// Writing keeps the string form.
	out, err := json.Marshal(FeatureSpec{Gate: "X", DesiredState: FeatureDesiredStateEnabled})
	if err != nil || !strings.Contains(string(out), `"desiredState":"Enabled"`) {
		t.Errorf("marshalled %s, %v", out, err)
	}
}
