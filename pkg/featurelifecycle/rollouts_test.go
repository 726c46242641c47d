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
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	metricstestutil "k8s.io/component-base/metrics/testutil"
	"k8s.io/features/cohort"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/noderequests"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
	"k8s.io/kubernetes/pkg/printers/internalversion"
)

// rolloutFixture is a leader's view of n nodes and their kubelets' reports.
type rolloutFixture struct {
	t       *testing.T
	nodes   cache.Indexer
	index   *reports.Index
	r       *rollouts
	feature *featuresv1alpha1.Feature
}

func newRolloutFixture(t *testing.T, n int) *rolloutFixture {
	x := &rolloutFixture{t: t, nodes: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), index: reports.NewIndex()}
	for i := range n {
		x.setNode(fmt.Sprintf("node-%d", i), true)
	}
	x.r = &rollouts{nodes: corelisters.NewNodeLister(x.nodes), reports: x.index}
	x.feature = &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "extend-web-sockets-to-kubelet", Namespace: KubeNamespace, UID: "uid-1", Generation: 2},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "ExtendWebSocketsToKubelet", DesiredState: featuresv1alpha1.FeatureDesiredStateEnabled,
			Management: featuresv1alpha1.FeatureManagementDynamic, Rollout: &featuresv1alpha1.FeatureRollout{
				Steps: []featuresv1alpha1.FeatureRolloutStep{{Count: 1, SoakSeconds: ptr.To(int32(60))}, {Percent: 50, SoakSeconds: ptr.To(int32(60))},
					{Percent: 100, SoakSeconds: ptr.To(int32(60))}}}},
		Status: featuresv1alpha1.FeatureStatus{Uses: []featuresv1alpha1.FeatureUse{{Component: kubelet, Enabled: false}}},
	}
	return x
}

func (x *rolloutFixture) setNode(name string, ready bool) {
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	if err := x.nodes.Update(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}); err != nil {
		x.t.Fatal(err)
	}
}

// report makes node's kubelet report the gate enabled or not.
func (x *rolloutFixture) report(node string, enabled bool) {
	x.index.Set(&reports.Report{Namespace: KubeNamespace, Name: "kubelet." + node, Component: kubelet, Identity: node,
		Gates: map[string]bool{x.feature.Spec.Gate: enabled}})
}

// sync runs the leader's pass at now and stores the status.
func (x *rolloutFixture) sync(now time.Time) (*featuresv1alpha1.FeatureRolloutStatus, *rolloutEvent) {
	x.t.Helper()
	status := x.feature.Status.DeepCopy()
	_, ev, err := x.r.sync(x.feature, status, now)
	if err != nil {
		x.t.Fatal(err)
	}
	x.feature.Status = *status
	return status.Rollout, ev
}

// members returns the nodes the published cohort holds.
func (x *rolloutFixture) members() []string {
	r := x.feature.Status.Rollout
	c, err := cohort.FromAPI(r.Cohort)
	if err != nil {
		x.t.Fatal(err)
	}
	var out []string
	for _, key := range x.nodes.ListKeys() {
		if c.Member(cohort.Rank(r.Cohort.Seed, key), nil) {
			out = append(out, key)
		}
	}
	return out
}

func TestRolloutWidensWhileHealthy(t *testing.T) {
	x := newRolloutFixture(t, 20)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	r, ev := x.sync(now)
	if r.Phase != featuresv1alpha1.FeatureRolloutProgressing || r.Step != 1 || r.Members != 1 || r.Candidates != 20 ||
		r.From != featuresv1alpha1.FeatureDesiredStateDisabled || r.Cohort.Seed != "uid-1" {
		t.Fatalf("first pass: %+v", r)
	}
	if ev == nil || ev.reason != "RolloutStepStarted" {
		t.Errorf("first pass event %+v, want RolloutStepStarted", ev)
	}
	if c := meta.FindStatusCondition(x.feature.Status.Conditions, featuresv1alpha1.FeatureConditionProgressing); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Progressing condition %+v", c)
	}
	first := x.members()
	// Soaked but not reported: the step waits.
	if r, _ := x.sync(now.Add(2 * time.Minute)); r.Step != 1 {
		t.Fatalf("the step widened before its cohort reported the new value: %+v", r)
	}
	x.report(first[0], true)
	if r, _ := x.sync(now.Add(3 * time.Minute)); r.Step != 2 || r.Members != 10 {
		t.Fatalf("second step: %+v", r)
	}
	second := x.members()
	for _, n := range first {
		if !slices.Contains(second, n) {
			t.Errorf("widening dropped %s", n)
		}
	}
	for _, n := range second {
		x.report(n, true)
	}
	if r, _ := x.sync(now.Add(5 * time.Minute)); r.Step != 3 || !r.Cohort.All {
		t.Fatalf("third step: %+v", r)
	}
	for i := range 20 {
		x.report(fmt.Sprintf("node-%d", i), true)
	}
	r, ev = x.sync(now.Add(7 * time.Minute))
	if r.Phase != featuresv1alpha1.FeatureRolloutComplete || ev == nil || ev.reason != "RolloutComplete" {
		t.Fatalf("last step: %+v, event %+v", r, ev)
	}
	if got := internalversion.DefaultRolloutSteps; got != len(rollout.DefaultSteps()) {
		t.Errorf("the printer's default step count %d is not the rollout's %d", got, len(rollout.DefaultSteps()))
	}
}

