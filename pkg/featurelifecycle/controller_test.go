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

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresfake "k8s.io/features/client/clientset/versioned/fake"

	"k8s.io/featureflags/pkg/featurelifecycle/leader"
	"k8s.io/featureflags/pkg/featurelifecycle/tasks"
	"k8s.io/featureflags/pkg/features"
)

// flakyTask fails its first failures steps, then counts to three steps
// through its checkpoint.
type flakyTask struct{ failures *int }

func (flakyTask) Name() string        { return "count-to-three" }
func (flakyTask) Description() string { return "Counts to three, one step at a time." }
func (t flakyTask) Step(_ context.Context, _ *featuresv1alpha1.Feature, s featuresv1alpha1.FeatureTask, _ time.Time) (tasks.Outcome, error) {
	if *t.failures > 0 {
		*t.failures--
		return tasks.Outcome{}, fmt.Errorf("transient trouble")
	}
	n := len(s.Checkpoint) + 1
	if n == 3 {
		return tasks.Outcome{Done: true, Checkpoint: strings.Repeat("x", n), Message: "counted"}, nil
	}
	return tasks.Outcome{Checkpoint: strings.Repeat("x", n), Progress: fmt.Sprintf("%d/3", n)}, nil
}

type harness struct {
	t           *testing.T
	features    *featuresfake.Clientset
	now         time.Time
	controllers map[string]*Controller
}

// advance moves the clock; every controller's apiserver renews its lease.
func (h *harness) advance(d time.Duration) {
	h.now = h.now.Add(d)
	for self, c := range h.controllers {
		h.renew(c, self)
	}
}

func (h *harness) renew(c *Controller, self string) {
	renew := metav1.NewMicroTime(h.now)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: self, Namespace: "kube-system", Labels: map[string]string{leader.IdentityLeaseComponentLabelKey: leader.KubeAPIServer}},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &renew},
	}
	if err := c.leaseInformer.GetIndexer().Update(lease); err != nil {
		h.t.Fatal(err)
	}
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), controllers: map[string]*Controller{}}
}

// controller builds a controller for identity self whose caches hold the
// fake client's Feature and a live identity lease of self.
func (h *harness) controller(self string, configured bool) *Controller {
	h.t.Helper()
	gate := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	if err := gate.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"TestGate": {{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Beta}},
	}); err != nil {
		h.t.Fatal(err)
	}
	if err := gate.SetFromMap(map[string]bool{"TestGate": configured}); err != nil {
		h.t.Fatal(err)
	}
	opts := DefaultControllerOptions()
	opts.WaitForUsesPeriod = time.Minute
	c, err := NewController(self, gate, h.features, kubefake.NewClientset(), opts)
	if err != nil {
		h.t.Fatal(err)
	}
	c.now = func() time.Time { return h.now }
	h.renew(c, self)
	c.elector = leader.NewElector(self, c.leases, opts.LivenessWindow, c.now)
	h.controllers[self] = c
	return c
}

