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

package versioncheck

import (
	"strings"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/features/inventory"
)

var changes = &inventory.VersionChanges{
	BinaryVersion: "1.37",
	Versions:      []string{"1.35", "1.36", "1.37"},
	Steps: []inventory.VersionStep{
		{From: "1.35", To: "1.36", Gates: []inventory.GateChange{
			{Gate: "Promoted", From: &inventory.GateStage{PreRelease: "Alpha"}, To: &inventory.GateStage{Default: true, PreRelease: "Beta"}},
			{Gate: "New", To: &inventory.GateStage{PreRelease: "Alpha"}},
		}},
		{From: "1.36", To: "1.37", Gates: []inventory.GateChange{
			{Gate: "New", From: &inventory.GateStage{PreRelease: "Alpha"}, To: &inventory.GateStage{PreRelease: "Beta"}},
			{Gate: "Later", From: &inventory.GateStage{PreRelease: "Alpha"}, To: &inventory.GateStage{Default: true, PreRelease: "Beta"}},
		}, StorageVersions: []inventory.StorageVersionChange{{Resource: "things.example.com", From: "v1beta1", To: "v1"}}},
	},
}

func feature(gate string, state featuresv1alpha1.FeatureState, version string) featuresv1alpha1.Feature {
	return featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(gate), Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: gate},
		Status:     featuresv1alpha1.FeatureStatus{State: state, Version: version},
	}
}

func reasons(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Gate+f.Resource+":"+f.Reason)
	}
	return strings.Join(out, " ")
}

func TestCheck(t *testing.T) {
	on, off := featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled
	for name, c := range map[string]struct {
		features      []featuresv1alpha1.Feature
		to            string
		gates         map[string]bool
		from          string
		blockers, chg string
	}{
		"downgrade keeping the feature on with the target's flags": {
			features: []featuresv1alpha1.Feature{feature("Promoted", on, "1.37"), feature("Later", off, "1.37")},
			to:       "1.35", gates: map[string]bool{"Promoted": true}, from: "1.37",
			chg: "Later:StageChanges Promoted:StageChanges things.example.com:StorageVersionChanges",
		},
		"the target's flags turn a feature off": {
			features: []featuresv1alpha1.Feature{feature("Promoted", on, "1.36")},
			to:       "1.37", gates: map[string]bool{"Promoted": false}, from: "1.36",
			blockers: "Promoted:TurnsOffAtTarget",
			chg:      "things.example.com:StorageVersionChanges",
		},
		"the target's flags set a gate it does not have": {
			features: []featuresv1alpha1.Feature{feature("New", off, "1.36")},
			to:       "1.35", gates: map[string]bool{"New": false}, from: "1.36",
			blockers: "New:GateMissingAtTarget",
		},
		"downgrade with a feature on by default that is off below": {
			features: []featuresv1alpha1.Feature{feature("Promoted", on, "1.37"), feature("Later", off, "1.37")},
			to:       "1.35", from: "1.37",
			blockers: "Promoted:TurnsOffAtTarget",
			chg:      "Later:StageChanges things.example.com:StorageVersionChanges",
		},
		"downgrade once it is off": {
			features: []featuresv1alpha1.Feature{feature("Promoted", off, "1.37")},
			to:       "1.35", from: "1.37",
			chg: "Promoted:StageChanges things.example.com:StorageVersionChanges",
		},
		"a gate on by flag that does not exist at the target": {
			features: []featuresv1alpha1.Feature{feature("New", on, "1.36")},
			to:       "1.35", from: "1.36",
			blockers: "New:GateMissingAtTarget",
		},
		"a gate on by flag that exists at the target stays on": {
			features: []featuresv1alpha1.Feature{feature("New", on, "1.37")},
			to:       "1.36", from: "1.37",
			chg: "New:StageChanges things.example.com:StorageVersionChanges",
		},
		"upgrade: what turns on, skipping a version": {
			features: []featuresv1alpha1.Feature{feature("Promoted", off, "1.35"), feature("Later", off, "1.35")},
			to:       "1.37", from: "1.35",
			chg: "Later:TurnsOnAtTarget Promoted:TurnsOnAtTarget things.example.com:StorageVersionChanges",
		},
		"a transition in progress blocks, from the lowest version": {
			features: []featuresv1alpha1.Feature{feature("Later", featuresv1alpha1.FeatureStateEnabling, "1.37"), feature("Promoted", on, "1.36")},
			to:       "1.37", from: "1.36",
			blockers: "Later:InTransition",
			chg:      "Later:TurnsOnAtTarget things.example.com:StorageVersionChanges",
		},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Check(c.features, changes, c.to, c.gates)
			if err != nil {
				t.Fatal(err)
			}
			if r.From != c.from || reasons(r.Blockers) != c.blockers || reasons(r.Changes) != c.chg {
				t.Errorf("from %s, blockers %q, changes %q; want from %s, blockers %q, changes %q", r.From, reasons(r.Blockers), reasons(r.Changes), c.from, c.blockers, c.chg)
			}
			if r.Safe() != (c.blockers == "") {
				t.Errorf("Safe() = %v", r.Safe())
			}
			for _, b := range r.Blockers {
				if !strings.Contains(b.Message, b.Gate) || !strings.Contains(b.Message, "wait") && !strings.Contains(b.Message, "turn it off") && !strings.Contains(b.Message, "remove it") {
					t.Errorf("blocker %q does not say what to do", b.Message)
				}
			}
		})
	}
}

