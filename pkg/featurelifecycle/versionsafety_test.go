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

package featurelifecycle

import (
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/testutil"

	"k8s.io/kubernetes/pkg/features/inventory"
)

// TestVersionSafety: the conditions follow the generated version changes
// of this binary, for one Feature, with stable messages.
func TestVersionSafety(t *testing.T) {
	vc, err := inventory.LoadVersionChanges()
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(time.Unix(1000, 0))
	type want struct{ status, reason, says string }
	for name, c := range map[string]struct {
		gate             string
		state            featuresv1alpha1.FeatureState
		version          string
		uses             string
		upgrade, downgrd want
	}{
		"on by default at 1.37, off by default at 1.36": {
			gate: "MaxUnavailableStatefulSet", state: featuresv1alpha1.FeatureStateEnabled, version: "1.37",
			upgrade: want{"Unknown", "NoVersionKnown", "no version higher than 1.37"},
			downgrd: want{"False", "TurnsOffAtTarget", "turn it off and wait for its Feature to be Disabled"},
		},
		"on, with the stored objects that use it": {
			gate: "MaxUnavailableStatefulSet", state: featuresv1alpha1.FeatureStateEnabled, version: "1.37",
			uses:    "stored objects use it: 12 statefulsets.apps (default/web, ...)",
			downgrd: want{"False", "TurnsOffAtTarget", "before moving to 1.36, or keep it on at 1.36 with --feature-gates=MaxUnavailableStatefulSet=true (and pass it to this check); stored objects use it: 12 statefulsets.apps (default/web, ...)"},
		},
		"pending version-keyed task: both blocked": {
			gate: "MutatingAdmissionPolicy", state: featuresv1alpha1.FeatureStateEnabled, version: "1.37",
			downgrd: want{"False", "VersionTaskPending", "has version-keyed tasks left (migrate-storage-to-1-37 first): wait until they are done before moving to 1.36"},
		},
		"off: the downgrade is safe": {
			gate: "MaxUnavailableStatefulSet", state: featuresv1alpha1.FeatureStateDisabled, version: "1.37",
			downgrd: want{"True", "NothingBlocks", "from 1.37 to 1.36"},
		},
		"in transition: both blocked": {
			gate: "MaxUnavailableStatefulSet", state: featuresv1alpha1.FeatureStateDisabling, version: "1.36",
			upgrade: want{"False", "InTransition", "wait until it is settled before moving to 1.37"},
			downgrd: want{"False", "InTransition", "before moving to 1.35"},
		},
		"turns on at the next version": {
			gate: "MaxUnavailableStatefulSet", state: featuresv1alpha1.FeatureStateDisabled, version: "1.36",
			upgrade: want{"True", "TurnsOnAtTarget", "it turns on"},
		},
		"stricter once on at the next version, with the stored objects it will refuse": {
			gate: "StrictIPCIDRValidation", state: featuresv1alpha1.FeatureStateDisabled, version: "1.35",
			uses:    "turning it on waits for stored objects its rules refuse: 1 endpoints (default/sloppy-ip)",
			upgrade: want{"True", "TurnsOnAtTarget", "it turns on (Enabling, then Enabled); turning it on waits for stored objects its rules refuse: 1 endpoints (default/sloppy-ip)"},
			downgrd: want{"True", "NothingBlocks", "from 1.35 to 1.34"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			status := &featuresv1alpha1.FeatureStatus{State: c.state, Version: c.version}
			if c.downgrd.reason == "VersionTaskPending" {
				status.Tasks = []featuresv1alpha1.FeatureTask{{Name: "migrate-storage-to-1-37"}}
			}
			safety := newVersionSafety(vc)
			safety.set(c.gate, status, 3, c.uses, now)
			for cond, w := range map[string]want{featuresv1alpha1.FeatureConditionUpgradeSafe: c.upgrade, featuresv1alpha1.FeatureConditionDowngradeSafe: c.downgrd} {
				got := meta.FindStatusCondition(status.Conditions, cond)
				if got == nil {
					t.Fatalf("no %s condition", cond)
				}
				if w.status == "" {
					continue
				}
				if string(got.Status) != w.status || got.Reason != w.reason || !strings.Contains(got.Message, w.says) || got.ObservedGeneration != 3 {
					t.Errorf("%s = %s/%s %q (generation %d), want %s/%s saying %q", cond, got.Status, got.Reason, got.Message, got.ObservedGeneration, w.status, w.reason, w.says)
				}
				direction := map[string]string{featuresv1alpha1.FeatureConditionUpgradeSafe: "upgrade", featuresv1alpha1.FeatureConditionDowngradeSafe: "downgrade"}[cond]
				v, err := testutil.GetGaugeMetricValue(versionChangeBlocked.WithLabelValues(c.gate, direction))
				if err != nil {
					t.Fatal(err)
				}
				if (v == 1) != (w.status == "False") {
					t.Errorf("%s blocked metric = %v for %s", direction, v, w.status)
				}
			}
			// A second sync changes nothing.
			before := status.DeepCopy()
			safety.set(c.gate, status, 3, c.uses, metav1.NewTime(now.Add(time.Minute)))
			if !equalConditions(before.Conditions, status.Conditions) {
				t.Errorf("a second sync changed the conditions:\n%+v\n%+v", before.Conditions, status.Conditions)
			}
		})
	}
}

func equalConditions(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
