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

package lifecycle

import (
	"testing"

	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
)

// TestCanariesApplyWhileRunning: a gate that can canary is one whose
// desired state the components follow from its Feature (Central or
// Dynamic) and apply while running.
func TestCanariesApplyWhileRunning(t *testing.T) {
	for gate, c := range rollout.Gates {
		m, ok := Managements[gate]
		if !ok || (!m.Central && !m.Dynamic) {
			t.Errorf("%s can canary on %s but its components do not follow its Feature (Managements: %+v)", gate, c, m)
		}
		if !AppliesWhileRunning(gate) {
			t.Errorf("%s can canary on %s but does not apply while running", gate, c)
		}
		if c != rollout.Nodes && c != rollout.APIServers {
			t.Errorf("%s: scope %d is not one kind of component (nodes or apiservers)", gate, c)
		}
	}
}