func TestCheckRefusesUnknownVersions(t *testing.T) {
	if _, err := Check([]featuresv1alpha1.Feature{feature("Later", featuresv1alpha1.FeatureStateDisabled, "1.37")}, changes, "1.33", nil); err == nil || !strings.Contains(err.Error(), "can emulate 1.35, 1.36, 1.37") {
		t.Errorf("err = %v", err)
	}
	if _, err := Check(nil, changes, "1.36", nil); err == nil || !strings.Contains(err.Error(), "FeatureLifecycle") {
		t.Errorf("err = %v", err)
	}
}

// TestCheckQuotesStoredUses: a blocker of a feature that turns off at the
// target quotes what its leader last counted of the stored objects that
// use it, from its DowngradeSafe condition.
func TestCheckQuotesStoredUses(t *testing.T) {
	f := feature("Later", featuresv1alpha1.FeatureStateEnabled, "1.37")
	f.Status.Conditions = []metav1.Condition{{Type: featuresv1alpha1.FeatureConditionDowngradeSafe, Status: metav1.ConditionFalse, Reason: "TurnsOffAtTarget",
		Message: "Later is on ...; stored objects use it: 2 things.example.com (ns/a, ns/b)"}}
	r, err := Check([]featuresv1alpha1.Feature{f}, changes, "1.36", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Blockers) != 1 || !strings.HasSuffix(r.Blockers[0].Message, "; stored objects use it: 2 things.example.com (ns/a, ns/b)") {
		t.Errorf("the blocker must quote the stored uses: %+v", r.Blockers)
	}
}

// TestCheckVersionTaskPending: a settled Feature that still has the
// version-keyed tasks of the last move blocks the next one.
func TestCheckVersionTaskPending(t *testing.T) {
	f := feature("Promoted", featuresv1alpha1.FeatureStateEnabled, "1.37")
	f.Status.Tasks = []featuresv1alpha1.FeatureTask{{Name: "migrate-storage-to-1-37", Message: "rewrote 10 of 45 objects"}}
	r, err := Check([]featuresv1alpha1.Feature{f}, changes, "1.36", map[string]bool{"Promoted": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(r.Blockers); got != "Promoted:VersionTaskPending" || !strings.Contains(r.Blockers[0].Message, "migrate-storage-to-1-37: rewrote 10 of 45 objects") {
		t.Errorf("blockers %s: %+v", got, r.Blockers)
	}
}

// TestCheckFeature: a check of one Feature through the index finds what a
// check of the cluster finds of its gate, for every gate, state and move
// of the fixture (the storage version changes of other gates' resources
// left out).
func TestCheckFeature(t *testing.T) {
	x := NewIndex(changes)
	states := []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled,
		featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling}
	ofGate := func(gate string, fs []Finding) string {
		var out []Finding
		for _, f := range fs {
			if f.Gate == gate {
				out = append(out, f)
			}
		}
		return reasons(out)
	}
	checked := 0
	for _, gate := range []string{"Promoted", "New", "Later", "Unchanged"} {
		for _, state := range states {
			for _, from := range changes.Versions {
				for _, to := range changes.Versions {
					f := feature(gate, state, from)
					whole, err := Check([]featuresv1alpha1.Feature{f}, changes, to, nil)
					if err != nil {
						t.Fatal(err)
					}
					one, err := x.CheckFeature(&f, to)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := reasons(one.Blockers), ofGate(gate, whole.Blockers); got != want {
						t.Errorf("%s %s %s -> %s: blockers %q, want %q", gate, state, from, to, got, want)
					}
					if got, want := reasons(one.Changes), ofGate(gate, whole.Changes); got != want {
						t.Errorf("%s %s %s -> %s: changes %q, want %q", gate, state, from, to, got, want)
					}
					checked++
				}
			}
		}
	}
	if _, err := x.CheckFeature(&featuresv1alpha1.Feature{Spec: featuresv1alpha1.FeatureSpec{Gate: "Later"}}, "1.36"); err == nil {
		t.Errorf("a Feature without status.version cannot be checked")
	}
	if checked != 4*4*3*3 {
		t.Errorf("checked %d moves", checked)
	}
}

// BenchmarkCheckFeature: a check of one Feature costs what its gate costs,
// against a check of the cluster with that one Feature in the same run.
func BenchmarkCheckFeature(b *testing.B) {
	f := feature("Promoted", featuresv1alpha1.FeatureStateEnabled, "1.37")
	b.Run("before/one-feature", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := Check([]featuresv1alpha1.Feature{f}, changes, "1.36", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	x := NewIndex(changes)
	b.Run("after/one-feature", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := x.CheckFeature(&f, "1.36"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
