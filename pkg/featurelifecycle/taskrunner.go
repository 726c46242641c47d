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
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// taskRunner steps the active task of a Feature's transition, one bounded
// step a pass, and remembers what a step asked for: not to be stepped
// again before a time, and when the task started (its duration metric).
type taskRunner struct {
	env      tasks.Env
	recorder record.EventRecorder
	// resync is Config.Resync.
	resync time.Duration

	mu sync.Mutex
	// starts remembers when this apiserver first stepped a task, for the
	// task duration metric.
	starts map[string]time.Time
	// notBefore holds, per feature/task, when this apiserver may step a
	// task again (its RequeueAfter or failure backoff) and the task's state
	// then: the status write of a step brings the Feature back at once
	// through the informer, and must not step the task again early.
	notBefore map[string]pendingStep
}

func newTaskRunner(env tasks.Env, recorder record.EventRecorder, resync time.Duration) *taskRunner {
	return &taskRunner{env: env, recorder: recorder, resync: resync, starts: map[string]time.Time{}, notBefore: map[string]pendingStep{}}
}

// pendingStep is a task that asked not to be stepped before a time.
type pendingStep struct {
	until      time.Time
	state      featuresv1alpha1.FeatureState
	checkpoint string
	attempts   int32
	uses       []featuresv1alpha1.FeatureUse
}

// wait returns how long the task must still wait, or 0 when it may step:
// its time has come, the (component, value) pairs of the uses changed (what
// WaitForUses waits for; a sample that moves does not count, so many
// reporters switching one after the other do not step the task each time),
// or the task is not the one that asked (a reversal started a new list,
// another leader moved it on).
func (p pendingStep) wait(status *featuresv1alpha1.FeatureStatus, now time.Time) time.Duration {
	t := status.Tasks[0]
	if p.state != status.State || p.checkpoint != t.Checkpoint || p.attempts != t.Attempts || !now.Before(p.until) ||
		!reports.SamePairs(p.uses, status.Uses) {
		return 0
	}
	return p.until.Sub(now)
}

// run steps task, the active task of status, and records the outcome in
// status; the events and metrics of its completion go to after. A nil task
// is one this apiserver does not know.
func (r *taskRunner) run(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, task tasks.Task, now time.Time, after *outbox) time.Duration {
	name := status.Tasks[0].Name
	key := leader.Key(f) + "/" + name
	requeue := r.step(ctx, f, status, task, now, after)
	r.mu.Lock()
	defer r.mu.Unlock()
	if requeue > 0 && len(status.Tasks) > 0 && status.Tasks[0].Name == name {
		t := status.Tasks[0]
		r.notBefore[key] = pendingStep{until: now.Add(requeue), state: status.State, checkpoint: t.Checkpoint, attempts: t.Attempts,
			uses: slices.Clone(status.Uses)}
	} else {
		delete(r.notBefore, key)
	}
	return requeue
}

// step steps the active task, unless it asked to wait, and records the
// outcome in status. A failed attempt is recorded at once (it happened
// whether or not its status is stored); a completion goes to after.
func (r *taskRunner) step(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, task tasks.Task, now time.Time, after *outbox) time.Duration {
	active := &status.Tasks[0]
	if task == nil {
		active.Message = "this kube-apiserver does not know this task; an apiserver that knows it will run it"
		return r.resync
	}
	key := leader.Key(f) + "/" + active.Name
	r.mu.Lock()
	if _, ok := r.starts[key]; !ok {
		r.starts[key] = now
	}
	pending, waiting := r.notBefore[key]
	r.mu.Unlock()
	if waiting {
		if d := pending.wait(status, now); d > 0 {
			return d
		}
	}
	if active.Attempts == 0 {
		active.Attempts = 1
	}
	withStatus := f.DeepCopy()
	withStatus.Status = *status
	out, err := task.Step(ctx, r.env, withStatus, *active, now)
	if err != nil {
		active.Attempts++
		active.Message = fmt.Sprintf("attempt %d failed: %v", active.Attempts-1, err)
		taskFailuresTotal.WithLabelValues(metricFeature(f), active.Name).Inc()
		r.recorder.Eventf(f, corev1.EventTypeWarning, "TaskFailed", "task %s: %v", active.Name, err)
		return wait.Jitter(min(time.Second<<min(active.Attempts, 8), 5*time.Minute), 0.5)
	}
	active.Progress, active.Message, active.Checkpoint = out.Progress, out.Message, out.Checkpoint
	if !out.Done {
		return out.RequeueAfter
	}
	name, message := active.Name, out.Message
	after.add(func() {
		r.recorder.Eventf(f, corev1.EventTypeNormal, "TaskCompleted", "task %s: %s", name, message)
		r.mu.Lock()
		if start, ok := r.starts[key]; ok {
			taskDuration.WithLabelValues(name).Observe(now.Sub(start).Seconds())
			delete(r.starts, key)
		}
		r.mu.Unlock()
	})
	status.Tasks = slices.Delete(slices.Clone(status.Tasks), 0, 1)
	return 0
}
