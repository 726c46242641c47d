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

package main

import (
	"os"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"
)

// committed is the inventory hack/update-lifecycle-data.sh writes.
const committed = "../../pkg/features/inventory/zz_generated.inventory.yaml"

// TestCommittedInventory checks that the committed inventory is YAML and
// lists fields known to be dropped by upstream's strategies when their
// (changeable at 1.37) gate is off: a sanity check of the generator that
// does not run it. hack/update-lifecycle-data.sh --check checks the file is fresh.
func TestCommittedInventory(t *testing.T) {
	data, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	var inv struct {
		GatesExamined           int `json:"gatesExamined"`
		ResourcesExamined       int `json:"resourcesExamined"`
		GatesWithFieldFootprint int `json:"gatesWithFieldFootprint"`
		Gates                   map[string]struct {
			TurnsOff []string            `json:"turnsOff"`
			Fields   map[string][]string `json:"fields"`
		} `json:"gates"`
	}
	if err := yaml.Unmarshal(data, &inv); err != nil {
		t.Fatalf("%s is not the inventory's YAML: %v", committed, err)
	}
	if inv.GatesWithFieldFootprint != len(inv.Gates) || inv.GatesWithFieldFootprint == 0 || inv.GatesExamined < inv.GatesWithFieldFootprint {
		t.Errorf("inconsistent counts: %d gates examined, %d with a footprint, %d listed", inv.GatesExamined, inv.GatesWithFieldFootprint, len(inv.Gates))
	}
	for _, want := range []struct{ gate, resource, path string }{
		// pkg/registry/apps/statefulset/strategy.go dropStatefulSetDisabledFields
		{"MaxUnavailableStatefulSet", "statefulsets.apps", "spec.updateStrategy.rollingUpdate.maxUnavailable"},
		// pkg/api/pod/util.go dropDisabledPodLevelResources (beta)
		{"PodLevelResources", "pods", "spec.resources"},
		// dropDisabledFields, MatchLabelKeysInPodTopologySpread (beta)
		{"MatchLabelKeysInPodTopologySpread", "pods", "spec.topologySpreadConstraints[*].matchLabelKeys"},
		// dropDisabledFields, ContainerStopSignals (alpha), in a workload's pod template
		{"ContainerStopSignals", "deployments.apps", "spec.template.spec.containers[*].lifecycle.stopSignal"},
		// dropDisabledFields, ContainerRestartRules
		{"ContainerRestartRules", "pods", "spec.containers[*].restartPolicyRules"},
	} {
		g, ok := inv.Gates[want.gate]
		if !ok {
			t.Errorf("%s has no field footprint", want.gate)
			continue
		}
		if !slices.Contains(g.Fields[want.resource], want.path) {
			t.Errorf("%s: %s does not list %s; it lists %v", want.gate, want.resource, want.path, g.Fields[want.resource])
		}
	}
	// Locked gates cannot be turned off, so they are not examined.
	if _, ok := inv.Gates["HostnameOverride"]; ok {
		t.Errorf("HostnameOverride is locked at 1.37 but has a footprint")
	}
}
