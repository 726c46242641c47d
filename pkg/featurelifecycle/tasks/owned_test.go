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

func TestOwned(t *testing.T) {
	o := Owned{TaskName: "migrate-widgets", Owner: "acme-controller"}
	if s := Status(o); s.Owner != "acme-controller" || s.Name != "migrate-widgets" || !strings.Contains(s.Description, "acme-controller") {
		t.Errorf("Status of an owned task: %+v", s)
	}
	if s := Status(WaitForUses{}); s.Owner != "" {
		t.Errorf("Status of wait-for-uses names an owner: %+v", s)
	}
	now := time.Now()
	out, err := o.Step(context.Background(), Env{}, &featuresv1alpha1.Feature{}, Status(o), now)
	if err != nil || out.Done || !strings.Contains(out.Message, "waiting for component acme-controller") {
		t.Errorf("not done yet: %+v %v", out, err)
	}
	written := Status(o)
	written.Progress, written.Message = "3/10", "migrating"
	out, _ = o.Step(context.Background(), Env{}, &featuresv1alpha1.Feature{}, written, now)
	if out.Done || out.Progress != "3/10" || out.Message != "migrating" {
		t.Errorf("the owner's progress is not kept: %+v", out)
	}
	written.Done = true
	out, _ = o.Step(context.Background(), Env{}, &featuresv1alpha1.Feature{}, written, now)
	if !out.Done || out.Message != "completed by acme-controller: migrating" {
		t.Errorf("marked done: %+v", out)
	}
}

// TestWaitForUsesOfDeclaredComponents: with Components, only their uses
// hold the wait.
func TestWaitForUsesOfDeclaredComponents(t *testing.T) {
	f := &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabling,
		Uses: []featuresv1alpha1.FeatureUse{
			{Component: "acme-controller", Enabled: false, Reporters: []string{"pod-1"}},
			{Component: "acme-dashboard", Enabled: true, Reporters: []string{"pod-2"}},
		}}}
	now := time.Now()
	start := Status(WaitForUses{})
	start.Checkpoint = now.Add(-time.Minute).UTC().Format(time.RFC3339)
	if out, _ := (WaitForUses{}).Step(context.Background(), Env{}, f, start, now); out.Done {
		t.Errorf("every component counts without Components, and acme-dashboard is on: %+v", out)
	}
	if out, _ := (WaitForUses{Components: []string{"acme-controller"}}).Step(context.Background(), Env{}, f, start, now); !out.Done {
		t.Errorf("only acme-controller is declared, and it is off: %+v", out)
	}
	f.Status.Uses[0].Enabled = true
	if out, _ := (WaitForUses{Components: []string{"acme-controller"}}).Step(context.Background(), Env{}, f, start, now); out.Done || !strings.Contains(out.Message, "acme-controller (pod-1)") {
		t.Errorf("acme-controller is on: %+v", out)
	}
}