func TestRolloutRollsBackOnNotReady(t *testing.T) {
	x := newRolloutFixture(t, 20)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	stopped := rolloutsStoppedTotal.WithLabelValues(x.feature.Name, rollout.ReasonNodeNotReady)
	before, err := metricstestutil.GetCounterMetricValue(stopped)
	if err != nil {
		t.Fatal(err)
	}
	x.sync(now)
	if v, err := metricstestutil.GetGaugeMetricValue(rolloutStepGauge.WithLabelValues(x.feature.Name)); err != nil || v != 1 {
		t.Errorf("rollout_step %v, %v; want 1", v, err)
	}
	if v, err := metricstestutil.GetGaugeMetricValue(rolloutCohortGauge.WithLabelValues(x.feature.Name)); err != nil || v != 1 {
		t.Errorf("rollout_cohort_members %v, %v; want 1", v, err)
	}
	member := x.members()[0]
	x.report(member, true)
	x.setNode(member, false)
	r, ev := x.sync(now.Add(time.Second))
	if r.Phase != featuresv1alpha1.FeatureRolloutRolledBack || r.Reason != rollout.ReasonNodeNotReady || r.Step != 1 || r.Cohort.Below != "" || r.Cohort.All {
		t.Fatalf("after NotReady: %+v", r)
	}
	if ev == nil || ev.eventType != corev1.EventTypeWarning {
		t.Errorf("event %+v, want a warning", ev)
	}
	if after, err := metricstestutil.GetCounterMetricValue(stopped); err != nil || after != before+1 {
		t.Errorf("rollouts_stopped_total{reason=NodeNotReady} went from %v to %v (%v), want one more", before, after, err)
	}
	for _, phase := range []featuresv1alpha1.FeatureRolloutPhase{featuresv1alpha1.FeatureRolloutRolledBack, featuresv1alpha1.FeatureRolloutProgressing} {
		want := 0.0
		if phase == featuresv1alpha1.FeatureRolloutRolledBack {
			want = 1
		}
		if v, err := metricstestutil.GetGaugeMetricValue(rolloutPhaseGauge.WithLabelValues(x.feature.Name, string(phase))); err != nil || v != want {
			t.Errorf("rollout_phase{phase=%s} %v, %v; want %v", phase, v, err, want)
		}
	}
	if c := meta.FindStatusCondition(x.feature.Status.Conditions, featuresv1alpha1.FeatureConditionProgressing); c == nil || c.Status != metav1.ConditionFalse || c.Reason != rollout.ReasonNodeNotReady {
		t.Errorf("Progressing condition %+v", c)
	}
	// Over: nothing moves, and the next rollout starts from the old value.
	if r2, ev := x.sync(now.Add(time.Hour)); r2.Phase != featuresv1alpha1.FeatureRolloutRolledBack || ev != nil {
		t.Errorf("a rolled back rollout moved: %+v %+v", r2, ev)
	}
	if rolling(x.feature) {
		t.Error("a rolled back rollout counts as rolling")
	}
	x.feature.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateDisabled
	if r, _ := x.sync(now.Add(2 * time.Hour)); r.Phase != featuresv1alpha1.FeatureRolloutComplete || r.From != featuresv1alpha1.FeatureDesiredStateDisabled {
		t.Errorf("going back to the old value after a rollback: %+v", r)
	}
}

