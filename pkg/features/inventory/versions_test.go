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
)

// TestVersionChanges reads the generated file: consecutive steps over the
// versions the binary emulates, and upstream facts of v1.37.2 in them.
func TestVersionChanges(t *testing.T) {
	vc, err := LoadVersionChanges()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(vc.Versions, " "); got != "1.34 1.35 1.36 1.37" || vc.BinaryVersion != "1.37" {
		t.Fatalf("versions %q of binary %s", got, vc.BinaryVersion)
	}
	last := vc.Steps[len(vc.Steps)-1]
	found := false
	for _, c := range last.StorageVersions {
		if c.Resource == "mutatingadmissionpolicies.admissionregistration.k8s.io" && c.From == "v1beta1" && c.To == "v1" {
			found = true
		}
	}
	if !found {
		t.Errorf("1.36 -> 1.37 does not move mutatingadmissionpolicies from v1beta1 to v1: %+v", last.StorageVersions)
	}
	for _, s := range vc.Steps {
		for _, g := range s.Gates {
			if g.From == nil && g.To == nil || g.From != nil && g.To != nil && *g.From == *g.To {
				t.Errorf("%s -> %s lists %s with no change", s.From, s.To, g.Gate)
			}
			switch g.Lifecycle {
			case "explicit", "derived", "none":
			default:
				t.Errorf("%s: lifecycle %q", g.Gate, g.Lifecycle)
			}
		}
	}
}

func TestParseVersionChangesRefusesGaps(t *testing.T) {
	_, err := ParseVersionChanges([]byte(`binaryVersion: "1.37"
versions: ["1.35", "1.36", "1.37"]
rule: r
steps:
- {from: "1.35", to: "1.36"}
- {from: "1.35", to: "1.37"}
`))
	if err == nil || !strings.Contains(err.Error(), "step 1 goes from 1.35 to 1.37, want 1.36 to 1.37") {
		t.Errorf("err = %v", err)
	}
}
