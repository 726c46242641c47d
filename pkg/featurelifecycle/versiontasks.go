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
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// The version-keyed tasks of the lifecycle registry (features.OnUpgrade,
// features.OnDowngrade) share status.tasks with the transitions:
//
//   - When the version a Feature holds for (status.version, the lowest
//     emulation version among the live apiservers) moves, its leader
//     cancels the pending version-keyed tasks the move crosses back and
//     appends those of the boundaries it crosses, whatever the state. A
//     Feature that is Enabled or Disabled may so carry tasks; it is not Converged
//     until they are done.
//   - A transition that starts keeps them after its own tasks.
//   - A version-keyed task steps only once every live kube-apiserver
//     emulates status.version: a rewrite at a storage version, or a
//     clearing of what the other version writes, is moot while an
//     apiserver at the other version still writes.

// move queues and cancels the version-keyed tasks of f's gate for
// a move of status.version from from to to. Its event goes to after.
func (v *versions) move(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, from, to string, after *outbox) {
	if from == "" || from == to {
		return
	}
	lc := v.lifecycles[featuregate.Feature(f.Spec.Gate)]
	move, err := lc.VersionMove(from, to)
	if err != nil {
		klog.Background().Error(err, "Version-keyed tasks", "feature", f.Name, "from", from, "to", to)
		return
	}
	var cancelled, queued []string
	next := make([]featuresv1alpha1.FeatureTask, 0, len(status.Tasks)+len(move.Run))
	for _, t := range status.Tasks {
		if move.Cancel.Has(t.Name) {
			cancelled = append(cancelled, t.Name)
			continue
		}
		next = append(next, t)
	}
	for _, t := range move.Run {
		if !slices.ContainsFunc(next, func(s featuresv1alpha1.FeatureTask) bool { return s.Name == t.Name() }) {
			next = append(next, tasks.Status(t))
			queued = append(queued, t.Name())
		}
	}
	if len(cancelled) == 0 && len(queued) == 0 {
		return
	}
	status.Tasks = next
	after.add(func() {
		msg := fmt.Sprintf("the cluster's emulation version moved from %s to %s", from, to)
		if len(queued) > 0 {
			msg += "; queued " + strings.Join(queued, ", ")
		}
		if len(cancelled) > 0 {
			msg += "; cancelled " + strings.Join(cancelled, ", ") + " (the move crossed their version back)"
		}
		v.recorder.Event(f, corev1.EventTypeNormal, "VersionTasksQueued", msg)
	})
}

// pendingVersionTasks returns the version-keyed tasks of gate among list,
// in order, for a transition's list to keep.
func (v *versions) pendingTasks(gate string, list []featuresv1alpha1.FeatureTask) []featuresv1alpha1.FeatureTask {
	lc := v.lifecycles[featuregate.Feature(gate)]
	var out []featuresv1alpha1.FeatureTask
	for _, t := range list {
		if lc.IsVersionTask(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// versionTaskWaits says whether the active task is a version-keyed task
// that must wait because some live kube-apiserver (versions, by identity,
// with this one's own) does not emulate status.version yet; if so it says
// so in the task's message.
func (v *versions) taskWaits(gate string, status *featuresv1alpha1.FeatureStatus, versions map[string]string) bool {
	active := &status.Tasks[0]
	if !v.lifecycles[featuregate.Feature(gate)].IsVersionTask(active.Name) {
		return false
	}
	all := maps.Clone(versions)
	if all == nil {
		all = map[string]string{}
	}
	all[v.self] = v.gates.emulationVersion()
	var others []string
	for _, id := range slices.Sorted(maps.Keys(all)) {
		if all[id] != status.Version {
			others = append(others, id+" at "+all[id])
		}
	}
	if len(others) == 0 {
		return false
	}
	active.Message = fmt.Sprintf("waits until every kube-apiserver emulates %s (%s)", status.Version, listOf(others))
	return true
}

// listOf joins names, at most five of them.
func listOf(names []string) string {
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}