func TestRolloutPauseAbortAndRemoval(t *testing.T) {
	x := newRolloutFixture(t, 20)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	x.sync(now)
	x.feature.Spec.Rollout.Paused = true
	if r, _ := x.sync(now.Add(time.Hour)); r.Phase != featuresv1alpha1.FeatureRolloutPaused || r.Step != 1 {
		t.Fatalf("paused: %+v", r)
	}
	x.feature.Spec.Rollout.Abort = true
	if r, _ := x.sync(now.Add(2 * time.Hour)); r.Phase != featuresv1alpha1.FeatureRolloutAborted || r.Cohort.Below != "" {
		t.Fatalf("aborted: %+v", r)
	}
	x.feature.Spec.Rollout = nil
	if r, _ := x.sync(now.Add(3 * time.Hour)); r != nil || meta.FindStatusCondition(x.feature.Status.Conditions, featuresv1alpha1.FeatureConditionProgressing) != nil {
		t.Errorf("without spec.rollout, status.rollout and Progressing must go: %+v", r)
	}
}

func TestRolloutFrom(t *testing.T) {
	on, off := featuresv1alpha1.FeatureDesiredStateEnabled, featuresv1alpha1.FeatureDesiredStateDisabled
	for _, tc := range []struct {
		name     string
		previous *featuresv1alpha1.FeatureRolloutStatus
		uses     []featuresv1alpha1.FeatureUse
		to, want featuresv1alpha1.FeatureDesiredState
	}{
		{"first, uses off", nil, []featuresv1alpha1.FeatureUse{{Component: kubelet}}, on, off},
		{"first, every use on already", nil, []featuresv1alpha1.FeatureUse{{Component: kubelet, Enabled: true}}, on, on},
		{"first, no uses", nil, nil, off, on},
		{"after a complete one", &featuresv1alpha1.FeatureRolloutStatus{Phase: "Complete", From: off, To: on}, nil, off, on},
		{"after a rollback", &featuresv1alpha1.FeatureRolloutStatus{Phase: "RolledBack", From: off, To: on}, nil, off, off},
		{"back during one", &featuresv1alpha1.FeatureRolloutStatus{Phase: "Progressing", From: off, To: on}, nil, off, off},
	} {
		if got := rolloutFrom(tc.previous, tc.uses, tc.to); got != tc.want {
			t.Errorf("%s: from %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestRolloutRollsBackOnRestart(t *testing.T) {
	x := newRolloutFixture(t, 20)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	x.sync(now)
	member := x.members()[0]
	started := func(node string, at time.Time) {
		x.index.Set(&reports.Report{Namespace: KubeNamespace, Name: "kubelet." + node, Component: kubelet, Identity: node,
			Gates: map[string]bool{x.feature.Spec.Gate: node == member}, StartTime: at})
	}
	// Started before the step: no restart.
	started(member, now.Add(-time.Hour))
	if r, _ := x.sync(now.Add(time.Second)); r.Phase != featuresv1alpha1.FeatureRolloutProgressing {
		t.Fatalf("a kubelet started before the step failed it: %+v", r)
	}
	started(member, now.Add(2*time.Second))
	r, ev := x.sync(now.Add(3 * time.Second))
	if r.Phase != featuresv1alpha1.FeatureRolloutRolledBack || r.Reason != rollout.ReasonRestarted || !strings.Contains(r.Message, member) {
		t.Fatalf("after the member restarted: %+v", r)
	}
	if ev == nil || ev.eventType != corev1.EventTypeWarning || ev.reason != "Rollout"+rollout.ReasonRestarted {
		t.Errorf("event %+v, want a RolloutRestarted warning", ev)
	}
}

func TestRolloutRestartsAsUsualPass(t *testing.T) {
	x := newRolloutFixture(t, 20)
	x.feature.Spec.Rollout.Analysis = &featuresv1alpha1.FeatureRolloutAnalysis{MaxRestarts: 1}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	x.sync(now)
	member := x.members()[0]
	x.index.Set(&reports.Report{Namespace: KubeNamespace, Name: "kubelet." + member, Component: kubelet, Identity: member,
		Gates: map[string]bool{x.feature.Spec.Gate: true}, StartTime: now.Add(time.Second)})
	if r, _ := x.sync(now.Add(2 * time.Second)); r.Phase != featuresv1alpha1.FeatureRolloutProgressing {
		t.Fatalf("one restart within maxRestarts 1 failed the step: %+v", r)
	}
	// A node created after the step began: its kubelet's start is no
	// restart.
	late := x.members()[0]
	if err := x.nodes.Update(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: late, CreationTimestamp: metav1.NewTime(now.Add(5 * time.Second))},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}); err != nil {
		t.Fatal(err)
	}
	x.feature.Spec.Rollout.Analysis.MaxRestarts = 0
	if r, _ := x.sync(now.Add(6 * time.Second)); r.Phase != featuresv1alpha1.FeatureRolloutProgressing {
		t.Fatalf("a new node's kubelet counted as a restart: %+v", r)
	}
}

func TestRolloutRollsBackOnErrorRate(t *testing.T) {
	x := newRolloutFixture(t, 20)
	x.r.requests = noderequests.New()
	x.r.windows = map[string]*requestWindow{}
	x.feature.Spec.Rollout.Analysis = &featuresv1alpha1.FeatureRolloutAnalysis{MinRequests: ptr.To(int32(10)), MaxErrorRateIncreasePercent: ptr.To(int32(5))}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	x.sync(now)
	if x.r.requests.Armed() {
		t.Fatal("the counter is armed before the step's first analysis")
	}
	member := x.members()[0]
	x.report(member, true)
	x.sync(now.Add(time.Second)) // the step's window starts
	if !x.r.requests.Armed() {
		t.Fatal("the counter is not armed during a step")
	}
	// The member fails 3 of 10 requests (30 %); another node 1 of 100.
	var other string
	for i := range 20 {
		if n := fmt.Sprintf("node-%d", i); n != member {
			other = n
			break
		}
	}
	for i := range 10 {
		nodeRequest(x.r.requests, member, i < 3)
	}
	for i := range 100 {
		nodeRequest(x.r.requests, other, i < 1)
	}
	r, ev := x.sync(now.Add(2 * time.Second))
	if r.Phase != featuresv1alpha1.FeatureRolloutRolledBack || r.Reason != rollout.ReasonErrorRateRose {
		t.Fatalf("after the cohort's errors: %+v", r)
	}
	if !strings.Contains(r.Message, "30.00% (3 of 10 requests) against 1.00% outside it") {
		t.Errorf("message %q does not give the rates", r.Message)
	}
	if ev == nil || ev.eventType != corev1.EventTypeWarning {
		t.Errorf("event %+v, want a warning", ev)
	}
	if x.r.requests.Armed() {
		t.Error("the counter is still armed after the rollout stopped")
	}
}

// nodeRequest sends one resource request of node's kubelet through the
// counter, failing (500) or not.
func nodeRequest(c *noderequests.Counter, node string, fail bool) {
	h := c.WrapHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	ctx := request.WithRequestInfo(req.Context(), &request.RequestInfo{IsResourceRequest: true, Verb: "get", Resource: "pods"})
	ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "system:node:" + node, Groups: []string{user.NodesGroup}})
	h.ServeHTTP(httptest.NewRecorder(), req.WithContext(ctx))
}

