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
	"errors"
	"testing"
	"time"

	api "k8s.io/kubernetes/pkg/apis/core"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

func TestCustom(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	env := Env{Migration: migrator.Options{PageSize: 7}}
	f := &featuresv1alpha1.Feature{Spec: featuresv1alpha1.FeatureSpec{Gate: "SomeGate"}}
	boom := errors.New("boom")

	task := Custom("count-to-two", "Count to two, one step at a time.",
		func(_ context.Context, env Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error) {
			if env.Migration.PageSize != 7 || f.Spec.Gate != "SomeGate" || !now.Equal(t0) {
				return Outcome{}, boom
			}
			if t.Checkpoint == "1" {
				return Outcome{Done: true, Checkpoint: "2", Message: "counted"}, nil
			}
			return Outcome{Checkpoint: "1", Progress: "1/2", RequeueAfter: time.Second}, nil
		})
	if task.Name() != "count-to-two" || task.Description() != "Count to two, one step at a time." {
		t.Fatalf("name and description: %q %q", task.Name(), task.Description())
	}
	status := Status(task)
	if status.Name != "count-to-two" || status.Description != task.Description() {
		t.Fatalf("status: %+v", status)
	}

	out, err := task.Step(context.Background(), env, f, status, t0)
	if err != nil || out.Done || out.Checkpoint != "1" || out.Progress != "1/2" || out.RequeueAfter != time.Second {
		t.Fatalf("first step: %+v %v", out, err)
	}
	status.Checkpoint = out.Checkpoint
	out, err = task.Step(context.Background(), env, f, status, t0)
	if err != nil || !out.Done || out.Message != "counted" {
		t.Fatalf("second step: %+v %v", out, err)
	}
	if _, err := task.Step(context.Background(), Env{}, f, status, t0); !errors.Is(err, boom) {
		t.Fatalf("the step's error must come back as is: %v", err)
	}
	if _, ok := task.(Inspector); ok {
		t.Fatal("a Custom task inspects nothing a harness could check")
	}
}

func TestOptIn(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ran := 0
	inner := Custom("clear-things", "Clear things.", func(context.Context, Env, *featuresv1alpha1.Feature, featuresv1alpha1.FeatureTask, time.Time) (Outcome, error) {
		ran++
		return Outcome{Done: true, Message: "cleared"}, nil
	})
	task := OptIn(inner)
	if task.Name() != "clear-things" || task.Description() != "Clear things. Opt-in: runs only if the Feature's annotation features.k8s.io/opt-in-tasks names clear-things." {
		t.Fatalf("name and description: %q %q", task.Name(), task.Description())
	}
	if _, ok := task.(Inspector); ok {
		t.Fatal("an opt-in Custom task inspects nothing")
	}
	if u, ok := task.(interface{ Unwrap() Task }); !ok || u.Unwrap().Description() != inner.Description() {
		t.Fatal("an opt-in task unwraps to the task made opt-in")
	}

	f := &featuresv1alpha1.Feature{}
	out, err := task.Step(context.Background(), Env{}, f, Status(task), t0)
	if err != nil || !out.Done || ran != 0 || out.Progress != "skipped" ||
		out.Message != "skipped: opt-in task; add clear-things to the annotation features.k8s.io/opt-in-tasks of the Feature before the transition to run it" {
		t.Fatalf("not opted in: the task is skipped: %+v %v (ran %d)", out, err, ran)
	}

	f.Annotations = map[string]string{OptInAnnotation: "other, clear-things"}
	out, err = task.Step(context.Background(), Env{}, f, Status(task), t0)
	if err != nil || !out.Done || ran != 1 || out.Message != "cleared" {
		t.Fatalf("opted in: the task runs: %+v %v (ran %d)", out, err, ran)
	}
	f.Annotations[OptInAnnotation] = "clear-things-too"
	if OptedIn(f, "clear-things") || OptedIn(nil, "clear-things") {
		t.Fatal("only exact names opt in")
	}

	// An opt-in inspector stays an inspector.
	w := OptIn(WaitForAbsence("wait", "Wait.", podsResource, "things", func(*api.Pod) bool { return true }))
	in, ok := w.(Inspector)
	if !ok || len(in.Resources()) != 1 || !in.Holds(&api.Pod{}) {
		t.Fatal("OptIn of an Inspector must be an Inspector")
	}
	if err := w.(Validator).Validate(TestingCatalog(t)); err != nil {
		t.Errorf("a good declaration: %v", err)
	}
	bad := OptIn(WaitForAbsence("bad", "Bad.", podsResource, "things", func(*api.Node) bool { return true }))
	if err := bad.(Validator).Validate(TestingCatalog(t)); err == nil {
		t.Error("OptIn must pass the wrapped task's declaration error on")
	}
	if err := task.(Validator).Validate(TestingCatalog(t)); err != nil {
		t.Errorf("a Custom task has nothing to validate: %v", err)
	}
}
