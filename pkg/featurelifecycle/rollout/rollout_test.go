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
	"strings"
	"testing"
	"time"

	"k8s.io/features/cohort"
)

// fleet simulates nodes that follow a rollout's cohort: a node applies the
// new value one interval after it joins the cohort, and reports it; a
// faulty feature makes a node NotReady once it applied it.
type fleet struct {
	ranks  []uint64
	faulty bool
	// joined is when each node joined the cohort (zero: not a member).
	joined []time.Time
	// ran is whether a node ever applied the new value.
	ran []bool
}

func newFleet(n int, faulty bool) *fleet {
	f := &fleet{faulty: faulty, joined: make([]time.Time, n), ran: make([]bool, n)}
	for i := range n {
		f.ranks = append(f.ranks, cohort.Rank("feature-uid", fmt.Sprintf("node-%03d", i)))
	}
	return f
}

// observe updates who is in c at now and returns the cohort's health.
func (f *fleet) observe(c cohort.Cohort, now time.Time, delay time.Duration) Health {
	var h Health
	for i, r := range f.ranks {
		if !c.Member(r, nil) {
			f.joined[i] = time.Time{}
			continue
		}
		if f.joined[i].IsZero() {
			f.joined[i] = now
		}
		applied := now.Sub(f.joined[i]) >= delay
		f.ran[i] = f.ran[i] || applied
		h.Members = append(h.Members, Member{Name: fmt.Sprintf("node-%03d", i), Reports: applied, NotReady: applied && f.faulty})
	}
	return h
}

type run struct {
	steps    []Status
	final    Status
	elapsed  time.Duration
	maxNodes int
}

// simulate runs a rollout over f until it is final or stuck, looking again
// when Next asks (or after the interval).
func simulate(t *testing.T, spec Spec, f *fleet) run {
	t.Helper()
	start := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	now, st := start, NotStarted()
	var r run
	for range 1000 {
		h := f.observe(st.Cohort, now, spec.Interval)
		v := Analyze(h, spec.Thresholds)
		next, after := Next(spec, st, f.ranks, v, now)
		if next.Step != st.Step {
			r.steps = append(r.steps, next)
			// Every widening keeps the earlier cohort.
			for i, rank := range f.ranks {
				if st.Cohort.Member(rank, nil) && !next.Cohort.Member(rank, nil) && next.Phase == Progressing {
					t.Fatalf("step %d dropped node %d", next.Step+1, i)
				}
			}
		}
		r.maxNodes = max(r.maxNodes, len(next.Cohort.Members(f.ranks, nil)))
		st = next
		if st.Final() || st.Phase == Failed || after == 0 {
			break
		}
		now = now.Add(after)
	}
	r.final, r.elapsed = st, now.Sub(start)
	return r
}

func testSpec(undoable bool) Spec {
	return Spec{Steps: DefaultSteps(), Thresholds: DefaultThresholds(), Interval: 30 * time.Second,
		ReportTimeout: 2 * time.Minute, Undoable: undoable}
}

func TestHealthyRolloutCompletes(t *testing.T) {
	for _, n := range []int{20, 200} {
		f := newFleet(n, false)
		r := simulate(t, testSpec(true), f)
		if r.final.Phase != Complete {
			t.Fatalf("%d nodes: ended %s (%s: %s), want Complete", n, r.final.Phase, r.final.Reason, r.final.Message)
		}
		var sizes []int
		for _, s := range r.steps {
			sizes = append(sizes, len(s.Cohort.Members(f.ranks, nil)))
		}
		want := map[int]string{20: "[1 2 5 10 20]", 200: "[1 20 50 100 200]"}[n]
		if fmt.Sprint(sizes) != want {
			t.Errorf("%d nodes: cohort sizes %v, want %s", n, sizes, want)
		}
		// Five steps of five minutes, each starting once the last passed.
		if r.elapsed < 25*time.Minute || r.elapsed > 30*time.Minute {
			t.Errorf("%d nodes: took %v, want about 25 minutes", n, r.elapsed)
		}
	}
}

func TestFaultyFeatureStopsAtTheFirstStep(t *testing.T) {
	for _, n := range []int{20, 200} {
		f := newFleet(n, true)
		spec := testSpec(true)
		r := simulate(t, spec, f)
		if r.final.Phase != RolledBack || r.final.Reason != ReasonNodeNotReady {
			t.Fatalf("%d nodes: ended %s (%s), want RolledBack (NodeNotReady)", n, r.final.Phase, r.final.Reason)
		}
		if r.final.Step != 0 || !r.final.Cohort.Empty() {
			t.Errorf("%d nodes: stopped at step %d with cohort %+v, want step 1 and nobody", n, r.final.Step+1, r.final.Cohort)
		}
		// The node applied the value one interval after the step began and
		// went NotReady; the analysis after that paused it.
		if r.elapsed > 2*spec.Interval {
			t.Errorf("%d nodes: paused %v after the start, want within two analysis intervals (%v)", n, r.elapsed, 2*spec.Interval)
		}
		touched := 0
		for _, ran := range f.ran {
			if ran {
				touched++
			}
		}
		if touched != 1 || r.maxNodes != 1 {
			t.Errorf("%d nodes: %d nodes ran the feature, the cohort held up to %d; want 1", n, touched, r.maxNodes)
		}
		if !strings.Contains(r.final.Message, "node-") {
			t.Errorf("the message names no node: %s", r.final.Message)
		}
	}
}

