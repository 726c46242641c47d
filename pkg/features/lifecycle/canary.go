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
	"fmt"
	"slices"
	"strings"

	"k8s.io/component-base/featuregate"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// Canary says which components a canary rollout of a gate may give the new
// value before the others (the KEP's canary follow-up): a few nodes'
// kubelets, or some of the apiservers.
type Canary uint8

const (
	// CanaryNodes: a rollout picks nodes; their kubelets apply the new
	// value, the others keep the old one.
	CanaryNodes Canary = 1 << iota
	// CanaryAPIServers: a rollout picks apiservers by their identity.
	CanaryAPIServers
)

// String names the scope: "nodes", "apiservers" or "nodes and apiservers".
func (c Canary) String() string {
	var parts []string
	if c&CanaryNodes != 0 {
		parts = append(parts, "nodes")
	}
	if c&CanaryAPIServers != 0 {
		parts = append(parts, "apiservers")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " and ")
}

// Canaries are the gates that can be rolled out to a few components first,
// and where. A gate can only when it takes no configuration and its
// components apply a change while running, or restart cleanly, and when a
// cluster whose components disagree on it for the length of a rollout
// still works: each entry says why (its Managements entry says where the
// components read it). Every other gate refuses a rollout.
var Canaries = map[featuregate.Feature]Canary{
	// The kubelet reads the gate on every exec, attach and port-forward
	// request it serves, and serves the older protocol either way, so nodes
	// may disagree. The apiservers are not canaries: one that proxies
	// WebSockets to a kubelet without the gate breaks those requests, so
	// they take the new value once every node has it.
	kubefeatures.ExtendWebSocketsToKubelet: CanaryNodes,
}

// CanCanary says whether gate can be rolled out to scope first, with an
// error naming the gates that can otherwise.
func CanCanary(gate featuregate.Feature, scope Canary) error {
	allowed, ok := Canaries[gate]
	if scope == 0 {
		return fmt.Errorf("a rollout of %s names no components to canary", gate)
	}
	if ok && allowed&scope == scope {
		return nil
	}
	var gates []string
	for g, c := range Canaries {
		gates = append(gates, fmt.Sprintf("%s (%s)", g, c))
	}
	slices.Sort(gates)
	if !ok {
		return fmt.Errorf("%s cannot be rolled out in steps: the lifecycle registry does not declare it safe to canary (gates that can: %s)",
			gate, strings.Join(gates, ", "))
	}
	return fmt.Errorf("%s cannot canary on %s, only on %s (gates that can: %s)", gate, scope, allowed, strings.Join(gates, ", "))
}
