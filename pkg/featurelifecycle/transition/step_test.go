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
	"fmt"
	"reflect"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

const (
	sNone      = featuresv1alpha1.FeatureState("")
	sOn        = featuresv1alpha1.FeatureStateEnabled
	sOff       = featuresv1alpha1.FeatureStateDisabled
	sEnabling  = featuresv1alpha1.FeatureStateEnabling
	sDisabling = featuresv1alpha1.FeatureStateDisabling

	dNone = featuresv1alpha1.FeatureDesiredState("")
	dOn   = featuresv1alpha1.FeatureDesiredStateEnabled
	dOff  = featuresv1alpha1.FeatureDesiredStateDisabled
)

func tasks(names ...string) []featuresv1alpha1.FeatureTask {
	var out []featuresv1alpha1.FeatureTask
	for _, n := range names {
		out = append(out, featuresv1alpha1.FeatureTask{Name: n, Description: "task " + n})
	}
	return out
}

var (
	oldTasks = tasks("old-a", "old-b")
	onPlan   = tasks("wait-for-uses", "enable-thing")
	offPlan  = tasks("wait-for-uses", "clear-fields", "wait-for-absence")
)

// testPlan returns distinct lists per target and fails on a bad target.
func testPlan(t *testing.T) Plan {
	return func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
		switch target {
		case sEnabling:
			return onPlan
		case sDisabling:
			return offPlan
		default:
			t.Errorf("plan called with target %q", target)
			return nil
		}
	}
}

// TestStepTable covers every state x desired state x (no tasks, some tasks).
func TestStepTable(t *testing.T) {
	type want struct {
		state    featuresv1alpha1.FeatureState
		tasks    []featuresv1alpha1.FeatureTask
		changed  bool
		from, to featuresv1alpha1.FeatureState
	}
	same := func(s featuresv1alpha1.FeatureState, ts []featuresv1alpha1.FeatureTask) want {
		return want{state: s, tasks: ts}
	}
	move := func(from, to featuresv1alpha1.FeatureState, ts []featuresv1alpha1.FeatureTask) want {
		return want{state: to, tasks: ts, changed: true, from: from, to: to}
	}
	cases := []struct {
		state   featuresv1alpha1.FeatureState
		desired featuresv1alpha1.FeatureDesiredState
		tasks   []featuresv1alpha1.FeatureTask
		want    want
	}{
		// Empty desired state: never a change.
		{sNone, dNone, nil, same(sNone, nil)},
		{sNone, dNone, oldTasks, same(sNone, oldTasks)},
		{sOn, dNone, nil, same(sOn, nil)},
		{sOn, dNone, oldTasks, same(sOn, oldTasks)},
		{sOff, dNone, nil, same(sOff, nil)},
		{sOff, dNone, oldTasks, same(sOff, oldTasks)},
		{sEnabling, dNone, nil, same(sEnabling, nil)},
		{sEnabling, dNone, oldTasks, same(sEnabling, oldTasks)},
		{sDisabling, dNone, nil, same(sDisabling, nil)},
		{sDisabling, dNone, oldTasks, same(sDisabling, oldTasks)},

		// Empty state: a new Feature takes the desired state, without tasks.
		{sNone, dOn, nil, move(sNone, sOn, nil)},
		{sNone, dOn, oldTasks, move(sNone, sOn, nil)},
		{sNone, dOff, nil, move(sNone, sOff, nil)},
		{sNone, dOff, oldTasks, move(sNone, sOff, nil)},

		// Desired Enabled.
		{sOn, dOn, nil, same(sOn, nil)},
		{sOn, dOn, oldTasks, same(sOn, oldTasks)}, // version-keyed tasks in a final state stay for the runner
		{sOff, dOn, nil, move(sOff, sEnabling, onPlan)},
		{sOff, dOn, oldTasks, move(sOff, sEnabling, onPlan)},
		{sEnabling, dOn, nil, move(sEnabling, sOn, nil)}, // no task left: final
		{sEnabling, dOn, oldTasks, same(sEnabling, oldTasks)},
		{sDisabling, dOn, nil, move(sDisabling, sEnabling, onPlan)},
		{sDisabling, dOn, oldTasks, move(sDisabling, sEnabling, onPlan)}, // reversal replaces the list

		// Desired Disabled.
		{sOff, dOff, nil, same(sOff, nil)},
		{sOff, dOff, oldTasks, same(sOff, oldTasks)},
		{sOn, dOff, nil, move(sOn, sDisabling, offPlan)},
		{sOn, dOff, oldTasks, move(sOn, sDisabling, offPlan)},
		{sDisabling, dOff, nil, move(sDisabling, sOff, nil)},
		{sDisabling, dOff, oldTasks, same(sDisabling, oldTasks)},
		{sEnabling, dOff, nil, move(sEnabling, sDisabling, offPlan)},
		{sEnabling, dOff, oldTasks, move(sEnabling, sDisabling, offPlan)},
	}
	if len(cases) != 30 {
		t.Fatalf("table has %d cases, want 5 states x 3 desired x 2 task lists = 30", len(cases))
	}
	for _, tc := range cases {
		name := fmt.Sprintf("state=%q,desired=%q,tasks=%d", tc.state, tc.desired, len(tc.tasks))
		t.Run(name, func(t *testing.T) {
			got := Step(tc.state, tc.desired, tc.tasks, testPlan(t))
			w := Result{State: tc.want.state, Tasks: tc.want.tasks, Changed: tc.want.changed, From: tc.want.from, To: tc.want.to}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("Step() =\n  %+v\nwant\n  %+v", got, w)
			}
		})
	}
}

