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

package transition

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

func TestDrift(t *testing.T) {
	cases := []struct {
		name  string
		state featuresv1alpha1.FeatureState
		uses  []featuresv1alpha1.FeatureUse
		want  []string
	}{
		{"off, kubelet on", sOff, []featuresv1alpha1.FeatureUse{use("kubelet", true, "node-1"), use("kube-apiserver", false, "a")}, []string{"kubelet"}},
		{"on, kubelet off", sOn, []featuresv1alpha1.FeatureUse{use("kubelet", false, "node-1"), use("kubelet", true, "node-2")}, []string{"kubelet"}},
		{"all agree", sOn, []featuresv1alpha1.FeatureUse{use("kubelet", true, "n"), use("kube-apiserver", true, "a")}, nil},
		{"no uses", sOff, nil, nil},
		{
			name:  "sorted and deduplicated",
			state: sOff,
			uses: []featuresv1alpha1.FeatureUse{
				use("kubelet", true, "n1"), use("kube-scheduler", true, "s"), use("kubelet", true, "n2"),
				use("kube-apiserver", true, "a"), use("kube-controller-manager", false, "k"),
			},
			want: []string{"kube-apiserver", "kube-scheduler", "kubelet"},
		},
		{"use without reporters counts", sOff, []featuresv1alpha1.FeatureUse{use("kubelet", true)}, []string{"kubelet"}},
		{"turning on is not drift", sEnabling, []featuresv1alpha1.FeatureUse{use("kubelet", false, "n")}, nil},
		{"turning off is not drift", sDisabling, []featuresv1alpha1.FeatureUse{use("kubelet", true, "n")}, nil},
		{"empty state is not drift", sNone, []featuresv1alpha1.FeatureUse{use("kubelet", true, "n")}, nil},
		{"unknown state is not drift", "Upgrading", []featuresv1alpha1.FeatureUse{use("kubelet", true, "n")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Drift(tc.state, tc.uses); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Drift() = %#v, want %#v", got, tc.want)
			}
		})
	}
}

type cond struct {
	status  metav1.ConditionStatus
	reason  string
	message string
}

func conditionsOf(t *testing.T, status *featuresv1alpha1.FeatureStatus, generation int64) map[string]cond {
	t.Helper()
	out := map[string]cond{}
	for _, c := range status.Conditions {
		if c.ObservedGeneration != generation {
			t.Errorf("condition %s: observedGeneration %d, want %d", c.Type, c.ObservedGeneration, generation)
		}
		out[c.Type] = cond{c.Status, c.Reason, c.Message}
	}
	if len(status.Conditions) != 3 {
		t.Errorf("%d conditions, want 3: %+v", len(status.Conditions), status.Conditions)
	}
	return out
}

