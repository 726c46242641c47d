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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	clocktesting "k8s.io/utils/clock/testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresfake "k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// flakyTask fails its first failures steps, then counts to three steps
// through its checkpoint.
type flakyTask struct{ failures *int }

func (flakyTask) Name() string        { return "count-to-three" }
func (flakyTask) Description() string { return "Counts to three, one step at a time." }
func (t flakyTask) Step(_ context.Context, _ tasks.Env, _ *featuresv1alpha1.Feature, s featuresv1alpha1.FeatureTask, _ time.Time) (tasks.Outcome, error) {
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

// harness runs controllers of several apiservers over one fake client, with
// one fake clock and a lifecycle registry of its own, so tests run in
// parallel.
type harness struct {
	t           *testing.T
	features    *featuresfake.Clientset
	clock       *clocktesting.FakePassiveClock
	lifecycles  map[featuregate.Feature]lifecycle.Lifecycle
	controllers map[string]*Controller
	// env is what the controllers lend tasks.
	env tasks.Env
	// reports, when not nil, are the FeatureReports the controllers see;
	// when nil, they see reports that say what the stored uses say.
	reports []*featuresv1alpha1.FeatureReport
}

// report returns a FeatureReport of TestGate=enabled by component's
// process identity, renewed now for 40 s.
func (h *harness) report(component, identity string, enabled bool) *featuresv1alpha1.FeatureReport {
	renew := metav1.NewMicroTime(h.clock.Now())
	seconds := int32(40)
	return &featuresv1alpha1.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: featuresv1alpha1.FeatureReportName(component, identity)},
		Spec: featuresv1alpha1.FeatureReportSpec{Component: component, Identity: identity, RenewTime: &renew, LeaseDurationSeconds: &seconds,
			Gates: []featuresv1alpha1.FeatureReportGate{{Name: "TestGate", Enabled: enabled}}},
	}
}

// advance moves the clock; every controller's apiserver renews its lease.
func (h *harness) advance(d time.Duration) {
	h.clock.SetTime(h.clock.Now().Add(d))
	for self, c := range h.controllers {
		h.renew(c, self)
	}
}

func (h *harness) renew(c *Controller, self string) {
	renew := metav1.NewMicroTime(h.clock.Now())
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: self, Namespace: "kube-system", Labels: map[string]string{leader.IdentityLeaseComponentLabelKey: leader.KubeAPIServer}},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &renew},
	}
	if err := leaseIndexer(c).Update(lease); err != nil {
		h.t.Fatal(err)
	}
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, clock: clocktesting.NewFakePassiveClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
		lifecycles: map[featuregate.Feature]lifecycle.Lifecycle{}, controllers: map[string]*Controller{}}
}

// testGateFeature returns the Feature test-gate of TestGate with desired
// state desired, state state and uses uses.
func testGateFeature(desired featuresv1alpha1.FeatureDesiredState, state featuresv1alpha1.FeatureState, uses ...featuresv1alpha1.FeatureUse) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "test-gate", Namespace: "kube-system", Generation: 1},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: "TestGate", DesiredState: desired, Management: "CommandLine"},
		Status:     featuresv1alpha1.FeatureStatus{State: state, Uses: uses},
	}
}

// controller builds a controller for identity self whose caches hold the
// fake client's Feature and a live identity lease of self.
func (h *harness) controller(self string, configured bool) *Controller {
	h.t.Helper()
	gate := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	if err := gate.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"TestGate": {
			{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha},
			{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Beta},
		},
	}); err != nil {
		h.t.Fatal(err)
	}
	if err := gate.SetFromMap(map[string]bool{"TestGate": configured}); err != nil {
		h.t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.WaitForUsesPeriod = time.Minute
	cfg.Clock = h.clock
	cfg.Lifecycles = h.lifecycles
	c, err := NewController(self, gate, h.features, informers.NewSharedInformerFactory(h.features, 0), h.env, cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.renew(c, self)
	h.controllers[self] = c
	return c
}

// shutDownGracefully deletes the identity lease of apiserver from c's cache
// and tells c, as kube-apiserver's graceful shutdown does.
func (h *harness) shutDownGracefully(c *Controller, apiserver string) {
	h.t.Helper()
	lease, exists, err := leaseIndexer(c).GetByKey("kube-system/" + apiserver)
	if err != nil || !exists {
		h.t.Fatalf("no lease of %s: %v", apiserver, err)
	}
	if err := leaseIndexer(c).Delete(lease); err != nil {
		h.t.Fatal(err)
	}
	c.departures.leaseDeleted(lease)
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
	// The departures recorded through the shared client, as c's informer
	// would have them.
	// Read from the tracker: tests look at the client's actions.
	obj, err := h.features.Tracker().List(coordinationv1.SchemeGroupVersion.WithResource("leases"), coordinationv1.SchemeGroupVersion.WithKind("Lease"), "kube-system")
	if err != nil {
		h.t.Fatal(err)
	}
	tombstones := obj.(*coordinationv1.LeaseList)
	for _, obj := range leaseIndexer(c).List() {
		if isTombstone(obj) {
			if err := leaseIndexer(c).Delete(obj); err != nil {
				h.t.Fatal(err)
			}
		}
	}
	for i := range tombstones.Items {
		if !isTombstone(&tombstones.Items[i]) {
			continue
		}
		if err := leaseIndexer(c).Add(&tombstones.Items[i]); err != nil {
			h.t.Fatal(err)
		}
	}
	h.reportUses(c, f)
	requeue, err := c.sync(ctx, "kube-system/test-gate")
	if err != nil {
		h.t.Fatal(err)
	}
	f, _ = h.features.FeaturesV1alpha1().Features("kube-system").Get(ctx, "test-gate", metav1.GetOptions{})
	return f, requeue
}

// reportUses makes c's index of FeatureReports say what f's uses say, as
// if every reporter listed there had reported that value now: tests
// change what components report by changing the stored uses.
func (h *harness) reportUses(c *Controller, f *featuresv1alpha1.Feature) {
	index := reports.NewIndex()
	c.uses.reports, c.rollouts.reports = index, index
	if h.reports != nil {
		for _, r := range h.reports {
			index.Set(reports.NewReport(r))
		}
		return
	}
	for _, u := range f.Status.Uses {
		for _, id := range u.Reporters {
			r := h.report(u.Component, id, u.Enabled)
			r.Spec.Gates[0].Name = f.Spec.Gate
			index.Set(reports.NewReport(r))
		}
	}
}

// useRecorder makes every job of c record its events with r.
func useRecorder(c *Controller, r record.EventRecorder) {
	c.transitions.recorder, c.transitions.runner.recorder, c.transitions.versions.recorder, c.retirement.recorder = r, r, r, r
}

// leaseIndexer is the cache of c's lease informer.
func leaseIndexer(c *Controller) cache.Indexer {
	return c.informers.Coordination().V1().Leases().Informer().GetIndexer()
}