func TestFailedWithoutUndoKeepsTheCohort(t *testing.T) {
	f := newFleet(20, true)
	r := simulate(t, testSpec(false), f)
	if r.final.Phase != Failed || r.final.Cohort.Empty() {
		t.Fatalf("ended %s with cohort %+v, want Failed keeping its one node", r.final.Phase, r.final.Cohort)
	}
	// Failed never widens, whatever the analysis says later.
	st, after := Next(testSpec(false), r.final, f.ranks, Verdict{Result: Pass}, time.Now().Add(time.Hour))
	if st.Step != r.final.Step || st.Phase != Failed || after != 0 {
		t.Errorf("a failed rollout moved: %+v", st)
	}
	// An abort of a feature that cannot be undone keeps the cohort and says so.
	spec := testSpec(false)
	spec.Abort = true
	if st, _ := Next(spec, r.final, f.ranks, Verdict{Result: Pass}, time.Now()); st.Reason != ReasonCannotUndo || st.Cohort.Empty() {
		t.Errorf("abort without undo: %+v", st)
	}
}

func TestNeverReportedFailsAfterTheTimeout(t *testing.T) {
	spec := testSpec(true)
	f := newFleet(20, false)
	now := time.Now()
	st, _ := Next(spec, NotStarted(), f.ranks, Verdict{}, now)
	wait := Verdict{Result: Wait, Reason: ReasonNotReported, Message: "1 of the cohort's 1 components do not report the new value yet: node-007"}
	if st2, after := Next(spec, st, f.ranks, wait, now.Add(time.Minute)); st2.Phase != Progressing || after != spec.Interval {
		t.Fatalf("waiting within the timeout: %+v, look again after %v", st2, after)
	}
	st2, _ := Next(spec, st, f.ranks, wait, now.Add(spec.ReportTimeout))
	if st2.Phase != RolledBack || st2.Reason != ReasonNotReported || !strings.Contains(st2.Message, "after 2m0s") {
		t.Errorf("after the timeout: %+v", st2)
	}
}

func TestPauseResumeAbort(t *testing.T) {
	spec := testSpec(true)
	f := newFleet(20, false)
	now := time.Now()
	st, _ := Next(spec, NotStarted(), f.ranks, Verdict{}, now)
	st, _ = Next(spec, st, f.ranks, Verdict{Result: Pass}, now.Add(6*time.Minute))
	if st.Step != 1 {
		t.Fatalf("after a passed soak: step %d, want 2", st.Step+1)
	}
	paused := spec
	paused.Paused = true
	p, after := Next(paused, st, f.ranks, Verdict{Result: Pass}, now.Add(time.Hour))
	if p.Phase != Paused || p.Step != 1 || p.Reason != ReasonPausedByAdmin || after != 0 {
		t.Fatalf("paused: %+v after %v", p, after)
	}
	// Paused, a passing analysis never widens.
	if again, _ := Next(paused, p, f.ranks, Verdict{Result: Pass}, now.Add(2*time.Hour)); again.Step != 1 {
		t.Errorf("paused rollout widened to step %d", again.Step+1)
	}
	resumeAt := now.Add(3 * time.Hour)
	r, _ := Next(spec, p, f.ranks, Verdict{Result: Pass}, resumeAt)
	if r.Phase != Progressing || !r.StepStarted.Equal(resumeAt) || r.Step != 1 {
		t.Errorf("resumed: %+v, want step 2 soaking again from the resume", r)
	}
	aborting := spec
	aborting.Abort = true
	a, _ := Next(aborting, r, f.ranks, Verdict{Result: Pass}, resumeAt)
	if a.Phase != Aborted || !a.Cohort.Empty() {
		t.Errorf("aborted: %+v, want Aborted with nobody", a)
	}
	if !a.Final() {
		t.Error("aborted is not final")
	}
}

func TestPausedBeforeTheFirstStep(t *testing.T) {
	spec := testSpec(true)
	spec.Paused = true
	st, _ := Next(spec, NotStarted(), newFleet(20, false).ranks, Verdict{}, time.Now())
	if st.Phase != Paused || st.Step != -1 || !st.Cohort.Empty() || st.Message != "paused before the first step" {
		t.Errorf("paused before it began: %+v, want Paused with nobody", st)
	}
}

func TestNoSteps(t *testing.T) {
	st, _ := Next(Spec{}, NotStarted(), nil, Verdict{}, time.Now())
	if st.Phase != Paused || st.Reason != ReasonNoSteps {
		t.Errorf("no steps: %+v", st)
	}
}
