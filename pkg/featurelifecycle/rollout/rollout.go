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

import (
	"fmt"
	"time"

	"k8s.io/features/cohort"
)

// Step is one step of a rollout: the cohort grows to Size, then the step
// soaks for Soak while its analysis passes.
type Step struct {
	Size cohort.Size
	Soak time.Duration
}

// DefaultSoak is the soak time of a step that sets none.
const DefaultSoak = 5 * time.Minute

// DefaultSteps are the steps of a rollout that sets none: one component,
// then 10, 25, 50 and 100 percent, each soaking DefaultSoak.
func DefaultSteps() []Step {
	return []Step{
		{Size: cohort.Size{Count: 1}, Soak: DefaultSoak},
		{Size: cohort.Size{Percent: 10}, Soak: DefaultSoak},
		{Size: cohort.Size{Percent: 25}, Soak: DefaultSoak},
		{Size: cohort.Size{Percent: 50}, Soak: DefaultSoak},
		{Size: cohort.Size{Percent: 100}, Soak: DefaultSoak},
	}
}

// Spec is what an administrator asks of a rollout.
type Spec struct {
	// Steps widen the cohort, in order; the last is usually 100 percent.
	Steps []Step
	// Paused: do not widen; resuming soaks the current step again.
	Paused bool
	// Abort: take the new value back from the cohort, if the feature can
	// be undone.
	Abort bool
	// Thresholds bound what a step may cost.
	Thresholds Thresholds
	// ReportTimeout is how long the cohort has, from the start of a step,
	// to report the new value before the step fails (0: no limit).
	ReportTimeout time.Duration
	// Interval is how often a step is analysed (0: 30 s).
	Interval time.Duration
	// Undoable: the feature declares that it can be undone (its tasks
	// exist, or it has none), so a failed step rolls the cohort back.
	Undoable bool
}

// Phase is where a rollout stands.
type Phase string

// The phases of a rollout. Complete, Aborted and RolledBack are final.
const (
	// Progressing: a step soaks and is analysed; the next widens.
	Progressing Phase = "Progressing"
	// Paused: an administrator paused it; the cohort keeps the new value.
	Paused Phase = "Paused"
	// Failed: a step's analysis failed and the feature cannot be undone;
	// the cohort keeps the new value until an administrator acts.
	Failed Phase = "Failed"
	// RolledBack: a step's analysis failed and the cohort went back to the
	// old value.
	RolledBack Phase = "RolledBack"
	// Aborted: an administrator aborted it and the cohort went back.
	Aborted Phase = "Aborted"
	// Complete: the last step passed.
	Complete Phase = "Complete"
)

// Reasons of a Status besides an analysis' (Verdict.Reason).
const (
	ReasonStepStarted    = "StepStarted"
	ReasonPausedByAdmin  = "PausedByAdmin"
	ReasonResumed        = "Resumed"
	ReasonAbortedByAdmin = "AbortedByAdmin"
	ReasonCannotUndo     = "CannotUndo"
	ReasonComplete       = "Complete"
	ReasonNoSteps        = "NoSteps"
)

// Status is where a rollout stands and who has the new value.
type Status struct {
	Phase Phase
	// Step is the index of the current step in Spec.Steps; -1 before the
	// first.
	Step int
	// StepStarted is when the current step started (or resumed).
	StepStarted time.Time
	// Cohort is who has the new value.
	Cohort cohort.Cohort
	// Reason and Message say why the rollout stands where it does.
	Reason, Message string
}

// NotStarted is the status of a rollout that has not begun.
func NotStarted() Status { return Status{Phase: Progressing, Step: -1} }

// Final says whether the rollout is over.
func (s Status) Final() bool {
	return s.Phase == Complete || s.Phase == Aborted || s.Phase == RolledBack
}

