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
	"slices"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// TestManagementsAreChangeableGates: every gate the registry lets be
// managed beyond the command line is a gate of this release that can still
// be set (not locked to its default).
func TestManagementsAreChangeableGates(t *testing.T) {
	all := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	for gate, m := range Managements {
		spec, ok := all[gate]
		if !ok {
			t.Errorf("%s: not a gate of this release", gate)
			continue
		}
		if spec.LockToDefault {
			t.Errorf("%s: locked to its default, nothing to manage", gate)
		}
		if !m.Central && !m.Dynamic {
			t.Errorf("%s: allows no mode beyond the command line; remove the entry", gate)
		}
		// A component applies one gate's desired state at a time: a gate
		// another depends on could not be turned off alone.
		for dependent, dependencies := range utilfeature.DefaultFeatureGate.DeepCopy().Dependencies() {
			if slices.Contains(dependencies, gate) {
				t.Errorf("%s: %s depends on it, so it cannot change alone", gate, dependent)
			}
		}
	}
}

func TestOptIns(t *testing.T) {
	known := func(g featuregate.Feature) bool {
		_, ok := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()[g]
		return ok
	}
	modes, err := OptIns([]string{"MaxUnavailableStatefulSet", "PodDeletionCost"}, []string{"ExtendWebSocketsToKubelet"}, known)
	if err != nil {
		t.Fatal(err)
	}
	if modes["MaxUnavailableStatefulSet"] != featuresv1alpha1.FeatureManagementCentral || modes["ExtendWebSocketsToKubelet"] != featuresv1alpha1.FeatureManagementDynamic || len(modes) != 3 {
		t.Fatalf("modes %v", modes)
	}
	for _, tc := range []struct {
		central, dynamic []string
		want             []string
	}{
		{nil, []string{"MaxUnavailableStatefulSet"}, []string{"--feature-lifecycle-dynamic-gates: MaxUnavailableStatefulSet cannot be Dynamic: its entry in the lifecycle registry does not allow it (gates that can: ExtendWebSocketsToKubelet, PodDeletionCost)"}},
		{[]string{"ExtendWebSocketsToKubelet"}, nil, []string{"--feature-lifecycle-central-gates: ExtendWebSocketsToKubelet cannot be Central"}},
		{[]string{"NoSuchGate"}, nil, []string{`--feature-lifecycle-central-gates: unknown feature gate "NoSuchGate"`}},
		{[]string{"PodDeletionCost"}, []string{"PodDeletionCost"}, []string{"PodDeletionCost is also in --feature-lifecycle-central-gates"}},
		{[]string{"SchedulerAsyncPreemption", "NoSuchGate"}, nil, []string{"SchedulerAsyncPreemption cannot be Central", `unknown feature gate "NoSuchGate"`}},
	} {
		_, err := OptIns(tc.central, tc.dynamic, known)
		for _, want := range tc.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("central %v dynamic %v: error %v, want one containing %q", tc.central, tc.dynamic, err, want)
			}
		}
	}
}
