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

// Which gates can be rolled out to a few components first (the KEP's
// canary follow-up) and where: the lifecycle registry's entry for
// canaries, here beside the rollouts' state machine so that the admission
// plugin that refuses the others can use it without the registry's tasks.

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/component-base/featuregate"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// Scope says which components a canary rollout of a gate may give the new
// value before the others (the KEP's canary follow-up): a few nodes'
// kubelets, or some of the apiservers.
type Scope uint8

const (
	// Nodes: a rollout picks nodes; their kubelets apply the new
	// value, the others keep the old one.
	Nodes Scope = 1 << iota
	// APIServers: a rollout picks apiservers by their identity.
	APIServers
)

// String names the scope: "nodes", "apiservers" or "nodes and apiservers".
func (c Scope) String() string {
	var parts []string
	if c&Nodes != 0 {
		parts = append(parts, "nodes")
	}
	if c&APIServers != 0 {
		parts = append(parts, "apiservers")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " and ")
}

// Gates are the gates that can be rolled out to a few components first,
// and where: one scope per gate (a gate that both nodes and apiservers
// read canaries on one of them, and the other takes the new value when
// the rollout completes). A gate can only when it takes no configuration and its
// components apply a change while running, or restart cleanly, and when a
// cluster whose components disagree on it for the length of a rollout
// still works: each entry says why (its Managements entry says where the
// components read it). Every other gate refuses a rollout.
var Gates = map[featuregate.Feature]Scope{
	// The kubelet reads the gate on every exec, attach and port-forward
	// request it serves, and serves the older protocol either way, so nodes
	// may disagree. The apiservers are not canaries: one that proxies
	// WebSockets to a kubelet without the gate breaks those requests, so
	// they take the new value once every node has it.
	kubefeatures.ExtendWebSocketsToKubelet: Nodes,
}

// Check says whether gate can be rolled out to scope first, with an
// error naming the gates that can otherwise.
func Check(gate featuregate.Feature, scope Scope) error {
	allowed, ok := Gates[gate]
	if scope == 0 {
		return fmt.Errorf("a rollout of %s names no components to canary", gate)
	}
	if ok && allowed&scope == scope {
		return nil
	}
	var gates []string
	for g, c := range Gates {
		gates = append(gates, fmt.Sprintf("%s (%s)", g, c))
	}
	slices.Sort(gates)
	if !ok {
		return fmt.Errorf("%s cannot be rolled out in steps: the lifecycle registry does not declare it safe to canary (gates that can: %s)",
			gate, strings.Join(gates, ", "))
	}
	return fmt.Errorf("%s cannot canary on %s, only on %s (gates that can: %s)", gate, scope, allowed, strings.Join(gates, ", "))
}

// ScopeOf returns the components a rollout of gate picks its cohort from,
// and Check's error when the registry declares none. A gate canaries on
// one kind of component: the registry declares one scope per gate.
func ScopeOf(gate featuregate.Feature) (Scope, error) {
	scope := Gates[gate]
	if scope == 0 {
		return 0, Check(gate, Nodes)
	}
	return scope, nil
}

// CheckRollout says whether the named gate can roll out in steps, and
// whether a step may select its components by label (bySelector): only
// nodes have labels (the FeatureStatus admission plugin's WithCanaries).
func CheckRollout(gate string, bySelector bool) error {
	scope, err := ScopeOf(featuregate.Feature(gate))
	if err != nil {
		return err
	}
	if bySelector && scope != Nodes {
		return fmt.Errorf("%s canaries on %s, which have no labels: a step cannot select them by label; give a count or a percent", gate, scope)
	}
	return nil
}
