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

package node

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// A canary rollout on the cluster of TestKindCreateCluster: its
// kube-apiserver makes ExtendWebSocketsToKubelet Dynamic
// (hack/kind/featureflags.yaml), and a new desired state of it rolls out to
// one real kubelet first, then to all three, which follow it while they run.
func init() {
	kindClusterChecks = append(kindClusterChecks, canaryRollout)
}

// canaryGate is the Dynamic gate the check rolls out.
const canaryGate = "ExtendWebSocketsToKubelet"

// kubeletValues returns, by node, the value of gate each kubelet's report
// states, and the reports' listing for messages.
func kubeletValues(cp *node, gate string) (map[string]bool, string) {
	out, err := cp.kubectl("get", "featurereports", "-n", "kube-system", "-o", "json")
	if err != nil {
		return nil, out
	}
	var list featuresv1alpha1.FeatureReportList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return nil, err.Error()
	}
	values := map[string]bool{}
	var lines []string
	for _, r := range list.Items {
		if r.Spec.Component != "kubelet" {
			continue
		}
		for _, g := range r.Spec.Gates {
			if g.Name == gate {
				values[r.Spec.Identity] = g.Enabled
				lines = append(lines, fmt.Sprintf("%s=%t", r.Spec.Identity, g.Enabled))
			}
		}
	}
	return values, strings.Join(lines, " ")
}

// canaryRollout rolls canaryGate's other value out in two steps (one node,
// then all), checks that exactly one kubelet has it during the first step
// and every kubelet once the rollout is complete, then takes the rollout
// off and the desired state back.
func canaryRollout(t *testing.T, c kindCluster) {
	t.Helper()
	cp := c.cp
	feature := featuresv1alpha1.FeatureName(canaryGate)
	var management, desired string
	if err := poll(2*time.Minute, func() bool {
		out, _ := cp.kubectl("get", "feature", feature, "-n", "kube-system", "-o", "jsonpath={.spec.management} {.spec.desiredState}")
		management, desired, _ = strings.Cut(out, " ")
		return management == "Dynamic" && desired != ""
	}); err != nil {
		t.Fatalf("%s is managed %q (desired %q), want Dynamic (hack/kind/featureflags.yaml)", feature, management, desired)
	}
	before := desired == "Enabled"
	var values map[string]bool
	var listing string
	if err := poll(2*time.Minute, func() bool {
		values, listing = kubeletValues(cp, canaryGate)
		if len(values) != 3 {
			return false
		}
		for _, v := range values {
			if v != before {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatalf("the three kubelets do not all report %s=%t: %s", canaryGate, before, listing)
	}
	to := "Disabled"
	if !before {
		to = "Enabled"
	}
	start := time.Now()
	cp.mustKubectl("patch", "feature", feature, "-n", "kube-system", "--type=merge", "-p",
		fmt.Sprintf(`{"spec":{"desiredState":%q,"rollout":{"steps":[{"count":1,"soakSeconds":20},{"percent":100,"soakSeconds":5}],"analysis":{"intervalSeconds":2}}}}`, to))

	// The first step: one kubelet has the new value, the two others not.
	var phase string
	if err := poll(2*time.Minute, func() bool {
		phase, _ = cp.kubectl("get", "feature", feature, "-n", "kube-system", "-o",
			"jsonpath={.status.rollout.phase} {.status.rollout.step} {.status.rollout.members}/{.status.rollout.candidates}")
		values, listing = kubeletValues(cp, canaryGate)
		changed := 0
		for _, v := range values {
			if v != before {
				changed++
			}
		}
		return phase == "Progressing 1 1/3" && changed == 1
	}); err != nil {
		t.Fatalf("the first step did not give the new value to exactly one kubelet: rollout %q, kubelets %s", phase, listing)
	}
	firstStep := time.Since(start)
	if err := poll(3*time.Minute, func() bool {
		phase, _ = cp.kubectl("get", "feature", feature, "-n", "kube-system", "-o", "jsonpath={.status.rollout.phase}")
		values, listing = kubeletValues(cp, canaryGate)
		for _, v := range values {
			if v == before {
				return false
			}
		}
		return phase == "Complete" && len(values) == 3
	}); err != nil {
		t.Fatalf("the rollout did not complete with every kubelet at %s: rollout %q, kubelets %s", to, phase, listing)
	}
	t.Logf("canary rollout of %s=%s on 3 real kubelets: one kubelet had it %v after the patch, all three and Complete after %v; events:\n%s",
		canaryGate, to, firstStep.Round(time.Second), time.Since(start).Round(time.Second),
		cp.mustKubectl("get", "events", "-n", "kube-system", "--field-selector", "involvedObject.name="+feature, "-o", "custom-columns=REASON:.reason,MESSAGE:.message"))

	// Back as it was, without a rollout.
	cp.mustKubectl("patch", "feature", feature, "-n", "kube-system", "--type=merge", "-p",
		fmt.Sprintf(`{"spec":{"desiredState":%q,"rollout":null}}`, desired))
	if err := poll(2*time.Minute, func() bool {
		values, listing = kubeletValues(cp, canaryGate)
		for _, v := range values {
			if v != before {
				return false
			}
		}
		return len(values) == 3
	}); err != nil {
		t.Errorf("the kubelets did not go back to %s=%t: %s", canaryGate, before, listing)
	}
}
