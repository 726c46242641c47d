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

package rollout

import (
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
)

func TestCheck(t *testing.T) {
	if err := Check("ExtendWebSocketsToKubelet", Nodes); err != nil {
		t.Errorf("ExtendWebSocketsToKubelet on nodes: %v", err)
	}
	for _, tc := range []struct {
		gate  string
		scope Scope
		want  string
	}{
		{"ExtendWebSocketsToKubelet", APIServers,
			"ExtendWebSocketsToKubelet cannot canary on apiservers, only on nodes (gates that can: ExtendWebSocketsToKubelet (nodes))"},
		{"ExtendWebSocketsToKubelet", Nodes | APIServers, "cannot canary on nodes and apiservers, only on nodes"},
		{"PodDeletionCost", Nodes, "PodDeletionCost cannot be rolled out in steps: the lifecycle registry does not declare it safe to canary"},
		{"ExtendWebSocketsToKubelet", 0, "names no components"},
	} {
		err := Check(featuregate.Feature(tc.gate), tc.scope)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %s: %v, want an error containing %q", tc.gate, tc.scope, err, tc.want)
		}
	}
}

func TestCheckRollout(t *testing.T) {
	if err := CheckRollout("ExtendWebSocketsToKubelet", true); err != nil {
		t.Errorf("ExtendWebSocketsToKubelet by node labels: %v", err)
	}
	if scope, err := ScopeOf("ExtendWebSocketsToKubelet"); err != nil || scope != Nodes {
		t.Errorf("ScopeOf(ExtendWebSocketsToKubelet) = %s, %v; want nodes", scope, err)
	}
	if err := CheckRollout("PodDeletionCost", false); err == nil || !strings.Contains(err.Error(), "does not declare it safe to canary") {
		t.Errorf("PodDeletionCost: %v", err)
	}
	const testGate = featuregate.Feature("TestCanaryOnAPIServers")
	Gates[testGate] = APIServers
	defer delete(Gates, testGate)
	if err := CheckRollout(string(testGate), false); err != nil {
		t.Errorf("%s by count: %v", testGate, err)
	}
	if err := CheckRollout(string(testGate), true); err == nil || !strings.Contains(err.Error(), "canaries on apiservers, which have no labels") {
		t.Errorf("%s by label: %v", testGate, err)
	}
}
