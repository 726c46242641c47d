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

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// StepFunc is one bounded, idempotent step of a Custom task; see Task.Step.
type StepFunc func(ctx context.Context, env Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error)

// Custom declares a task whose step is written by the feature's author, for
// what ClearFields, ClearPodTemplateFields and WaitForAbsence do not cover.
// step has the contract of Task.Step: bounded work, idempotent, resumable
// from the checkpoint it returned last (a new leader may repeat a step), and
// Done only when the transition may go on.
func Custom(name, description string, step StepFunc) Task {
	return custom{name: name, description: description, step: step}
}

type custom struct {
	name, description string
	step              StepFunc
}

// Name returns the task's name.
func (c custom) Name() string { return c.name }

// Description returns the task's description.
func (c custom) Description() string { return c.description }

// Step runs the author's step.
func (c custom) Step(ctx context.Context, env Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error) {
	return c.step(ctx, env, f, t, now)
}

// OptInAnnotation is the annotation of a Feature by which a cluster admin
// allows its opt-in tasks to run: a comma-separated list of task names, e.g.
// "clear-template-hostname-override".
const OptInAnnotation = "features.k8s.io/opt-in-tasks"

// OptIn makes t opt-in: it runs only while the Feature's OptInAnnotation
// names it. Elsewhere the task is done at its first step without doing
// anything, and its message says how to opt in next time. Use it for tasks
// with effects an admin must accept, such as ClearPodTemplateFields, which
// rolls out new pods. The result implements Inspector when t does.
func OptIn(t Task) Task {
	o := optIn{Task: t}
	if in, ok := t.(Inspector); ok {
		return optInInspector{optIn: o, Inspector: in}
	}
	return o
}

type optIn struct {
	Task
}

type optInInspector struct {
	optIn
	Inspector
}

// Unwrap returns the task made opt-in.
func (o optIn) Unwrap() Task { return o.Task }

// Description says that the task is opt-in and how to opt in.
func (o optIn) Description() string {
	return fmt.Sprintf("%s Opt-in: runs only if the Feature's annotation %s names %s.", o.Task.Description(), OptInAnnotation, o.Name())
}

// Validate returns the wrapped task's declaration error against catalog,
// if it can tell.
func (o optIn) Validate(catalog *storecatalog.Catalog) error {
	if v, ok := o.Task.(Validator); ok {
		return v.Validate(catalog)
	}
	return nil
}

// Step runs the task's step if the Feature opts in, else is done.
func (o optIn) Step(ctx context.Context, env Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error) {
	if OptedIn(f, o.Name()) {
		return o.Task.Step(ctx, env, f, t, now)
	}
	return Outcome{
		Done:     true,
		Progress: "skipped",
		Message:  fmt.Sprintf("skipped: opt-in task; add %s to the annotation %s of the Feature before the transition to run it", o.Name(), OptInAnnotation),
	}, nil
}

// OptedIn reports whether f's OptInAnnotation names the task name.
func OptedIn(f *featuresv1alpha1.Feature, name string) bool {
	if f == nil {
		return false
	}
	return slices.ContainsFunc(strings.Split(f.Annotations[OptInAnnotation], ","), func(s string) bool {
		return strings.TrimSpace(s) == name
	})
}

// IsOptIn reports whether t was declared with OptIn.
func IsOptIn(t Task) bool {
	switch t.(type) {
	case optIn, optInInspector:
		return true
	}
	return false
}
