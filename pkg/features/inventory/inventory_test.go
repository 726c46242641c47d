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

package inventory

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestGeneratedFilesAreEmbedded fails on a build without the generated
// files, which would read as an inventory with no footprints and no
// version changes.
func TestGeneratedFilesAreEmbedded(t *testing.T) {
	for _, name := range []string{InventoryFile, RefusedRewritesFile, VersionChangesFile} {
		if len(readGenerated(name)) == 0 {
			t.Errorf("%s is not generated; run make update", name)
		}
	}
	if got := readGenerated("zz_generated.never-written.yaml"); got != nil {
		t.Errorf("a file never generated reads as %q, want nothing", got)
	}
	inv, err := Parse(readGenerated("zz_generated.never-written.yaml"))
	if err != nil {
		t.Fatalf("a missing inventory: %v", err)
	}
	if len(inv.Gates) != 0 {
		t.Errorf("a missing inventory parses as %d gates, want none", len(inv.Gates))
	}
}

func TestLoad(t *testing.T) {
	inv, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Gates) == 0 || inv.GatesExamined < len(inv.Gates)+len(inv.GatesWithoutFieldFootprint) {
		t.Errorf("%d gates examined, %d with and %d without a footprint", inv.GatesExamined, len(inv.Gates), len(inv.GatesWithoutFieldFootprint))
	}
	paths := inv.Gates["MaxUnavailableStatefulSet"].FieldPaths()
	ss := paths[schema.GroupResource{Group: "apps", Resource: "statefulsets"}]
	if len(ss) != 1 || ss[0].String() != "spec.updateStrategy.rollingUpdate.maxUnavailable" {
		t.Errorf("MaxUnavailableStatefulSet's statefulsets paths: %v", ss)
	}
	if gv, err := inv.Version(schema.GroupResource{Resource: "pods"}); err != nil || gv.String() != "v1" {
		t.Errorf("Version(pods) = %v, %v", gv, err)
	}
	// pkg/api/pod/util.go dropContainerRestartRules keeps restartPolicy
	// Always of init containers (sidecars, GA) and drops the others.
	crr := inv.Gates["ContainerRestartRules"]
	if got := crr.KeptValues(schema.GroupResource{Resource: "pods"}, "spec.initContainers[*].restartPolicy"); len(got) != 1 || got[0] != "Always" {
		t.Errorf("ContainerRestartRules keeps %v of pods' init containers' restartPolicy, want [Always]", got)
	}
	if got := crr.KeptValues(schema.GroupResource{Resource: "pods"}, "spec.containers[*].restartPolicy"); len(got) != 0 {
		t.Errorf("ContainerRestartRules keeps %v of pods' containers' restartPolicy, want none", got)
	}
	// pkg/apis/core/validation: a toleration's operator Gt or Lt needs
	// TaintTolerationComparisonOperators.
	if got := inv.Refused("TaintTolerationComparisonOperators")[schema.GroupResource{Resource: "pods"}]["spec.tolerations[*].operator"]; strings.Join(got, ",") != "Gt,Lt" {
		t.Errorf("TaintTolerationComparisonOperators refuses %v of pods' tolerations' operator, want [Gt Lt]", got)
	}
	if got := inv.ServedOnlyWith("PodCertificateRequest"); len(got) != 1 || got[0].String() != "podcertificaterequests.certificates.k8s.io" {
		t.Errorf("ServedOnlyWith(PodCertificateRequest) = %v", got)
	}
}

func TestParseRefuses(t *testing.T) {
	base := "upstreamVersion: v1\nresourcesExamined: 1\nresources:\n  pods: v1\n"
	for name, tc := range map[string]struct{ data, want string }{
		"unknown key":       {base + "gatesWithFieldFootprint: 0\nsurprise: 1\n", "surprise"},
		"count mismatch":    {base + "gatesWithFieldFootprint: 2\ngates:\n  A:\n    fields:\n      pods: [spec.a]\n", "gatesWithFieldFootprint is 2"},
		"resource unknown":  {base + "gatesWithFieldFootprint: 1\ngates:\n  A:\n    fields:\n      jobs.batch: [spec.a]\n", "jobs.batch is not among"},
		"bad path":          {base + "gatesWithFieldFootprint: 1\ngates:\n  A:\n    fields:\n      pods: [\"spec.a[0]\"]\n", "only [*]"},
		"version of other":  {"resourcesExamined: 1\nresources:\n  pods: apps/v1\ngatesWithFieldFootprint: 1\ngates:\n  A:\n    fields:\n      pods: [spec.a]\n", "another group"},
		"keeps of no field": {base + "gatesWithFieldFootprint: 1\ngates:\n  A:\n    fields:\n      pods: [spec.a]\n    keeps:\n      pods:\n        spec.b: [X]\n", "not among its fields"},
		"keeps nothing":     {base + "gatesWithFieldFootprint: 1\ngates:\n  A:\n    fields:\n      pods: [spec.a]\n    keeps:\n      pods:\n        spec.a: []\n", "no kept values"},
		"values counted":    {base + "gatesWithFieldFootprint: 0\ngatesWithValueFootprint: 1\n", "gatesWithValueFootprint is 1"},
		"values of unknown": {base + "gatesWithFieldFootprint: 0\ngatesWithValueFootprint: 1\nrefusedValues:\n  A:\n    jobs.batch:\n      spec.a: [X]\n", "jobs.batch is not among"},
		"no values":         {base + "gatesWithFieldFootprint: 0\ngatesWithValueFootprint: 1\nrefusedValues:\n  A:\n    pods:\n      spec.a: []\n", "none listed"},
		"values bad path":   {base + "gatesWithFieldFootprint: 0\ngatesWithValueFootprint: 1\nrefusedValues:\n  A:\n    pods:\n      spec.a[*]: [X]\n", "ends with [*]"},
		"resources counted": {"resourcesExamined: 2\nresources:\n  pods: v1\ngatesWithFieldFootprint: 0\n", "resourcesExamined is 2"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