// TestRolloutGaugesLeaveWithTheRollout: only a leader with a rollout
// exports its gauges; they go when the rollout ends, when the leader no
// longer leads the Feature, and for a Feature outside kube-system there are
// none.
func TestRolloutGaugesLeaveWithTheRollout(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	// exported deletes the gauges of name and says whether there were any.
	exported := func(name string) bool {
		step := rolloutStepGauge.DeleteLabelValues(name)
		members := rolloutCohortGauge.DeleteLabelValues(name)
		phase := rolloutPhaseGauge.DeleteLabelValues(name, string(featuresv1alpha1.FeatureRolloutProgressing))
		return step || members || phase
	}

	x := newRolloutFixture(t, 20)
	x.feature.Name = "gauges-with-the-rollout"
	x.sync(now)
	if v, err := metricstestutil.GetGaugeMetricValue(rolloutStepGauge.WithLabelValues(x.feature.Name)); err != nil || v != 1 {
		t.Fatalf("rollout_step %v, %v; want 1", v, err)
	}
	x.feature.Spec.Rollout = nil
	x.sync(now.Add(time.Second))
	if exported(x.feature.Name) {
		t.Error("the gauges of a Feature whose rollout ended are still exported")
	}

	x = newRolloutFixture(t, 20)
	x.feature.Name = "gauges-with-the-leader"
	x.sync(now)
	x.r.drop(x.feature.Namespace + "/" + x.feature.Name)
	if exported(x.feature.Name) {
		t.Error("the gauges of a Feature this apiserver no longer leads are still exported")
	}

	x = newRolloutFixture(t, 20)
	x.feature.Name, x.feature.Namespace = "gauges-of-a-tenant", "tenant"
	x.sync(now)
	if exported(x.feature.Name) || exported(ThirdPartyMetricFeature) {
		t.Error("a Feature outside kube-system has rollout gauges")
	}
}
