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
	"slices"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Plan returns the task list for entering a transitional state; supplied by
// the caller (the lifecycle registry). target is Enabling or Disabling.
// Step copies the list it returns, so a Plan may return a shared slice.
type Plan func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask

// Result is the outcome of Step.
type Result struct {
	// State is the next state.
	State featuresv1alpha1.FeatureState
	// Tasks is the next task list. When Changed is false it is the tasks
	// passed to Step, unchanged.
	Tasks []featuresv1alpha1.FeatureTask
	// Changed reports whether State or Tasks differ from the input.
	Changed bool
	// From and To are the states before and after, set only when the state
	// changed (for events and metrics); both are empty otherwise.
	From, To featuresv1alpha1.FeatureState
}

// Step computes the next state and tasks from the current status and the
// desired state:
//   - desired Enabled and state Disabled or Disabling -> Enabling with plan(Enabling)
//     (a reversal mid-way replaces the list);
//   - desired Disabled and state Enabled or Enabling -> Disabling with plan(Disabling);
//   - state Enabling/Disabling with no tasks left -> Enabled/Disabled;
//   - empty state -> the desired state directly (a new Feature takes the
//     configured value; no tasks);
//   - empty desired -> no change.
//
// It reports whether anything changed and, if the state changed, the
// transition (From, To) for events and metrics.
//
// Step never runs or completes a task; that is the task runner's job, and a
// non-empty list it installs is always left for the runner. When plan
// returns no tasks (or is nil) there is nothing to run, so Step goes straight
// to the final state: Disabled with desired Enabled becomes Enabled in one Step, reported as
// From Disabled To Enabled, without recording Enabling.
//
// Further decisions:
//   - A final state that carries tasks keeps them: they are the
//     version-keyed tasks a move of the emulation version queued, which
//     the runner steps whatever the state.
//   - A desired state other than Enabled and Disabled, or a state other than "", Enabled,
//     Disabled, Enabling and Disabling (for example one written by a newer
//     apiserver), is left alone: no change.
func Step(state featuresv1alpha1.FeatureState, desired featuresv1alpha1.FeatureDesiredState, tasks []featuresv1alpha1.FeatureTask, plan Plan) Result {
	unchanged := Result{State: state, Tasks: tasks}

	var final, turning, opposite, oppositeTurning featuresv1alpha1.FeatureState
	switch desired {
	case featuresv1alpha1.FeatureDesiredStateEnabled:
		final, turning = featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateEnabling
		opposite, oppositeTurning = featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateDisabling
	case featuresv1alpha1.FeatureDesiredStateDisabled:
		final, turning = featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateDisabling
		opposite, oppositeTurning = featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateEnabling
	default:
		return unchanged
	}

	switch state {
	case "":
		return moved(state, final, nil)
	case final:
		// Tasks in a final state are version-keyed tasks (a move of the
		// emulation version queued them): the runner steps them.
		return unchanged
	case turning:
		if len(tasks) == 0 {
			return moved(state, final, nil)
		}
		return unchanged
	case opposite, oppositeTurning:
		var next []featuresv1alpha1.FeatureTask
		if plan != nil {
			next = slices.Clone(plan(turning))
		}
		if len(next) == 0 {
			return moved(state, final, nil)
		}
		return moved(state, turning, next)
	default:
		return unchanged
	}
}

// moved is the Result of a change of state from from to to with tasks.
func moved(from, to featuresv1alpha1.FeatureState, tasks []featuresv1alpha1.FeatureTask) Result {
	return Result{State: to, Tasks: tasks, Changed: true, From: from, To: to}
}