func TestSetConditions(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	agreedOn := Configuration{Enabled: []string{"apiserver-a", "apiserver-b"}}
	split := Configuration{Enabled: []string{"apiserver-a", "apiserver-b"}, Disabled: []string{"apiserver-c"}}
	const (
		T = metav1.ConditionTrue
		F = metav1.ConditionFalse
	)
	cases := []struct {
		name      string
		status    featuresv1alpha1.FeatureStatus
		desired   featuresv1alpha1.FeatureDesiredState
		c         Configuration
		agreed    bool
		converged cond
		usesAgree cond
		config    cond
	}{
		{
			name:      "converged on",
			status:    featuresv1alpha1.FeatureStatus{State: sOn, Uses: []featuresv1alpha1.FeatureUse{use("kubelet", true, "n")}},
			desired:   dOn,
			c:         agreedOn,
			agreed:    true,
			converged: cond{T, ReasonConverged, "the feature is Enabled and no task is left"},
			usesAgree: cond{T, ReasonAllUsesAgree, "all uses report enabled=true"},
			config:    cond{T, ReasonAgreed, "apiservers agree: Enabled on apiserver-a, apiserver-b"},
		},
		{
			name:      "drift while off",
			status:    featuresv1alpha1.FeatureStatus{State: sOff, Uses: []featuresv1alpha1.FeatureUse{use("kubelet", true, "n"), use("kube-apiserver", false, "a")}},
			desired:   dOff,
			c:         Configuration{Disabled: []string{"a"}},
			agreed:    true,
			converged: cond{T, ReasonConverged, "the feature is Disabled and no task is left"},
			usesAgree: cond{F, ReasonUsesDisagree, "kubelet reports enabled=true while the feature is Disabled"},
			config:    cond{T, ReasonAgreed, "apiservers agree: Disabled on a"},
		},
		{
			name: "several drifting components",
			status: featuresv1alpha1.FeatureStatus{State: sOff, Uses: []featuresv1alpha1.FeatureUse{
				use("kubelet", true, "n"), use("kube-scheduler", true, "s")}},
			desired:   dOff,
			converged: cond{T, ReasonConverged, "the feature is Disabled and no task is left"},
			usesAgree: cond{F, ReasonUsesDisagree, "kube-scheduler, kubelet report enabled=true while the feature is Disabled"},
			agreed:    true,
			config:    cond{T, ReasonAgreed, "no apiserver reports the gate"},
		},
		{
			name: "transition in progress names the active task",
			status: featuresv1alpha1.FeatureStatus{State: sDisabling, Tasks: []featuresv1alpha1.FeatureTask{
				{Name: "clear-fields", Message: "migrating statefulsets", Progress: "12000/50000 objects"},
				{Name: "wait-for-absence"},
			}, Uses: []featuresv1alpha1.FeatureUse{use("kube-controller-manager", true, "k")}},
			desired:   dOff,
			c:         split,
			agreed:    false,
			converged: cond{F, ReasonTransitionInProgress, "state Disabling, desired Disabled: active task clear-fields (1 of 2): migrating statefulsets (12000/50000 objects)"},
			usesAgree: cond{F, ReasonUsesDisagree, "kube-controller-manager reports enabled=true while the feature is Disabling"},
			config:    cond{F, ReasonDisagreed, "apiservers disagree: Enabled on apiserver-a, apiserver-b; Disabled on apiserver-c"},
		},
		{
			name: "active task without message uses its description",
			status: featuresv1alpha1.FeatureStatus{State: sEnabling, Tasks: []featuresv1alpha1.FeatureTask{
				{Name: "wait-for-uses", Description: "wait until no component reports the old value"},
			}},
			desired:   dOn,
			c:         agreedOn,
			agreed:    true,
			converged: cond{F, ReasonTransitionInProgress, "state Enabling, desired Enabled: active task wait-for-uses (1 of 1): wait until no component reports the old value"},
			usesAgree: cond{T, ReasonAllUsesAgree, "no use reported"},
			config:    cond{T, ReasonAgreed, "apiservers agree: Enabled on apiserver-a, apiserver-b"},
		},
		{
			name:      "transitional state with no task left",
			status:    featuresv1alpha1.FeatureStatus{State: sEnabling, Uses: []featuresv1alpha1.FeatureUse{use("kubelet", true, "n")}},
			desired:   dOn,
			agreed:    true,
			converged: cond{F, ReasonTransitionInProgress, "state Enabling, desired Enabled: no task left, the state becomes Enabled next"},
			usesAgree: cond{T, ReasonAllUsesAgree, "all uses report enabled=true"},
			config:    cond{T, ReasonAgreed, "no apiserver reports the gate"},
		},
		{
			name:      "final state with stray tasks is not converged",
			status:    featuresv1alpha1.FeatureStatus{State: sOn, Tasks: []featuresv1alpha1.FeatureTask{{Name: "x"}}},
			desired:   dOn,
			agreed:    true,
			converged: cond{F, ReasonTransitionInProgress, "state Enabled, desired Enabled: active task x (1 of 1)"},
			usesAgree: cond{T, ReasonAllUsesAgree, "no use reported"},
			config:    cond{T, ReasonAgreed, "no apiserver reports the gate"},
		},
		{
			name:      "transition not started",
			status:    featuresv1alpha1.FeatureStatus{State: sOn},
			desired:   dOff,
			c:         Configuration{Disabled: []string{"a"}},
			agreed:    true,
			converged: cond{F, ReasonWaitingForDesiredState, "state Enabled, desired Disabled: the transition has not started"},
			usesAgree: cond{T, ReasonAllUsesAgree, "no use reported"},
			config:    cond{T, ReasonAgreed, "apiservers agree: Disabled on a"},
		},
		{
			name:      "no desired state yet",
			status:    featuresv1alpha1.FeatureStatus{},
			desired:   dNone,
			c:         split,
			agreed:    false,
			converged: cond{F, ReasonWaitingForDesiredState, "state none, no desired state yet"},
			usesAgree: cond{T, ReasonAllUsesAgree, "state none: no final state to compare uses with"},
			config:    cond{F, ReasonDisagreed, "apiservers disagree: Enabled on apiserver-a, apiserver-b; Disabled on apiserver-c"},
		},
		{
			name:      "disagreement without names",
			status:    featuresv1alpha1.FeatureStatus{State: sOff},
			desired:   dOff,
			agreed:    false,
			converged: cond{T, ReasonConverged, "the feature is Disabled and no task is left"},
			usesAgree: cond{T, ReasonAllUsesAgree, "no use reported"},
			config:    cond{F, ReasonDisagreed, "apiservers disagree"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			SetConditions(&status, 7, tc.desired, tc.c, tc.agreed, "", now)
			got := conditionsOf(t, &status, 7)
			want := map[string]cond{
				featuresv1alpha1.FeatureConditionConverged:           tc.converged,
				featuresv1alpha1.FeatureConditionUsesAgree:           tc.usesAgree,
				featuresv1alpha1.FeatureConditionConfigurationAgreed: tc.config,
			}
			for typ, w := range want {
				if got[typ] != w {
					t.Errorf("%s = %+v\nwant %+v", typ, got[typ], w)
				}
			}
			for _, c := range status.Conditions {
				if !c.LastTransitionTime.Equal(&now) {
					t.Errorf("%s: lastTransitionTime %v, want %v", c.Type, c.LastTransitionTime, now)
				}
			}
		})
	}
}