// sync copies the stored Feature into c's cache and runs one pass.
func (h *harness) sync(c *Controller) (*featuresv1alpha1.Feature, time.Duration) {
	h.t.Helper()
	ctx := context.Background()
	f, err := h.features.FeaturesV1alpha1().Features("kube-system").Get(ctx, "test-gate", metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := c.informers.Features().V1alpha1().Features().Informer().GetIndexer().Update(f); err != nil {
		h.t.Fatal(err)
	}
	requeue, err := c.sync(ctx, "test-gate")
	if err != nil {
		h.t.Fatal(err)
	}
	f, _ = h.features.FeaturesV1alpha1().Features("kube-system").Get(ctx, "test-gate", metav1.GetOptions{})
	return f, requeue
}

// TestControllerTurnsOffWithTasks walks a Feature from On to Off: desired
// state follows the apiserver's configuration, WaitForUses resets uses and
// waits, a flaky registered task is retried with attempts and messages, and a
// new leader resumes it from the checkpoint.
func TestControllerTurnsOffWithTasks(t *testing.T) {
	failures := 2
	features.Lifecycles["TestGate"] = features.Lifecycle{OnDisable: []tasks.Task{flakyTask{failures: &failures}}}
	defer delete(features.Lifecycles, "TestGate")

	h := newHarness(t)
	h.features = featuresfake.NewClientset(&featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system", Generation: 1},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "TestGate", DesiredState: "On", Management: "CommandLine"},
		Status: featuresv1alpha1.FeatureStatus{State: "On", Uses: []featuresv1alpha1.FeatureUse{
			{Component: "kube-apiserver", Enabled: false, Reporters: []string{"apiserver-a"}},
			{Component: "kubelet", Enabled: true, Reporters: []string{"node-1"}},
		}},
	})
	a := h.controller("apiserver-a", false)

	f, _ := h.sync(a)
	if f.Spec.DesiredState != "Off" {
		t.Fatalf("desired state must follow the apiserver's configuration, got %q", f.Spec.DesiredState)
	}
	f, requeue := h.sync(a)
	if f.Status.State != "TurningOff" || len(f.Status.Tasks) != 2 || f.Status.Tasks[0].Name != tasks.WaitForUsesName ||
		f.Status.Tasks[1].Name != "count-to-three" || f.Status.Uses != nil || f.Status.UsesResetTime == nil || requeue != time.Minute {
		t.Fatalf("entering TurningOff: %+v, requeue %v", f.Status, requeue)
	}
	if c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged); c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("Converged must be False mid-transition: %+v", f.Status.Conditions)
	}

	// The kubelet re-reports the old value: WaitForUses holds.
	h.advance(2 * time.Minute)
	f.Status.Uses = []featuresv1alpha1.FeatureUse{{Component: "kubelet", Enabled: true, Reporters: []string{"node-1"}}}
	if _, err := h.features.FeaturesV1alpha1().Features("kube-system").UpdateStatus(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, _ = h.sync(a)
	if f.Status.Tasks[0].Name != tasks.WaitForUsesName || !strings.Contains(f.Status.Tasks[0].Message, "kubelet (node-1)") {
		t.Fatalf("WaitForUses must name the kubelet: %+v", f.Status.Tasks[0])
	}
	f.Status.Uses = nil
	if _, err := h.features.FeaturesV1alpha1().Features("kube-system").UpdateStatus(context.Background(), f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, _ = h.sync(a)
	if len(f.Status.Tasks) != 1 || f.Status.Tasks[0].Name != "count-to-three" {
		t.Fatalf("WaitForUses must be done: %+v", f.Status.Tasks)
	}

	// Two failures: attempts and messages are recorded, nothing is lost.
	for i := 2; i <= 3; i++ {
		f, requeue = h.sync(a)
		task := f.Status.Tasks[0]
		if task.Attempts != int32(i) || !strings.Contains(task.Message, "transient trouble") || requeue <= 0 {
			t.Fatalf("failure %d: %+v, requeue %v", i-1, task, requeue)
		}
	}
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
	if f.Status.State != "Off" || len(f.Status.Tasks) != 0 || !meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged) {
		t.Fatalf("the transition must complete: %+v", f.Status)
	}
}

// TestControllerDoesNotLeadUnknownGates: an apiserver that does not know a
// gate never touches its Feature.
func TestControllerDoesNotLeadUnknownGates(t *testing.T) {
	h := newHarness(t)
	h.features = featuresfake.NewClientset(&featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "NewerGate", DesiredState: "On", Management: "CommandLine"},
		Status:     featuresv1alpha1.FeatureStatus{State: "On"},
	})
	a := h.controller("apiserver-a", false)
	h.features.ClearActions()
	h.sync(a)
	for _, action := range h.features.Actions() {
		if action.GetVerb() != "get" {
			t.Fatalf("an apiserver that does not know the gate wrote: %v", action)
		}
	}
}
