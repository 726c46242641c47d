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
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

func TestWaitForUses(t *testing.T) {
	w := WaitForUses{}
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f := &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{
		State: featuresv1alpha1.FeatureStateDisabling,
		Uses: []featuresv1alpha1.FeatureUse{
			{Component: "kube-apiserver", Enabled: false, Reporters: []string{"a"}},
			{Component: "kubelet", Enabled: true, Reporters: []string{"n5", "n1", "n3", "n2"}},
		},
	}}
	task := Status(w)

	out, err := w.Step(context.Background(), Env{}, f, task, t0)
	if err != nil || out.Done || out.Checkpoint != "2026-11-22T12:00:00Z" || out.RequeueAfter != waitForUsesRecheck ||
		!strings.Contains(out.Message, "still reporting enabled=true: kubelet (n1, n2, n3 +1); waiting until they report enabled=false or stop being live") {
		t.Fatalf("a live kubelet with the old value must hold the task, named: %+v %v", out, err)
	}
	task.Checkpoint = out.Checkpoint

	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(20*time.Second))
	if out.Done || out.Checkpoint != task.Checkpoint || out.Progress != "waiting 20s" {
		t.Fatalf("the wait keeps its start and counts from it: %+v", out)
	}

	// The last kubelet with the old value switched (or its report expired):
	// done at once, with no fixed period.
	f.Status.Uses = f.Status.Uses[:1]
	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(21*time.Second))
	if !out.Done || out.Message != "no live component reports enabled=true" {
		t.Fatalf("no old value left: the task is done: %+v", out)
	}

	// With nothing reported the task still lets reports in flight arrive.
	empty := &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabling}}
	out, _ = w.Step(context.Background(), Env{}, empty, Status(w), t0)
	if out.Done || out.RequeueAfter != WaitForUsesSettle {
		t.Fatalf("no use at all: done only after the settle time: %+v", out)
	}
	settling := Status(w)
	settling.Checkpoint = out.Checkpoint
	if out, _ = w.Step(context.Background(), Env{}, empty, settling, t0.Add(WaitForUsesSettle)); !out.Done {
		t.Fatalf("no use at all, settled: done: %+v", out)
	}

	// Turning on, the old value is false.
	f.Status.State = featuresv1alpha1.FeatureStateEnabling
	out, _ = w.Step(context.Background(), Env{}, f, Status(w), t0)
	if out.Done || !strings.Contains(out.Message, "still reporting enabled=false: kube-apiserver (a)") {
		t.Fatalf("turning on, a component with the gate off holds the task: %+v", out)
	}
}
