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
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	featuresfake "k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// doneTask is a version-keyed task that is done at its first step.
func doneTask(name string) tasks.Task {
	return tasks.Custom(name, "Done at once.", func(context.Context, tasks.Env, *featuresv1alpha1.Feature, featuresv1alpha1.FeatureTask, time.Time) (tasks.Outcome, error) {
		return tasks.Outcome{Done: true, Message: "done"}, nil
	})
}

// taskList returns the names of a Feature's tasks, comma-separated.
func taskList(f *featuresv1alpha1.Feature) string {
	var names []string
	for _, t := range f.Status.Tasks {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

// TestControllerRunsVersionTasks moves a Feature's version the way a
// rolling change of the emulation version does: the upgrade task is
// queued and runs in the final state Enabled (Converged=False until it is
// done, DowngradeSafe and UpgradeSafe False meanwhile); an apiserver that
// comes back at the lower version queues the downgrade task, which waits
// until every apiserver emulates that version; and a transition that
// starts meanwhile keeps it after its own tasks.
func TestControllerRunsVersionTasks(t *testing.T) {
	t.Parallel()
	zero := 0
	h := newHarness(t)
	h.lifecycles["TestGate"] = lifecycle.Lifecycle{
		OnDisable:  []tasks.Task{doneTask("clear")},
		Upgrades:   []lifecycle.OnUpgrade{{To: "1.36", Tasks: []tasks.Task{flakyTask{failures: &zero}}}},
		Downgrades: []lifecycle.OnDowngrade{{Below: "1.36", Tasks: []tasks.Task{doneTask("down-36")}}},
	}
	stored := testGateFeature("Enabled", "Enabled", featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-a"}})
	stored.Status.Version = "1.35"
	h.features = featuresfake.NewClientset(stored)
	a := h.controller("apiserver-a", true) // emulates 1.36
	h.reports = []*featuresv1alpha1.FeatureReport{h.report("kube-apiserver", "apiserver-a", true)}
	h.reports[0].Annotations = map[string]string{featuresv1alpha1.EmulationVersionAnnotation: "1.36"}

	// 1.35 -> 1.36: the upgrade task is queued and steps in state Enabled.
	f, _ := h.sync(a)
	if f.Status.Version != "1.36" || f.Status.State != "Enabled" || taskList(f) != "count-to-three" || f.Status.Tasks[0].Progress != "1/3" {
		t.Fatalf("the move to 1.36 must queue and step the upgrade task in state Enabled: %+v", f.Status)
	}
	if c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged); c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("a pending version-keyed task is not Converged: %+v", c)
	}
	f, _ = h.sync(a)
	f, _ = h.sync(a)
	if f.Status.State != "Enabled" || len(f.Status.Tasks) != 0 || !meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged) {
		t.Fatalf("the upgrade task must finish and the Feature converge: %+v", f.Status)
	}

	// An apiserver at 1.35 comes (back): the lowest version is 1.35, the
	// downgrade task is queued and waits for apiserver-a, still at 1.36.
	other := ""
	for i := range 100 {
		id := fmt.Sprintf("apiserver-%d", i)
		if l, _ := leader.Leader(leader.Key(f), []string{"apiserver-a", id}); l == "apiserver-a" {
			other = id
			break
		}
	}
	h.renew(a, other)
	r := h.report("kube-apiserver", other, true)
	r.Annotations = map[string]string{featuresv1alpha1.EmulationVersionAnnotation: "1.35"}
	h.reports = append(h.reports, r)
	f, _ = h.sync(a)
	if f.Status.Version != "1.35" || taskList(f) != "down-36" ||
		!strings.Contains(f.Status.Tasks[0].Message, "waits until every kube-apiserver emulates 1.35 (apiserver-a at 1.36)") {
		t.Fatalf("the move to 1.35 must queue the downgrade task, waiting for apiserver-a: %+v", f.Status)
	}
	for _, cond := range []string{featuresv1alpha1.FeatureConditionUpgradeSafe, featuresv1alpha1.FeatureConditionDowngradeSafe} {
		if c := meta.FindStatusCondition(f.Status.Conditions, cond); c != nil && c.Status == metav1.ConditionTrue {
			t.Errorf("%s must not be True while a version-keyed task is pending: %+v", cond, c)
		}
	}

	// A transition that starts meanwhile keeps the pending task after its
	// own; the transition's tasks run, the version-keyed one still waits,
	// so the Feature stays Disabling.
	// Both apiservers report the gate off now, renewed as time passes.
	reportOff := func() {
		h.renew(a, other)
		h.reports = nil
		for id, v := range map[string]string{"apiserver-a": "1.36", other: "1.35"} {
			r := h.report("kube-apiserver", id, false)
			r.Annotations = map[string]string{featuresv1alpha1.EmulationVersionAnnotation: v}
			h.reports = append(h.reports, r)
		}
	}
	reportOff()
	if err := a.gates.gate.SetFromMap(map[string]bool{"TestGate": false}); err != nil {
		t.Fatal(err)
	}
	f, _ = h.sync(a) // desired state
	f, _ = h.sync(a)
	if f.Status.State != "Disabling" || taskList(f) != tasks.WaitForUsesName+",clear,down-36" {
		t.Fatalf("Disabling must keep the pending version-keyed task after its own: %+v", f.Status)
	}
	for range 4 {
		h.advance(30 * time.Second)
		reportOff()
		f, _ = h.sync(a)
	}
	if f.Status.State != "Disabling" || taskList(f) != "down-36" {
		t.Fatalf("the version-keyed task must hold the transition while apiserver-a is at 1.36: %+v", f.Status)
	}
}
