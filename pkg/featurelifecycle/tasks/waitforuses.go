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

package tasks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

// WaitForUsesName is the name of the WaitForUses task.
const WaitForUsesName = "wait-for-uses"

// WaitForUses is the first task of every transition: it clears status.uses,
// waits Period so that every component has re-reported, and is done when no
// component reports the value the feature is leaving. While some do, it
// clears status.uses again every Period, so that reporters that have gone
// (restarted under another identity, removed) stop holding it.
type WaitForUses struct {
	// Period is how long to wait after the reset before judging the uses.
	Period time.Duration
}

var _ Task = WaitForUses{}

// Name returns wait-for-uses.
func (WaitForUses) Name() string { return WaitForUsesName }

// Description describes the task.
func (w WaitForUses) Description() string {
	return fmt.Sprintf("Clear status.uses, wait %s for components to report again, and wait until none reports the old value.", w.Period)
}

// Step resets the uses the first time (checkpoint empty), waits out the
// period, and is done if no use has the old value; otherwise it resets the
// uses again and waits another period.
func (w WaitForUses) Step(_ context.Context, _ Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error) {
	if t.Checkpoint == "" {
		return Outcome{
			ResetUses:    true,
			Checkpoint:   now.UTC().Format(time.RFC3339),
			Progress:     "uses reset",
			Message:      fmt.Sprintf("waiting %s for components to report again", w.Period),
			RequeueAfter: w.Period,
		}, nil
	}
	reset, err := time.Parse(time.RFC3339, t.Checkpoint)
	if err != nil {
		// A checkpoint we cannot read: start over.
		return Outcome{ResetUses: true, Checkpoint: now.UTC().Format(time.RFC3339), RequeueAfter: w.Period}, nil
	}
	waited := now.Sub(reset)
	if waited < w.Period {
		return Outcome{
			Checkpoint:   t.Checkpoint,
			Progress:     fmt.Sprintf("%s of %s", waited.Round(time.Second), w.Period),
			Message:      t.Message,
			RequeueAfter: w.Period - waited,
		}, nil
	}
	old := f.Status.State == featuresv1alpha1.FeatureStateTurningOff // the value being left
	if holders := holdersOf(f.Status.Uses, old); holders != "" {
		// Reporters only join status.uses between resets: one that has
		// gone since (a kube-controller-manager restarted with the new
		// value reports under a new identity) would hold the task forever.
		// Reset again: only the reporters that still run report again.
		return Outcome{
			ResetUses:    true,
			Checkpoint:   now.UTC().Format(time.RFC3339),
			Progress:     "uses reset again",
			Message:      fmt.Sprintf("still reporting enabled=%t %s after the last reset: %s; uses reset again, so that reporters that are gone drop out", old, waited.Round(time.Second), holders),
			RequeueAfter: w.Period,
		}, nil
	}
	return Outcome{Done: true, Checkpoint: t.Checkpoint, Progress: "done", Message: fmt.Sprintf("no component reports enabled=%t", old)}, nil
}

// holdersOf names the components reporting value and a few of their
// reporters, e.g. "kube-scheduler (sched-1), kubelet (node-1, node-2 +3)".
func holdersOf(uses []featuresv1alpha1.FeatureUse, value bool) string {
	var parts []string
	for _, u := range uses {
		if u.Enabled != value {
			continue
		}
		r := slices.Clone(u.Reporters)
		slices.Sort(r)
		more := ""
		if len(r) > 3 {
			more = fmt.Sprintf(" +%d", len(r)-3)
			r = r[:3]
		}
		parts = append(parts, fmt.Sprintf("%s (%s%s)", u.Component, strings.Join(r, ", "), more))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
