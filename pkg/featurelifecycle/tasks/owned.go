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
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Owned is a task of a third party's transition that one of its own
// components completes (spec.declaration.tasks): the leader waits until the
// owner's reporter sets status.tasks[].done, and keeps the message and
// progress the owner writes.
type Owned struct {
	// TaskName is the task's name.
	TaskName string
	// TaskDescription says what the task does.
	TaskDescription string
	// Owner is the component that completes the task.
	Owner string
}

var _ Task = Owned{}

// Name returns the task's name.
func (o Owned) Name() string { return o.TaskName }

// Description returns the task's description, or says who completes it.
func (o Owned) Description() string {
	if o.TaskDescription != "" {
		return o.TaskDescription
	}
	return fmt.Sprintf("Completed by component %s.", o.Owner)
}

// OwnerName returns the component that completes the task.
func (o Owned) OwnerName() string { return o.Owner }

// Step is done once the owner marked the task done. Until then it keeps
// what the owner wrote, or says what it waits for; the owner's status write
// brings the Feature back, so it does not poll.
func (o Owned) Step(_ context.Context, _ Env, _ *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, _ time.Time) (Outcome, error) {
	if t.Done {
		message := fmt.Sprintf("completed by %s", o.Owner)
		if t.Message != "" {
			message += ": " + t.Message
		}
		return Outcome{Done: true, Progress: "done", Message: message, Checkpoint: t.Checkpoint}, nil
	}
	out := Outcome{Progress: t.Progress, Message: t.Message, Checkpoint: t.Checkpoint}
	if out.Message == "" {
		out.Message = fmt.Sprintf("waiting for component %s to complete the task: a reporter of %s sets status.tasks[].done when it is", o.Owner, o.Owner)
	}
	return out, nil
}
