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
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	metricstestutil "k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresfake "k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/featurelifecycle/transition"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// TestControllerTurnsOffWithTasks walks a Feature from Enabled to Disabled: desired
// state follows the apiserver's configuration, WaitForUses waits while a
// live component reports the old value and no longer once its report
// expired, a flaky registered task is retried with attempts and messages,
// and a new leader resumes it from the checkpoint.
func TestControllerTurnsOffWithTasks(t *testing.T) {
	t.Parallel()
	failures := 2
	h := newHarness(t)
	h.lifecycles["TestGate"] = lifecycle.Lifecycle{OnDisable: []tasks.Task{flakyTask{failures: &failures}}}
	h.features = featuresfake.NewClientset(testGateFeature("Enabled", "Enabled",
		featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a"}},
		featuresv1alpha1.FeatureUse{Component: "kubelet", Enabled: true, Reporters: []string{"node-1"}},
	))
	a := h.controller("apiserver-a", false)

	f, _ := h.sync(a)
	if f.Spec.DesiredState != "Disabled" {
		t.Fatalf("desired state must follow the apiserver's configuration, got %q", f.Spec.DesiredState)
	}
	f, requeue := h.sync(a)
	if f.Status.State != "Disabling" || len(f.Status.Tasks) != 2 || f.Status.Tasks[0].Name != tasks.WaitForUsesName ||
		f.Status.Tasks[1].Name != "count-to-three" || requeue != 10*time.Second ||
		!strings.Contains(f.Status.Tasks[0].Message, "still reporting enabled=true: kubelet (node-1)") {
		t.Fatalf("entering Disabling, a live kubelet with the gate on holds WaitForUses: %+v, requeue %v", f.Status, requeue)
	}
	if c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged); c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("Converged must be False mid-transition: %+v", f.Status.Conditions)
	}

	// From now on the reports are what the test says: the kubelet's was
	// renewed now for 40 s, and is not renewed again (the kubelet is gone).
	h.reports = []*featuresv1alpha1.FeatureReport{h.report("kube-apiserver", "apiserver-a", false), h.report("kubelet", "node-1", true)}
	h.advance(30 * time.Second)
	f, requeue = h.sync(a)
	if f.Status.Tasks[0].Name != tasks.WaitForUsesName || !strings.Contains(f.Status.Tasks[0].Message, "kubelet (node-1)") || requeue != 10*time.Second {
		t.Fatalf("a live report with the old value holds WaitForUses: %+v, requeue %v", f.Status.Tasks[0], requeue)
	}
	// Its liveness runs out 40 s after its renewal: no fixed wait.
	h.advance(11 * time.Second)
	f, _ = h.sync(a)
	if len(f.Status.Tasks) != 1 || f.Status.Tasks[0].Name != "count-to-three" {
		t.Fatalf("WaitForUses must be done once the old value's last report expired: %+v", f.Status.Tasks)
	}
	for _, u := range f.Status.Uses {
		if u.Component == "kubelet" {
			t.Fatalf("an expired report must leave the uses: %+v", f.Status.Uses)
		}
	}

	// Two failures: attempts and messages are recorded, nothing is lost.
	for i := 2; i <= 3; i++ {
		h.advance(5 * time.Minute) // past the backoff
		f, requeue = h.sync(a)
		task := f.Status.Tasks[0]
		if task.Attempts != int32(i) || !strings.Contains(task.Message, "transient trouble") || requeue <= 0 {
			t.Fatalf("failure %d: %+v, requeue %v", i-1, task, requeue)
		}
	}
	// Within the backoff the task waits, even though the failure's status
	// write brought the Feature back.
	if f, _ = h.sync(a); f.Status.Tasks[0].Attempts != 3 {
		t.Fatalf("a failed task must wait out its backoff: %+v", f.Status.Tasks[0])
	}
	h.advance(5 * time.Minute)
	f, _ = h.sync(a)
	if f.Status.Tasks[0].Checkpoint != "x" || f.Status.Tasks[0].Progress != "1/3" {
		t.Fatalf("first successful step: %+v", f.Status.Tasks[0])
	}

	// apiserver-a goes away; apiserver-b (also configured off) resumes from
	// the checkpoint instead of starting over.
	delete(h.controllers, "apiserver-a")
	h.advance(time.Minute)
	b := h.controller("apiserver-b", false)
	f, _ = h.sync(b)
	if f.Status.Tasks[0].Checkpoint != "xx" {
		t.Fatalf("the new leader must resume from the checkpoint: %+v", f.Status.Tasks[0])
	}
	f, _ = h.sync(b)
	if f.Status.State != "Disabled" || len(f.Status.Tasks) != 0 || !meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged) {
		t.Fatalf("the transition must complete: %+v", f.Status)
	}
}

