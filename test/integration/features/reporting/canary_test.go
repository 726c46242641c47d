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

package reporting

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-base/featuregate"
	"k8s.io/features/cohort"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/test/integration/features/harness"
)

// canaryFigures are what one canary rollout measured.
type canaryFigures struct {
	// final is the rollout's last status.
	final featuresv1alpha1.FeatureRolloutStatus
	// cohorts are the cohorts status.rollout published, in order, as
	// node sets.
	cohorts []sets.Set[string]
	// touched are the nodes whose kubelet ever had the new value.
	touched sets.Set[string]
	// detected is from the fault's start (a node NotReady, a kubelet
	// restarted, a kubelet's first failing request) to the rollout
	// stopping (status.rollout RolledBack); restored from then to every
	// touched kubelet having the old value again.
	detected, restored time.Duration
	// featureWrites and reportWrites count the writes of the Feature and
	// of the kubelets' FeatureReports from the start of the rollout to its
	// end; steps how many steps started; targetWrites the writes of the
	// Feature's FeatureTarget, which is what the kubelets follow.
	featureWrites, reportWrites, steps, targetWrites int
	// followedPerNode is the bytes of the followed objects' watch bodies
	// each kubelet received during the rollout.
	followedPerNode float64
}

// canaryFault is what goes wrong on a node whose kubelet takes the new
// value.
type canaryFault string

const (
	// noFault: nothing; the rollout is healthy.
	noFault canaryFault = ""
	// faultNotReady: the kubelet fails readiness, its Node turns NotReady.
	faultNotReady canaryFault = "NodeNotReady"
	// faultRestart: the kubelet restarts (its report states a new start).
	faultRestart canaryFault = "Restarted"
	// faultErrors: the kubelet's requests fail validation (422).
	faultErrors canaryFault = "ErrorRateRose"
)

// canaryMinRequests is the analysis' minRequests in the scenarios: the
// faulty kubelet makes them in well under a second at a kubelet's QPS.
const canaryMinRequests = 20

