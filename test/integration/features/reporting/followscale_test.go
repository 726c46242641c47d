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
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/test/integration/features/harness"
)

// followGate is the Dynamic gate the following scenario flips: kubelets
// check it, and its registry entry lets it be Dynamic.
const followGate featuregate.Feature = "ExtendWebSocketsToKubelet"

// followFigures are the figures of one run of the following scenario.
type followFigures struct {
	start, flip phase
	// applied is the time from the desired state's change to the last
	// kubelet's gate holding it; converged to the Feature's final state.
	applied, converged time.Duration
}

// runFollowScenario starts n simulated kubelets that follow desired states
// and report, as kubelets do (k8s.io/features/options), with
// followGate made Dynamic on the apiserver; once their uses settle it flips
// the gate's desired state through the API and measures until every
// kubelet's gate holds the new value and the Feature reached its final
// state and Converged.
func runFollowScenario(t testing.TB, n int) followFigures {
	t.Helper()
	flags := append(slices.Clone(harness.LifecycleFlags), "--feature-lifecycle-dynamic-gates="+string(followGate))
	c := startScaleCluster(t, n, flags...)
	c.flow = true
	ctx := context.Background()
	features := c.admin.FeaturesV1alpha1().Features(metav1.NamespaceSystem)
	name := featuresv1alpha1.FeatureName(string(followGate))
	if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		f, err := features.Get(ctx, name, metav1.GetOptions{})
		return err == nil && f.Spec.Management == featuresv1alpha1.FeatureManagementDynamic, nil
	}); err != nil {
		t.Fatalf("%s did not become Dynamic: %v", followGate, err)
	}
	before := c.defaults[followGate]
	settled := func(want func(featuregate.Feature) bool) { c.waitSettled(t, want) }
	var fig followFigures
	c.connectKubelets(t)
	fig.start = c.measure(t, "start", 5*time.Second, func() {
		c.startKubelets(t)
		settled(func(g featuregate.Feature) bool { return c.defaults[g] })
	})
	final := featuresv1alpha1.FeatureStateDisabled
	desired := featuresv1alpha1.FeatureDesiredStateDisabled
	if !before {
		final, desired = featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureDesiredStateEnabled
	}
	fig.flip = c.measure(t, "flip", 5*time.Second, func() {
		asked := time.Now()
		if _, err := features.Patch(ctx, name, types.MergePatchType,
			fmt.Appendf(nil, `{"spec":{"desiredState":%q}}`, desired), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Minute, true, func(context.Context) (bool, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, k := range c.kubelets {
				if k.gate.Enabled(followGate) == before {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			t.Fatalf("the kubelets did not all apply %s=%t: %v", followGate, !before, err)
		}
		fig.applied = time.Since(asked)
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
			return c.featureConverged(ctx, string(followGate), final)
		})
		if err != nil {
			t.Fatalf("%s did not reach %s: %v", followGate, final, err)
		}
		fig.converged = time.Since(asked)
		settled(func(g featuregate.Feature) bool {
			if g == followGate {
				return !before
			}
			return c.defaults[g]
		})
	})
	return fig
}

// BenchmarkFollowingScale measures what following a Dynamic Feature costs,
// per simulated kubelet (FEATUREFLAGS_SCALE_NODES, default 1,000 and
// 5,000): each follows the FeatureTargets of the Features managed Central
// or Dynamic with its own watch, and a target is written only when what
// followers take changes. One flip of followGate's desired state through
// the API: follow-B/node is the bytes of the list and watch bodies of
// followed objects each kubelet received (the goal: at most one event of
// at most 1 KiB per change), flip-body-B/node all response bodies,
// feature-writes and target-writes the writes of Features and
// FeatureTargets meanwhile, applied-s and converge-s the time until every
// kubelet applied it and the Feature reached its final state.
func BenchmarkFollowingScale(b *testing.B) {
	for _, n := range scaleNodeCounts(b, "1000,5000") {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			var fig followFigures
			for b.Loop() {
				fig = runFollowScenario(b, n)
			}
			b.Logf("%d following kubelets: %s; %s; every kubelet applied the flip %.1fs after it was asked, the Feature converged after %.1fs",
				n, fig.start, fig.flip, fig.applied.Seconds(), fig.converged.Seconds())
			perNode := func(v int64) float64 { return float64(v) / float64(n) }
			b.ReportMetric(perNode(fig.start.followed), "start-follow-B/node")
			b.ReportMetric(perNode(fig.flip.followed), "follow-B/node")
			b.ReportMetric(perNode(fig.flip.bodies), "flip-body-B/node")
			b.ReportMetric(float64(fig.flip.writes["features"]), "feature-writes")
			b.ReportMetric(float64(fig.flip.writes["featuretargets"]), "target-writes")
			b.ReportMetric(fig.applied.Seconds(), "applied-s")
			b.ReportMetric(fig.converged.Seconds(), "converge-s")
		})
	}
}
