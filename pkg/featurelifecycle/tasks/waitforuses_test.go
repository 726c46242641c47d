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

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

func TestWaitForUses(t *testing.T) {
	w := WaitForUses{Period: time.Minute}
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f := &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateTurningOff}}
	task := Status(w)

	out, err := w.Step(context.Background(), Env{}, f, task, t0)
	if err != nil || !out.ResetUses || out.Done || out.Checkpoint != "2026-11-22T12:00:00Z" || out.RequeueAfter != time.Minute {
		t.Fatalf("first step must reset the uses and wait: %+v %v", out, err)
	}
	task.Checkpoint = out.Checkpoint

	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(20*time.Second))
	if out.Done || out.ResetUses || out.RequeueAfter != 40*time.Second || out.Progress != "20s of 1m0s" {
		t.Fatalf("within the period it must wait: %+v", out)
	}

	f.Status.Uses = []featuresv1alpha1.FeatureUse{
		{Component: "kube-apiserver", Enabled: false, Reporters: []string{"a"}},
		{Component: "kubelet", Enabled: true, Reporters: []string{"n5", "n1", "n3", "n2"}},
	}
	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(2*time.Minute))
	if out.Done || !out.ResetUses || out.Checkpoint != "2026-11-22T12:02:00Z" || out.RequeueAfter != time.Minute ||
		!strings.Contains(out.Message, "still reporting enabled=true 2m0s after the last reset: kubelet (n1, n2, n3 +1); uses reset again") {
		t.Fatalf("an old value held by the kubelet must hold the task and reset the uses again: %+v", out)
	}
	task.Checkpoint, task.Message = out.Checkpoint, out.Message

	// The next round waits its whole period and keeps naming the holders.
	f.Status.Uses = f.Status.Uses[:1]
	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(2*time.Minute+30*time.Second))
	if out.Done || out.ResetUses || out.RequeueAfter != 30*time.Second || !strings.Contains(out.Message, "kubelet (n1") {
		t.Fatalf("within the second round it must wait: %+v", out)
	}
	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(3*time.Minute))
	if !out.Done {
		t.Fatalf("no old value left: the task is done: %+v", out)
	}

	// Turning on, the old value is false.
	f.Status.State = featuresv1alpha1.FeatureStateTurningOn
	out, _ = w.Step(context.Background(), Env{}, f, task, t0.Add(3*time.Minute))
	if out.Done || !out.ResetUses || !strings.Contains(out.Message, "enabled=false 1m0s after the last reset: kube-apiserver (a)") {
		t.Fatalf("turning on, a component with the gate off holds the task: %+v", out)
	}
}