// TestControllerDoesNotLeadUnknownGates: an apiserver that does not know a
// gate never touches its Feature while a live apiserver that knows it
// reports it.
func TestControllerDoesNotLeadUnknownGates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.features = featuresfake.NewClientset(&featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "NewerGate", DesiredState: "Enabled", Management: "CommandLine"},
		Status: featuresv1alpha1.FeatureStatus{State: "Enabled", Version: "1.37", Uses: []featuresv1alpha1.FeatureUse{
			{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-newer"}}}},
	})
	a := h.controller("apiserver-a", false)
	h.renew(a, "apiserver-newer")
	h.features.ClearActions()
	h.sync(a)
	for _, action := range h.features.Actions() {
		if action.GetVerb() != "get" {
			t.Fatalf("an apiserver that does not know the gate wrote: %v", action)
		}
	}
}

// TestControllerKeepsAndRetiresUnknownFeatures: when no live apiserver knows
// a gate, the apiserver that leads its Feature among all live ones marks it
// Known=False and keeps it; once its version is more than
// RetainMinorVersions minor versions behind, it deletes it.
func TestControllerKeepsAndRetiresUnknownFeatures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version     string
		deleted     bool
		wantMessage string
	}{
		{version: "1.37", wantMessage: "announced at 1.37 by a newer kube-apiserver than this 1.36; kept"},
		{version: "1.33", wantMessage: "last announced at 1.33; kept until 1.36, deleted from 1.37 on"},
		{version: "", wantMessage: "is not a version"},
		{version: "1.32", deleted: true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			h := newHarness(t)
			h.features = featuresfake.NewClientset(&featuresv1alpha1.Feature{
				ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system", UID: "uid-1", ResourceVersion: "7"},
				Spec:       featuresv1alpha1.FeatureSpec{Gate: "GoneGate", DesiredState: "Enabled", Management: "CommandLine"},
				// The apiserver that announced it is gone: its use lingers.
				Status: featuresv1alpha1.FeatureStatus{State: "Enabled", Version: tc.version, Uses: []featuresv1alpha1.FeatureUse{
					{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-gone"}}}},
			})
			a := h.controller("apiserver-a", true)
			ctx := context.Background()
			f, err := h.features.FeaturesV1alpha1().Features("kube-system").Get(ctx, "test-gate", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.informers.Features().V1alpha1().Features().Informer().GetIndexer().Update(f); err != nil {
				t.Fatal(err)
			}
			if _, err := a.sync(ctx, "kube-system/test-gate"); err != nil {
				t.Fatal(err)
			}
			f, err = h.features.FeaturesV1alpha1().Features("kube-system").Get(ctx, "test-gate", metav1.GetOptions{})
			if tc.deleted {
				if !apierrors.IsNotFound(err) {
					t.Fatalf("a Feature 4 minor versions behind must be deleted, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionKnown)
			if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, tc.wantMessage) {
				t.Fatalf("Known condition %+v, want False with %q", c, tc.wantMessage)
			}
			if f.Status.State != "Enabled" || f.Spec.DesiredState != "Enabled" {
				t.Fatalf("an unknown Feature's state must be kept: %+v %+v", f.Spec, f.Status)
			}
		})
	}
}

// TestControllerRecordsTransitionsOnceStored: a transition whose status write
// fails is redone by the next pass, and its event and metric are recorded
// once, after the write that stores it. Not parallel: it reads the global
// transitions counter of test-gate, which the other tests move too.
func TestControllerRecordsTransitionsOnceStored(t *testing.T) {
	h := newHarness(t)
	h.features = featuresfake.NewClientset(testGateFeature("Disabled", "Enabled",
		featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a"}}))
	a := h.controller("apiserver-a", false)
	recorder := record.NewFakeRecorder(10)
	useRecorder(a, recorder)
	transitions := transitionsTotal.WithLabelValues("test-gate", "Enabled", "Disabling")
	before, err := metricstestutil.GetCounterMetricValue(transitions)
	if err != nil {
		t.Fatal(err)
	}
	failing := true
	h.features.PrependReactor("update", "features", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "status" || !failing {
			return false, nil, nil
		}
		failing = false
		return true, nil, apierrors.NewConflict(featuresv1alpha1.Resource("features"), "test-gate", errors.New("modified"))
	})
	f, err := h.features.FeaturesV1alpha1().Features("kube-system").Get(context.Background(), "test-gate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.informers.Features().V1alpha1().Features().Informer().GetIndexer().Update(f); err != nil {
		t.Fatal(err)
	}
	h.reportUses(a, f)
	if _, err := a.sync(context.Background(), "kube-system/test-gate"); !apierrors.IsConflict(err) {
		t.Fatalf("sync with a failing status write: %v, want the conflict", err)
	}
	if len(recorder.Events) != 0 {
		t.Fatalf("an event was recorded for a transition that was not stored: %s", <-recorder.Events)
	}
	f, _ = h.sync(a)
	if f.Status.State != "Disabling" {
		t.Fatalf("state %s, want Disabling", f.Status.State)
	}
	if got := len(recorder.Events); got != 1 {
		t.Fatalf("%d events after the stored transition, want 1", got)
	}
	if e := <-recorder.Events; !strings.Contains(e, "TransitionStarted") {
		t.Errorf("event %q, want TransitionStarted", e)
	}
	after, err := metricstestutil.GetCounterMetricValue(transitions)
	if err != nil {
		t.Fatal(err)
	}
	if after-before != 1 {
		t.Errorf("transitions_total{Enabled,Disabling} grew by %v, want 1", after-before)
	}
}

// TestControllerWaitsBeforeMarkingNewFeaturesUnknown: an announcer creates a
// Feature before its reporter writes uses, so a Feature nobody reports yet
// is left alone for a liveness window after its creation.
func TestControllerWaitsBeforeMarkingNewFeaturesUnknown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.features = featuresfake.NewClientset(&featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system", CreationTimestamp: metav1.NewTime(h.clock.Now())},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "NewerGate", DesiredState: "Enabled", Management: "CommandLine"},
	})
	a := h.controller("apiserver-a", true)
	h.advance(time.Second)
	h.features.ClearActions()
	f, requeue := h.sync(a)
	for _, action := range h.features.Actions() {
		if action.GetVerb() != "get" {
			t.Fatalf("a Feature created a second ago was written: %v", action)
		}
	}
	if want := DefaultConfig().LivenessWindow - time.Second; requeue != want {
		t.Fatalf("requeue %v, want the rest of the liveness window %v", requeue, want)
	}
	h.advance(requeue)
	f, _ = h.sync(a)
	if !meta.IsStatusConditionFalse(f.Status.Conditions, featuresv1alpha1.FeatureConditionKnown) {
		t.Fatalf("after a liveness window the unreported Feature must be marked Known=False: %+v", f.Status)
	}
}

// disagreeingAPIServers returns a harness where apiserver-a (configured
// off, with a controller) and apiserver-b (configured on, a live lease
// only) report a Feature that is Enabled.
func disagreeingAPIServers(t *testing.T) (*harness, *Controller) {
	h := newHarness(t)
	h.features = featuresfake.NewClientset(testGateFeature("Enabled", "Enabled",
		featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-b"}},
		featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a"}},
	))
	a := h.controller("apiserver-a", false)
	h.renew(a, "apiserver-b")
	return h, a
}

// TestControllerHoldsDesiredStateForRecentlyGoneAPIServers: an apiserver
// that stopped renewing its lease a minute ago still holds its value, so
// the remaining apiserver's different configuration does not start a
// transition until the forget window has passed.
func TestControllerHoldsDesiredStateForRecentlyGoneAPIServers(t *testing.T) {
	t.Parallel()
	h, a := disagreeingAPIServers(t)
	h.advance(time.Minute) // apiserver-b stops renewing; it is no longer live
	f, _ := h.sync(a)
	if f.Spec.DesiredState != "Enabled" || f.Status.State != "Enabled" ||
		!meta.IsStatusConditionFalse(f.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed) {
		t.Fatalf("a recently gone apiserver must still hold its value: %+v %+v", f.Spec, f.Status)
	}
	h.advance(5 * time.Minute)
	f, _ = h.sync(a)
	if f.Spec.DesiredState != "Disabled" {
		t.Fatalf("after the forget window the remaining apiservers decide: %+v", f.Spec)
	}
}

// TestControllerCountsGracefullyStoppedAPIServers: kube-apiserver deletes its
// identity lease when it shuts down gracefully, a restart included; its
// configured value still counts for the forget window.
func TestControllerCountsGracefullyStoppedAPIServers(t *testing.T) {
	t.Parallel()
	h, a := disagreeingAPIServers(t)
	h.shutDownGracefully(a, "apiserver-b")
	h.advance(time.Second)
	if f, _ := h.sync(a); f.Spec.DesiredState != "Enabled" {
		t.Fatalf("an apiserver that just shut down gracefully must still hold its value: %+v", f.Spec)
	}
	h.advance(6 * time.Minute)
	if f, _ := h.sync(a); f.Spec.DesiredState != "Disabled" {
		t.Fatalf("after the forget window the remaining apiservers decide: %+v", f.Spec)
	}
	// The expired departure is forgotten in the API too.
	a.departures.forget(context.Background())
	if l, err := h.features.CoordinationV1().Leases("kube-system").List(context.Background(), metav1.ListOptions{LabelSelector: departedSelector.String()}); err != nil || len(l.Items) != 0 {
		t.Fatalf("expired tombstones must be deleted: %v %v", l, err)
	}
}

// TestControllerKeepsDeparturesAcrossLeaderChanges: a departure recorded by
// one controller decides for the next one, as when the leader restarts (or
// another apiserver takes over) in the middle of the forget window; with
// departures kept in memory, the new leader forgot them and started the
// transition the departed apiserver disagreed with.
func TestControllerKeepsDeparturesAcrossLeaderChanges(t *testing.T) {
	t.Parallel()
	h, a := disagreeingAPIServers(t)
	h.shutDownGracefully(a, "apiserver-b")
	delete(h.controllers, "apiserver-b")
	h.advance(time.Minute)

	// apiserver-a restarts: a new controller, nothing in memory.
	restarted := h.controller("apiserver-a", false)
	if f, _ := h.sync(restarted); f.Spec.DesiredState != "Enabled" || f.Status.State != "Enabled" {
		t.Fatalf("the restarted leader must still count the departed apiserver: %+v %+v", f.Spec, f.Status)
	}
	// Seeing the same departure again (another apiserver's event) does not
	// move its time.
	if err := restarted.departures.record(context.Background(), "apiserver-b"); err != nil {
		t.Fatal(err)
	}
	h.advance(5 * time.Minute)
	if f, _ := h.sync(restarted); f.Spec.DesiredState != "Disabled" {
		t.Fatalf("after the forget window the remaining apiservers decide: %+v", f.Spec)
	}
}

// TestControllerForgetsDeparturesOfReturningAPIServers: an apiserver that
// comes back loses its tombstone, so that its next departure is timed anew.
func TestControllerForgetsDeparturesOfReturningAPIServers(t *testing.T) {
	t.Parallel()
	h, a := disagreeingAPIServers(t)
	if err := a.departures.record(context.Background(), "apiserver-b"); err != nil {
		t.Fatal(err)
	}
	h.sync(a)
	a.departures.forget(context.Background())
	if l, _ := h.features.CoordinationV1().Leases("kube-system").List(context.Background(), metav1.ListOptions{LabelSelector: departedSelector.String()}); len(l.Items) != 1 {
		t.Fatalf("a fresh departure must be kept: %v", l.Items)
	}
	h.advance(time.Second)
	h.renew(a, "apiserver-b") // apiserver-b renews its lease: it is back
	h.sync(a)
	a.departures.forget(context.Background())
	if l, _ := h.features.CoordinationV1().Leases("kube-system").List(context.Background(), metav1.ListOptions{LabelSelector: departedSelector.String()}); len(l.Items) != 0 {
		t.Fatalf("the tombstone of an apiserver that came back must go: %v", l.Items)
	}
}

// TestControllerHoldsDriftCleanupDuringRollout: an apiserver restarted with
// the gate on while the Feature is Disabled (a rollout) does not flap the state;
// if the rollout is reverted, the held cleanup runs.
func TestControllerHoldsDriftCleanupDuringRollout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.features = featuresfake.NewClientset(testGateFeature("Disabled", "Disabled",
		featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-b"}},
		featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a"}},
	))
	a := h.controller("apiserver-a", false)
	h.renew(a, "apiserver-b")
	f, _ := h.sync(a)
	c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionUsesAgree)
	if f.Status.State != "Disabled" || c == nil || c.Reason != transition.ReasonCleanupHeld || !strings.Contains(c.Message, "kube-apiserver") {
		t.Fatalf("drift during a rollout must be held and remembered: %+v", f.Status)
	}
	// The admin reverts apiserver-b: its enabled entry goes away.
	f.Status.Uses = []featuresv1alpha1.FeatureUse{{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a", "apiserver-b"}}}
	if _, err := h.features.FeaturesV1alpha1().Features("kube-system").UpdateStatus(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, _ = h.sync(a)
	if f.Status.State != "Disabling" {
		t.Fatalf("the held cleanup must run once the apiservers agree on Disabled: %+v", f.Status)
	}
}

// countingTask counts its steps and asks to be stepped again in a minute.
type countingTask struct{ steps *int }

func (countingTask) Name() string        { return "count-steps" }
func (countingTask) Description() string { return "Counts its steps." }
func (t countingTask) Step(_ context.Context, _ tasks.Env, _ *featuresv1alpha1.Feature, s featuresv1alpha1.FeatureTask, _ time.Time) (tasks.Outcome, error) {
	*t.steps++
	return tasks.Outcome{Checkpoint: fmt.Sprintf("pass %d", *t.steps), RequeueAfter: time.Minute}, nil
}

// TestControllerHonoursRequeueAfter: the status write of a step brings the
// Feature straight back through the informer; the task is not stepped again
// before its RequeueAfter (no write loop), but a reversal's new task is.
func TestControllerHonoursRequeueAfter(t *testing.T) {
	t.Parallel()
	steps := 0
	h := newHarness(t)
	h.lifecycles["TestGate"] = lifecycle.Lifecycle{OnDisable: []tasks.Task{countingTask{steps: &steps}}}
	h.features = featuresfake.NewClientset(&featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system", Generation: 1},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "TestGate", DesiredState: "Disabled", Management: "CommandLine"},
		Status: featuresv1alpha1.FeatureStatus{State: "Disabling", Tasks: []featuresv1alpha1.FeatureTask{{Name: "count-steps"}},
			Uses: []featuresv1alpha1.FeatureUse{{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a"}}}},
	})
	a := h.controller("apiserver-a", false)
	f, requeue := h.sync(a)
	if steps != 1 || requeue != time.Minute || f.Status.Tasks[0].Checkpoint != "pass 1" {
		t.Fatalf("first step: %d steps, requeue %v, %+v", steps, requeue, f.Status.Tasks)
	}
	for range 5 {
		h.advance(time.Second)
		if _, requeue = h.sync(a); requeue <= 0 || requeue > time.Minute {
			t.Fatalf("requeue %v while waiting", requeue)
		}
	}
	if steps != 1 {
		t.Fatalf("the task was stepped %d times within its RequeueAfter", steps)
	}
	h.advance(time.Minute)
	if h.sync(a); steps != 2 {
		t.Fatalf("after RequeueAfter the task must step again: %d steps", steps)
	}
}

// TestControllerRetiresRenamedFeatures: a Feature named after an older rule
// of the gate name mapping is deleted once the Feature under the current
// name exists, and kept until then.
func TestControllerRetiresRenamedFeatures(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	old := testGateFeature("Enabled", "Enabled", featuresv1alpha1.FeatureUse{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-a"}})
	old.Name, old.UID = "test-g-ate", "old-uid"
	h.features = featuresfake.NewClientset(old)
	a := h.controller("apiserver-a", true)
	indexer := a.informers.Features().V1alpha1().Features().Informer().GetIndexer()
	if err := indexer.Add(old); err != nil {
		t.Fatal(err)
	}
	if requeue, err := a.sync(context.Background(), "kube-system/"+old.Name); err != nil || requeue != a.cfg.Resync {
		t.Fatalf("before the current Feature exists: requeue %v, %v; want to look again after %v", requeue, err, a.cfg.Resync)
	}
	if _, err := h.features.FeaturesV1alpha1().Features("kube-system").Get(context.Background(), old.Name, metav1.GetOptions{}); err != nil {
		t.Fatalf("the old Feature must be kept until the current one exists: %v", err)
	}
	current := testGateFeature("Enabled", "Enabled")
	if err := indexer.Add(current); err != nil {
		t.Fatal(err)
	}
	if _, err := a.sync(context.Background(), "kube-system/"+old.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := h.features.FeaturesV1alpha1().Features("kube-system").Get(context.Background(), old.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the old Feature must be deleted once the current one exists: %v", err)
	}
}

// TestControllerDeletesExpiredReports: a report that stopped being live
// more than the retention ago is deleted by the apiserver that leads it;
// a live one, and one that expired recently, are kept.
func TestControllerDeletesExpiredReports(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	old := h.report("kube-controller-manager", "gone-host", true)
	h.clock.SetTime(h.clock.Now().Add(2 * time.Hour))
	recent := h.report("kube-controller-manager", "recent-host", true)
	recent.Spec.RenewTime = ptr.To(metav1.NewMicroTime(h.clock.Now().Add(-10 * time.Minute)))
	live := h.report("kube-scheduler", "live-host", true)
	h.features = featuresfake.NewClientset(old, recent, live)
	a := h.controller("apiserver-a", true)
	for _, r := range []*featuresv1alpha1.FeatureReport{old, recent, live} {
		if err := a.informers.Features().V1alpha1().FeatureReports().Informer().GetIndexer().Add(r); err != nil {
			t.Fatal(err)
		}
		a.uses.reports.Set(reports.NewReport(r))
	}
	a.tick(context.Background())
	list, err := h.features.FeaturesV1alpha1().FeatureReports("kube-system").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.Items {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	if want := []string{"kube-controller-manager.recent-host", "kube-scheduler.live-host"}; !slices.Equal(names, want) {
		t.Fatalf("reports left %v, want %v", names, want)
	}
}

// TestControllerHoldsSampleChanges: a change of the uses that only moves
// reporters in or out of a sample is written at most every sampleRefresh,
// so that many reporters restarting one after the other write the Feature
// a bounded number of times; a pair that goes is written at once.
func TestControllerHoldsSampleChanges(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.features = featuresfake.NewClientset(testGateFeature("Enabled", "Enabled"))
	h.reports = []*featuresv1alpha1.FeatureReport{h.report("kube-apiserver", "apiserver-a", true)}
	for i := range 10 {
		h.reports = append(h.reports, h.report("kubelet", fmt.Sprintf("node-%d", i), true))
	}
	a := h.controller("apiserver-a", true)
	f, _ := h.sync(a)
	kubelets := func(f *featuresv1alpha1.Feature) []string {
		for _, u := range f.Status.Uses {
			if u.Component == "kubelet" && u.Enabled {
				return u.Reporters
			}
		}
		return nil
	}
	sample := kubelets(f)
	if len(sample) != 8 {
		t.Fatalf("a sample of 8 kubelets, got %v", f.Status.Uses)
	}
	// A sampled kubelet's report goes: the sample would change, but the
	// uses were just written.
	gone := featuresv1alpha1.FeatureReportName("kubelet", sample[0])
	h.reports = slices.DeleteFunc(h.reports, func(r *featuresv1alpha1.FeatureReport) bool { return r.Name == gone })
	h.advance(time.Second)
	f, requeue := h.sync(a)
	if !slices.Equal(kubelets(f), sample) || requeue <= 0 || requeue > sampleRefresh {
		t.Fatalf("a sample change within %v of the last write must wait: sample %v, requeue %v", sampleRefresh, kubelets(f), requeue)
	}
	h.advance(sampleRefresh)
	f, _ = h.sync(a)
	if got := kubelets(f); len(got) != 8 || slices.Contains(got, sample[0]) {
		t.Fatalf("after %v the sample is refreshed without %s: %v", sampleRefresh, sample[0], got)
	}
	// Every kubelet switches off at once: the pair (kubelet, true) goes and
	// (kubelet, false) comes, written at once.
	for i, r := range h.reports {
		if r.Spec.Component == "kubelet" {
			h.reports[i] = h.report("kubelet", r.Spec.Identity, false)
		}
	}
	h.advance(time.Second)
	f, _ = h.sync(a)
	if kubelets(f) != nil || len(f.Status.Uses) != 2 {
		t.Fatalf("a pair that goes or comes is written at once: %+v", f.Status.Uses)
	}
}

// TestControllerAggregatesUsesOutsideKubeSystem: a third party's Feature in
// its own namespace gets the uses its reporters' reports make, and nothing
// opted into mode ("" for CommandLine).
func (h *harness) apiserverReport(id string, enabled bool, mode featuresv1alpha1.FeatureManagement) *featuresv1alpha1.FeatureReport {
	r := h.report("kube-apiserver", id, enabled)
	r.Spec.Gates[0].Management = mode
	return r
}

// TestControllerManagementFollowsTheAPIServers: spec.management becomes the
// mode every voting apiserver opts the gate into; while they disagree it
// holds, and ConfigurationAgreed names who says what.
func TestControllerManagementFollowsTheAPIServers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.features = featuresfake.NewClientset(testGateFeature("Enabled", "Enabled"))
	a := h.controller("apiserver-a", true)
	h.controller("apiserver-b", true)
	h.renew(a, "apiserver-b")
	h.reports = []*featuresv1alpha1.FeatureReport{
		h.apiserverReport("apiserver-a", true, featuresv1alpha1.FeatureManagementDynamic),
		h.apiserverReport("apiserver-b", true, ""),
	}
	lead, _ := leader.Leader("kube-system/test-gate", []string{"apiserver-a", "apiserver-b"})
	c := h.controllers[lead]
	h.renew(c, "apiserver-a")
	f, _ := h.sync(c)
	f, _ = h.sync(c)
	cond := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed)
	if f.Spec.Management != "CommandLine" || cond == nil || cond.Status != metav1.ConditionFalse ||
		!strings.Contains(cond.Message, "management CommandLine on apiserver-b; Dynamic on apiserver-a") {
		t.Fatalf("while the apiservers disagree on the management it holds: %+v, %+v", f.Spec, cond)
	}
	// The rollout finishes: both opt the gate into Dynamic.
	h.reports[1] = h.apiserverReport("apiserver-b", true, featuresv1alpha1.FeatureManagementDynamic)
	f, _ = h.sync(c)
	if f.Spec.Management != "Dynamic" || f.Spec.DesiredState != "Enabled" {
		t.Fatalf("once the apiservers agree, management is theirs and desired state stays: %+v", f.Spec)
	}
	// A client turns it off: the apiservers' values do not vote, the
	// Feature goes Disabling, and an event names who did it.
	recorder := record.NewFakeRecorder(10)
	useRecorder(c, recorder)
	f.Spec.DesiredState = "Disabled"
	f.Generation++
	f.Annotations = map[string]string{featuresv1alpha1.DesiredStateSetByAnnotation: fmt.Sprintf("alice (generation %d)", f.Generation)}
	if _, err := h.features.FeaturesV1alpha1().Features("kube-system").Update(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, _ = h.sync(c)
	if f.Spec.DesiredState != "Disabled" || f.Status.State != "Disabling" {
		t.Fatalf("a Dynamic Feature's desired state is the client's: %+v %+v", f.Spec, f.Status.State)
	}
	found := false
	for len(recorder.Events) > 0 {
		if e := <-recorder.Events; strings.Contains(e, "DesiredStateSet alice set spec.desiredState to Disabled") {
			found = true
		}
	}
	if !found {
		t.Error("no DesiredStateSet event naming alice")
	}
	if cond := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("the apiservers agree on the management, and their values do not vote: %+v", cond)
	}
}

// TestControllerLooksAgainUntilItsLeaseIsLive: an apiserver whose own
// identity lease lapsed (a partition shorter than a tick) does not lead,
// and looks at the Feature again after half the liveness window rather
// than at the next event: the other apiservers may count it live again,
// and leave the Feature to it, before its own tick sees a change. A live
// apiserver that does not lead waits for an event.
func TestControllerLooksAgainUntilItsLeaseIsLive(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.features = featuresfake.NewClientset(testGateFeature("Enabled", "Enabled"))
	a := h.controller("apiserver-a", true)
	window := DefaultConfig().LivenessWindow

	// Its own lease lapsed: no lead, and a look again.
	h.clock.SetTime(h.clock.Now().Add(window + time.Second))
	h.features.ClearActions()
	if _, requeue := h.sync(a); requeue != window/2 {
		t.Errorf("an apiserver whose own lease lapsed must look again after %s, got %s", window/2, requeue)
	}
	for _, action := range h.features.Actions() {
		if action.GetVerb() != "get" {
			t.Fatalf("an apiserver whose own lease lapsed wrote: %v", action)
		}
	}

	// Live again, with a live apiserver that leads the Feature: no look
	// again.
	other := ""
	for i := range 100 {
		name := fmt.Sprintf("apiserver-%d", i)
		if l, _ := leader.Leader("kube-system/test-gate", []string{"apiserver-a", name}); l == name {
			other = name
			break
		}
	}
	if other == "" {
		t.Fatal("no apiserver name leads test-gate over apiserver-a")
	}
	h.renew(a, "apiserver-a")
	h.renew(a, other)
	if _, requeue := h.sync(a); requeue != 0 {
		t.Errorf("a live apiserver that does not lead must wait for an event, got a look again after %s", requeue)
	}
}