// TestSetConditionsTransitionTime: lastTransitionTime moves only when a
// condition's status changes, not when its reason, message or generation do.
func TestSetConditionsTransitionTime(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	t2 := metav1.NewTime(t0.Add(2 * time.Minute))
	t3 := metav1.NewTime(t0.Add(3 * time.Minute))
	ltt := func(status *featuresv1alpha1.FeatureStatus, typ string) metav1.Time {
		c := meta.FindStatusCondition(status.Conditions, typ)
		if c == nil {
			t.Fatalf("no %s condition", typ)
		}
		return c.LastTransitionTime
	}
	check := func(step string, status *featuresv1alpha1.FeatureStatus, typ string, want metav1.Time) {
		t.Helper()
		if got := ltt(status, typ); !got.Equal(&want) {
			t.Errorf("%s: %s lastTransitionTime %v, want %v", step, typ, got, want)
		}
	}
	on := Configuration{Enabled: []string{"a"}}

	// Start converged Enabled.
	status := &featuresv1alpha1.FeatureStatus{State: sOn}
	SetConditions(status, 1, dOn, on, true, "", t0)
	before := status.DeepCopy()

	// Same inputs again at t1: nothing changes, not even the times.
	SetConditions(status, 1, dOn, on, true, "", t1)
	if !reflect.DeepEqual(status, before) {
		t.Errorf("repeating SetConditions changed the status:\n%+v\nwant\n%+v", status, before)
	}

	// New generation, new message, same status: times stay.
	status.Uses = []featuresv1alpha1.FeatureUse{use("kubelet", true, "n")}
	SetConditions(status, 2, dOn, Configuration{Enabled: []string{"a", "b"}}, true, "", t1)
	for _, typ := range []string{featuresv1alpha1.FeatureConditionConverged, featuresv1alpha1.FeatureConditionUsesAgree, featuresv1alpha1.FeatureConditionConfigurationAgreed} {
		check("generation 2", status, typ, t0)
	}

	// Desired Disabled: transition starts at t2; Converged flips, others do not.
	status.State, status.Tasks = sDisabling, []featuresv1alpha1.FeatureTask{{Name: "wait-for-uses"}}
	SetConditions(status, 2, dOff, Configuration{Disabled: []string{"a", "b"}}, true, "", t2)
	check("turning off", status, featuresv1alpha1.FeatureConditionConverged, t2)
	check("turning off", status, featuresv1alpha1.FeatureConditionConfigurationAgreed, t0)
	check("turning off", status, featuresv1alpha1.FeatureConditionUsesAgree, t2) // kubelet still reports true

	// The transition finished Disabled but desired is Enabled again, not yet stepped:
	// Converged's reason changes (TransitionInProgress ->
	// WaitingForDesiredState) while it stays False, so its time stays.
	status.State, status.Tasks = sOff, nil
	SetConditions(status, 2, dOn, on, true, "", t3)
	if c := meta.FindStatusCondition(status.Conditions, featuresv1alpha1.FeatureConditionConverged); c.Reason != ReasonWaitingForDesiredState {
		t.Errorf("Converged reason %q, want %s", c.Reason, ReasonWaitingForDesiredState)
	}
	check("reason change", status, featuresv1alpha1.FeatureConditionConverged, t2)

	// A nil status is ignored.
	SetConditions(nil, 1, dOn, on, true, "", t3)
}
