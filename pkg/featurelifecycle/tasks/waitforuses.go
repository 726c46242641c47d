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

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// WaitForUsesName is the name of the WaitForUses task.
const WaitForUsesName = featuresv1alpha1.WaitForUsesTaskName

// waitForUsesRecheck is how often WaitForUses looks again without an event:
// a (component, value) pair that appears or goes (the last reporter with
// the old value switched or stopped being live) steps it at once.
const waitForUsesRecheck = 10 * time.Second

// WaitForUsesSettle is the least time WaitForUses waits, so that reports
// written just before the transition began (a component that started with
// the old value a moment ago) reach the leader before it judges the uses.
const WaitForUsesSettle = 5 * time.Second

// WaitForUses is the first task of every transition: it is done as soon as
// no live component reports the value the feature is leaving. status.uses
// holds only live reports (kube-apiserver aggregates them from the
// components' FeatureReports, dropping a report once its liveness expires),
// so the task finishes when the last component with the old value reports
// the new one or is gone, within its liveness window.
type WaitForUses struct {
	// Components, when set, limits the uses waited on to those of these
	// components: the components a third party declared for its gate.
	Components []string
}

var _ Task = WaitForUses{}

// Name returns wait-for-uses.
func (WaitForUses) Name() string { return WaitForUsesName }

// Description describes the task.
func (WaitForUses) Description() string {
	return "Wait until no live component reports the value the feature is leaving."
}

// Step is done when no use has the old value and WaitForUsesSettle has
// passed since the wait began (the checkpoint); otherwise it names the
// components that still report the old value.
func (w WaitForUses) Step(_ context.Context, _ Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error) {
	started := t.Checkpoint
	if _, err := time.Parse(time.RFC3339, started); err != nil {
		started = now.UTC().Format(time.RFC3339)
	}
	old := f.Status.State == featuresv1alpha1.FeatureStateDisabling // the value being left
	since, _ := time.Parse(time.RFC3339, started)
	waited := now.Sub(since)
	uses := f.Status.Uses
	if len(w.Components) > 0 {
		uses = slices.DeleteFunc(slices.Clone(uses), func(u featuresv1alpha1.FeatureUse) bool {
			return !slices.Contains(w.Components, u.Component)
		})
	}
	if holders := holdersOf(uses, old); holders != "" {
		return Outcome{
			Checkpoint:   started,
			Progress:     fmt.Sprintf("waiting %s", waited.Round(time.Second)),
			Message:      fmt.Sprintf("still reporting enabled=%t: %s; waiting until they report enabled=%t or stop being live", old, holders, !old),
			RequeueAfter: waitForUsesRecheck,
		}, nil
	}
	if waited < WaitForUsesSettle {
		return Outcome{
			Checkpoint:   started,
			Progress:     fmt.Sprintf("waiting %s", waited.Round(time.Second)),
			Message:      fmt.Sprintf("no live component reports enabled=%t; letting reports in flight arrive", old),
			RequeueAfter: WaitForUsesSettle - waited,
		}, nil
	}
	return Outcome{Done: true, Checkpoint: started, Progress: "done", Message: fmt.Sprintf("no live component reports enabled=%t", old)}, nil
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