// Next returns where the rollout goes from st, given the administrator's
// spec, the ranks of the current candidates (cohort.Rank), the verdict of
// the analysis of the current cohort (ignored before the first step), and
// the time, and after how long to look again (0: only on a change). It is
// pure: the caller publishes the status, whose Cohort the candidates
// follow, and records an event when the reason changes.
//
// A rollout never widens while paused or failed. A failed analysis pauses
// it for good: with Undoable the cohort goes back to nobody (RolledBack),
// otherwise the cohort keeps the new value (Failed) until an administrator
// aborts.
func Next(spec Spec, st Status, ranks []uint64, v Verdict, now time.Time) (Status, time.Duration) {
	interval := spec.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	if st.Final() {
		return st, 0
	}
	if spec.Abort {
		if !spec.Undoable {
			st.Reason, st.Message = ReasonCannotUndo, "the feature declares no way back: the cohort keeps the new value"
			if st.Phase == Progressing {
				st.Phase = Paused
			}
			return st, 0
		}
		return Status{Phase: Aborted, Step: st.Step, StepStarted: st.StepStarted, Reason: ReasonAbortedByAdmin,
			Message: "aborted: the cohort goes back to the old value"}, 0
	}
	if st.Phase == Failed {
		return st, 0
	}
	if len(spec.Steps) == 0 {
		st.Phase, st.Reason, st.Message = Paused, ReasonNoSteps, "the rollout has no steps"
		return st, 0
	}
	if spec.Paused {
		if st.Phase != Paused || st.Reason != ReasonPausedByAdmin {
			st.Phase, st.Reason, st.Message = Paused, ReasonPausedByAdmin, fmt.Sprintf("paused at step %d of %d", st.Step+1, len(spec.Steps))
			if st.Step < 0 {
				st.Message = "paused before the first step"
			}
		}
		return st, 0
	}
	if st.Step < 0 {
		return start(spec, st, 0, ranks, now), interval
	}
	if st.Phase == Paused {
		// Resumed: the step soaks again from now.
		st.Phase, st.StepStarted = Progressing, now
		st.Reason, st.Message = ReasonResumed, fmt.Sprintf("resumed at step %d of %d", st.Step+1, len(spec.Steps))
		return st, interval
	}
	switch v.Result {
	case Fail:
		return fail(spec, st, v), 0
	case Wait:
		if spec.ReportTimeout > 0 && now.Sub(st.StepStarted) >= spec.ReportTimeout {
			v.Result, v.Message = Fail, fmt.Sprintf("%s after %s", v.Message, spec.ReportTimeout)
			return fail(spec, st, v), 0
		}
		return st, interval
	}
	soaked := st.StepStarted.Add(spec.Steps[st.Step].Soak)
	if now.Before(soaked) {
		return st, min(interval, soaked.Sub(now))
	}
	if st.Step == len(spec.Steps)-1 {
		st.Phase, st.Reason, st.Message = Complete, ReasonComplete, fmt.Sprintf("all %d steps passed", len(spec.Steps))
		return st, 0
	}
	return start(spec, st, st.Step+1, ranks, now), interval
}

// start widens the cohort to step i.
func start(spec Spec, st Status, i int, ranks []uint64, now time.Time) Status {
	st.Phase, st.Step, st.StepStarted = Progressing, i, now
	st.Cohort = cohort.Widen(st.Cohort, ranks, spec.Steps[i].Size)
	st.Reason = ReasonStepStarted
	st.Message = fmt.Sprintf("step %d of %d: %d of %d candidates have the new value", i+1, len(spec.Steps),
		len(st.Cohort.Members(ranks, nil)), len(ranks))
	return st
}

// fail stops the rollout on a failed analysis.
func fail(spec Spec, st Status, v Verdict) Status {
	st.Reason = v.Reason
	if spec.Undoable {
		st.Phase, st.Cohort = RolledBack, cohort.Cohort{}
		st.Message = fmt.Sprintf("step %d failed, the cohort goes back to the old value: %s", st.Step+1, v.Message)
		return st
	}
	st.Phase = Failed
	st.Message = fmt.Sprintf("step %d failed; the feature declares no way back, so the cohort keeps the new value: %s", st.Step+1, v.Message)
	return st
}