// TestStepEmptyPlan: with no tasks to run, a transition goes straight to the
// final state in one Step, reported as one transition.
func TestStepEmptyPlan(t *testing.T) {
	empty := func(featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask { return nil }
	cases := []struct {
		name    string
		state   featuresv1alpha1.FeatureState
		desired featuresv1alpha1.FeatureDesiredState
		tasks   []featuresv1alpha1.FeatureTask
		plan    Plan
		want    Result
	}{
		{"off to on", sOff, dOn, nil, empty, Result{State: sOn, Changed: true, From: sOff, To: sOn}},
		{"on to off", sOn, dOff, nil, empty, Result{State: sOff, Changed: true, From: sOn, To: sOff}},
		{"reversal of turning off", sDisabling, dOn, oldTasks, empty, Result{State: sOn, Changed: true, From: sDisabling, To: sOn}},
		{"reversal of turning on", sEnabling, dOff, oldTasks, empty, Result{State: sOff, Changed: true, From: sEnabling, To: sOff}},
		{"nil plan", sOff, dOn, nil, nil, Result{State: sOn, Changed: true, From: sOff, To: sOn}},
		{"empty non-nil plan", sOn, dOff, nil,
			func(featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
				return []featuresv1alpha1.FeatureTask{}
			},
			Result{State: sOff, Changed: true, From: sOn, To: sOff}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Step(tc.state, tc.desired, tc.tasks, tc.plan)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Step() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestStepUnknown: unknown states and desired states are left alone, and the
// plan is not consulted.
func TestStepUnknown(t *testing.T) {
	noPlan := func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
		t.Errorf("plan called with %q", target)
		return nil
	}
	cases := []struct {
		state   featuresv1alpha1.FeatureState
		desired featuresv1alpha1.FeatureDesiredState
	}{
		{"Upgrading", dOn},
		{"Upgrading", dOff},
		{sOn, "Maybe"},
		{sNone, "Maybe"},
		{sEnabling, "Maybe"},
	}
	for _, tc := range cases {
		got := Step(tc.state, tc.desired, oldTasks, noPlan)
		want := Result{State: tc.state, Tasks: oldTasks}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Step(%q, %q) = %+v, want %+v", tc.state, tc.desired, got, want)
		}
	}
}

// TestStepCopiesPlan: the caller may edit the returned tasks without
// touching the registry's list.
func TestStepCopiesPlan(t *testing.T) {
	shared := tasks("wait-for-uses")
	got := Step(sOff, dOn, nil, func(featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask { return shared })
	got.Tasks[0].Attempts = 3
	if shared[0].Attempts != 0 {
		t.Errorf("Step aliased the plan's list")
	}
}

// TestStepWalk runs a full Disabled -> Enabled -> Disabled cycle with a fake task runner
// that finishes one task per round, including a reversal mid-way.
func TestStepWalk(t *testing.T) {
	state, list := sOff, []featuresv1alpha1.FeatureTask(nil)
	var transitions []string
	step := func(desired featuresv1alpha1.FeatureDesiredState) {
		r := Step(state, desired, list, testPlan(t))
		if r.From != r.To {
			transitions = append(transitions, string(r.From)+">"+string(r.To))
		}
		state, list = r.State, r.Tasks
	}
	runOne := func() {
		if len(list) > 0 {
			list = list[1:]
		}
	}
	step(dOn) // Disabled > Enabling
	runOne()  // wait-for-uses done
	step(dOff)
	// Reversal: Enabling > Disabling with the off plan.
	if state != sDisabling || !reflect.DeepEqual(list, offPlan) {
		t.Fatalf("after reversal: state %q tasks %v", state, list)
	}
	for range offPlan {
		step(dOff)
		runOne()
	}
	step(dOff) // Disabling > Disabled
	step(dOff) // no change
	want := []string{"Disabled>Enabling", "Enabling>Disabling", "Disabling>Disabled"}
	if !reflect.DeepEqual(transitions, want) || state != sOff || len(list) != 0 {
		t.Errorf("transitions %v state %q tasks %v; want %v, Disabled, none", transitions, state, list, want)
	}
}