// runCanary rolls followGate's new value out to n simulated kubelets that
// follow the Feature (k8s.io/features/options) in steps of 1 node, then 10,
// 25, 50 and 100 percent, with a soak of soak each. With a fault, a kubelet
// that takes the new value breaks as fault says, as a kubelet whose new
// code path is faulty would.
func runCanary(t testing.TB, n int, fault canaryFault, soak time.Duration) canaryFigures {
	t.Helper()
	flags := append(slices.Clone(harness.LifecycleFlags), "--feature-lifecycle-dynamic-gates="+string(followGate))
	c := startScaleCluster(t, n, flags...)
	c.flow = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	features := c.admin.FeaturesV1alpha1().Features(metav1.NamespaceSystem)
	name := featuresv1alpha1.FeatureName(string(followGate))
	if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		f, err := features.Get(ctx, name, metav1.GetOptions{})
		return err == nil && f.Spec.Management == featuresv1alpha1.FeatureManagementDynamic, nil
	}); err != nil {
		t.Fatalf("%s did not become Dynamic: %v", followGate, err)
	}
	// The nodes, Ready, as their kubelets registered them.
	if err := parallel(n, 16, func(i int) error {
		node, err := c.kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: c.nodes[i],
			Labels: map[string]string{"kubernetes.io/hostname": c.nodes[i]}}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		_, err = c.kube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := c.defaults[followGate]
	c.connectKubelets(t)
	c.startKubelets(t)
	c.waitSettled(t, func(g featuregate.Feature) bool { return c.defaults[g] })

	to := featuresv1alpha1.FeatureDesiredStateEnabled
	if before {
		to = featuresv1alpha1.FeatureDesiredStateDisabled
	}
	var (
		mu      sync.Mutex
		fig     = canaryFigures{touched: sets.New[string]()}
		notRdy  time.Time
		stopped time.Time
	)
	// Every status the Feature goes through.
	w, err := features.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	done := make(chan featuresv1alpha1.FeatureRolloutStatus, 1)
	go func() {
		var lastStep int32 = -1
		for ev := range w.ResultChan() {
			f, ok := ev.Object.(*featuresv1alpha1.Feature)
			if !ok || f.Status.Rollout == nil || f.Status.Rollout.To != to {
				continue
			}
			r := *f.Status.Rollout
			mu.Lock()
			fig.featureWrites++
			if r.Step != lastStep && r.Phase == featuresv1alpha1.FeatureRolloutProgressing {
				fig.steps++
				lastStep = r.Step
			}
			members := sets.New[string]()
			if co, err := cohort.FromAPI(r.Cohort); err == nil {
				for _, node := range c.nodes {
					if co.Member(cohort.Rank(r.Cohort.Seed, node), nil) {
						members.Insert(node)
					}
				}
			}
			if len(fig.cohorts) == 0 || !members.Equal(fig.cohorts[len(fig.cohorts)-1]) {
				fig.cohorts = append(fig.cohorts, members)
			}
			final := r.Phase.Final() || r.Phase == featuresv1alpha1.FeatureRolloutFailed
			if final && stopped.IsZero() {
				stopped = time.Now()
			}
			mu.Unlock()
			if final {
				done <- r
				return
			}
		}
	}()
	// The kubelets, every 50 ms: who has the new value; a faulty one turns
	// its node NotReady.
	newValue := to == featuresv1alpha1.FeatureDesiredStateEnabled
	failed := sets.New[string]()
	probeCtx, stopProbe := context.WithCancel(ctx)
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-probeCtx.Done():
				return
			case <-tick.C:
			}
			c.mu.Lock()
			var turned []string
			for node, k := range c.kubelets {
				if k.gate != nil && k.gate.Enabled(followGate) == newValue {
					turned = append(turned, node)
				}
			}
			c.mu.Unlock()
			mu.Lock()
			fig.touched.Insert(turned...)
			mu.Unlock()
			for _, node := range turned {
				if fault == noFault || failed.Has(node) {
					continue
				}
				failed.Insert(node)
				switch fault {
				case faultNotReady:
					if err := setReady(ctx, c, node, false); err != nil {
						t.Errorf("turning %s NotReady: %v", node, err)
					}
				case faultRestart:
					if err := c.startKubelet(node, nil); err != nil {
						t.Errorf("restarting the kubelet of %s: %v", node, err)
					}
				case faultErrors:
					go c.failRequests(probeCtx, node)
				}
				mu.Lock()
				if notRdy.IsZero() {
					notRdy = time.Now()
				}
				mu.Unlock()
			}
		}
	}()

	reports0 := c.reportWrites(ctx, t)
	target0 := c.targetWrites(ctx, t, name)
	followed0 := c.followed.Load()
	rollout, err := json.Marshal(map[string]any{"spec": map[string]any{"desiredState": to, "rollout": featuresv1alpha1.FeatureRollout{
		Steps: []featuresv1alpha1.FeatureRolloutStep{
			{Count: 1, SoakSeconds: ptr.To(int32(soak / time.Second))},
			{Percent: 10, SoakSeconds: ptr.To(int32(soak / time.Second))},
			{Percent: 25, SoakSeconds: ptr.To(int32(soak / time.Second))},
			{Percent: 50, SoakSeconds: ptr.To(int32(soak / time.Second))},
			{Percent: 100, SoakSeconds: ptr.To(int32(soak / time.Second))},
		},
		Analysis: &featuresv1alpha1.FeatureRolloutAnalysis{IntervalSeconds: ptr.To(int32(1)), ReportTimeoutSeconds: ptr.To(int32(120)),
			MinRequests: ptr.To(int32(canaryMinRequests))},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := features.Patch(ctx, name, types.MergePatchType, rollout, metav1.PatchOptions{}); err != nil {
		t.Fatalf("starting the rollout: %v", err)
	}
	select {
	case fig.final = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the rollout did not end within 5 minutes")
	}
	// Until every touched kubelet holds the value the rollout left it.
	left := !newValue
	if fig.final.Phase == featuresv1alpha1.FeatureRolloutComplete {
		left = newValue
	}
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, k := range c.kubelets {
			if k.gate.Enabled(followGate) != left {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Fatalf("the kubelets did not all take the value the rollout (%s) left them: %v", fig.final.Phase, err)
	}
	mu.Lock()
	fig.restored = time.Since(stopped)
	if !notRdy.IsZero() {
		fig.detected = stopped.Sub(notRdy)
	}
	mu.Unlock()
	stopProbe()
	<-probed
	fig.reportWrites = c.reportWrites(ctx, t) - reports0
	fig.targetWrites = c.targetWrites(ctx, t, name) - target0
	fig.followedPerNode = float64(c.followed.Load()-followed0) / float64(n)
	return fig
}

// failRequests makes node's kubelet send invalid writes (Events with a
// label key that is not a valid name, which validation refuses with a 422)
// until ctx ends, at most 2,000 of them.
func (c *scaleCluster) failRequests(ctx context.Context, node string) {
	c.mu.Lock()
	k := c.kubelets[node]
	c.mu.Unlock()
	for i := 0; i < 2000 && ctx.Err() == nil; i++ {
		_, _ = k.client.CoreV1().Events(metav1.NamespaceDefault).Create(ctx, &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: node + "-", Labels: map[string]string{"not a label key!": "x"}}}, metav1.CreateOptions{})
	}
}

// targetWrites returns the generation of a Feature's FeatureTarget: how
// often its spec was written.
func (c *scaleCluster) targetWrites(ctx context.Context, t testing.TB, name string) int {
	t.Helper()
	target, err := c.admin.FeaturesV1alpha1().FeatureTargets(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return int(target.Generation)
}

// setReady sets a node's Ready condition.
func setReady(ctx context.Context, c *scaleCluster, node string, ready bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status, reason := corev1.ConditionTrue, "KubeletReady"
		if !ready {
			status, reason = corev1.ConditionFalse, "CanaryFaultInjected"
		}
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == corev1.NodeReady {
				n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason = status, reason
				n.Status.Conditions[i].LastTransitionTime = metav1.Now()
			}
		}
		_, err = c.kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// reportWrites returns the sum of the kubelets' reports' generations: how
// often they were written.
func (c *scaleCluster) reportWrites(ctx context.Context, t testing.TB) int {
	t.Helper()
	list, err := c.admin.FeaturesV1alpha1().FeatureReports(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range list.Items {
		if r.Spec.Component == "kubelet" {
			total += int(r.Generation)
		}
	}
	return total
}

// checkCohorts checks that every cohort kept the earlier one's members
// until a rollback emptied it, and that no kubelet outside the cohorts ever
// had the new value.
func checkCohorts(t testing.TB, fig canaryFigures) {
	t.Helper()
	union := sets.New[string]()
	for i, co := range fig.cohorts {
		if i > 0 && co.Len() > 0 && !co.IsSuperset(fig.cohorts[i-1]) {
			t.Errorf("cohort %d (%d nodes) dropped members of cohort %d: %v", i, co.Len(), i-1, sets.List(fig.cohorts[i-1].Difference(co)))
		}
		union = union.Union(co)
	}
	if outside := fig.touched.Difference(union); outside.Len() > 0 {
		t.Errorf("kubelets outside every cohort had the new value: %v", sets.List(outside))
	}
}

// canaryInterval is the analysis interval of the canary scenarios.
const canaryInterval = time.Second

// TestCanaryRollout rolls followGate out in steps to 20 simulated kubelets:
// healthy, it reaches 100 % with no manual step, every widening keeping the
// earlier cohort; with a fault that turns a node NotReady once its kubelet
// takes the new value, the rollout stops at the first step, within two
// analysis intervals, and rolls the cohort back, and no kubelet outside the
// cohort ever had the new value. BenchmarkCanaryRollout runs the faulty
// rollout at 200 nodes too.
func TestCanaryRollout(t *testing.T) {
	t.Run("healthy/nodes=20", func(t *testing.T) {
		fig := runCanary(t, 20, noFault, 2*time.Second)
		if fig.final.Phase != featuresv1alpha1.FeatureRolloutComplete {
			t.Fatalf("the healthy rollout ended %s: %s", fig.final.Phase, fig.final.Message)
		}
		checkCohorts(t, fig)
		if got := len(fig.cohorts); got < 5 || fig.cohorts[got-1].Len() != 20 {
			t.Errorf("cohorts %v, want 5 widenings ending with all 20 nodes", cohortSizes(fig))
		}
		if fig.touched.Len() != 20 {
			t.Errorf("%d kubelets took the new value, want 20", fig.touched.Len())
		}
		// Following costs each kubelet one small event per change of what
		// it takes, not one per write of the Feature.
		perChange := fig.followedPerNode / float64(max(fig.targetWrites, 1))
		if fig.targetWrites > fig.steps+1 || perChange > 1024 {
			t.Errorf("following cost each kubelet %.0f bytes for %d target writes (%.0f per change) over %d steps: want at most one write per step and the completion, and at most 1 KiB each",
				fig.followedPerNode, fig.targetWrites, perChange, fig.steps)
		}
		t.Logf("healthy rollout to 20 nodes: cohorts %v; %d Feature writes for %d steps (%.1f per step), %d target writes, %.0f bytes followed per kubelet (%.0f per change), %d kubelet report writes",
			cohortSizes(fig), fig.featureWrites, fig.steps, float64(fig.featureWrites)/float64(max(fig.steps, 1)), fig.targetWrites,
			fig.followedPerNode, perChange, fig.reportWrites)
	})
	t.Run("faulty/nodes=20", func(t *testing.T) { faultyCanary(t, 20, faultNotReady) })
	t.Run("restarting/nodes=20", func(t *testing.T) { faultyCanary(t, 20, faultRestart) })
	t.Run("failing-requests/nodes=20", func(t *testing.T) { faultyCanary(t, 20, faultErrors) })
}

// faultyCanary runs a faulty rollout at n nodes and checks it stopped at
// the first step for the fault, with one node touched, within two analysis
// intervals of the fault (for failing requests: of the cohort's first
// minRequests requests, at a kubelet's 50 QPS).
func faultyCanary(t testing.TB, n int, fault canaryFault) canaryFigures {
	t.Helper()
	fig := runCanary(t, n, fault, 30*time.Second)
	if fig.final.Phase != featuresv1alpha1.FeatureRolloutRolledBack {
		t.Fatalf("the faulty rollout ended %s (%s), want RolledBack", fig.final.Phase, fig.final.Message)
	}
	if fig.final.Step != 1 || fig.final.Reason != string(fault) {
		t.Errorf("the faulty rollout stopped at step %d for %s (%s), want step 1 for %s", fig.final.Step, fig.final.Reason, fig.final.Message, fault)
	}
	checkCohorts(t, fig)
	if fig.touched.Len() != 1 {
		t.Errorf("%d kubelets took the faulty value, want 1: %v", fig.touched.Len(), sets.List(fig.touched))
	}
	bound := 2 * canaryInterval
	switch fault {
	case faultRestart:
		bound += time.Second // the restarted kubelet's reporter coalesces its first write for 1 s
	case faultErrors:
		bound += canaryMinRequests * time.Second / 50
	}
	if fig.detected > bound {
		t.Errorf("the rollout stopped %s after the fault (%s), more than %s", fig.detected, fault, bound)
	}
	t.Logf("faulty rollout (%s) to %d nodes: %d node(s) touched; fault to rolled back %s; rolled back to every touched kubelet at the old value %s; %d Feature writes, %d kubelet report writes; %s",
		fault, n, fig.touched.Len(), fig.detected.Round(time.Millisecond), fig.restored.Round(time.Millisecond), fig.featureWrites, fig.reportWrites, fig.final.Message)
	return fig
}

// BenchmarkCanaryRollout runs the faulty rollout at 20 and 200 simulated
// kubelets (FEATUREFLAGS_SCALE_NODES overrides) and reports the nodes it
// touched, the time from the NotReady to the rollout's stop and from then
// to the touched kubelets back at the old value, and the Feature writes.
func BenchmarkCanaryRollout(b *testing.B) {
	for _, n := range scaleNodeCounts(b, "20,200") {
		b.Run(fmt.Sprintf("faulty/nodes=%d", n), func(b *testing.B) {
			var fig canaryFigures
			for b.Loop() {
				fig = faultyCanary(b, n, faultNotReady)
			}
			b.ReportMetric(float64(fig.touched.Len()), "nodes-touched")
			b.ReportMetric(fig.detected.Seconds()*1000, "detect-ms")
			b.ReportMetric(fig.restored.Seconds()*1000, "restore-ms")
			b.ReportMetric(float64(fig.featureWrites), "feature-writes")
		})
	}
}

// cohortSizes lists the sizes of the cohorts.
func cohortSizes(fig canaryFigures) []int {
	out := make([]int, len(fig.cohorts))
	for i, co := range fig.cohorts {
		out[i] = co.Len()
	}
	return out
}
