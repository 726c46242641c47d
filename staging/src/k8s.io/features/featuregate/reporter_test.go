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

package featuregate

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	"k8s.io/features/client/clientset/versioned/fake"
)

func newTestGate(t *testing.T, component string) *Gate {
	t.Helper()
	inner := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	err := inner.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"AlphaGate": {{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha}},
		"BetaGate":  {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return Wrap(inner, component)
}

func feature(gate string, uses ...featuresv1alpha1.FeatureUse) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: map[string]string{"AlphaGate": "alpha-gate", "BetaGate": "beta-gate"}[gate], Namespace: "kube-system", ResourceVersion: "1"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: gate},
		Status:     featuresv1alpha1.FeatureStatus{Uses: uses},
	}
}

func use(component string, enabled bool, age time.Duration, reporters ...string) featuresv1alpha1.FeatureUse {
	return featuresv1alpha1.FeatureUse{Component: component, Enabled: enabled, Reporters: reporters,
		FirstReportTime: metav1.NewTime(time.Now().Add(-age))}
}

func reportersOf(uses []featuresv1alpha1.FeatureUse) string {
	out := ""
	for _, u := range uses {
		out += fmt.Sprintf("%s=%t%v;", u.Component, u.Enabled, u.Reporters)
	}
	return out
}

func TestDecide(t *testing.T) {
	nine := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	cases := []struct {
		name      string
		component string
		opts      ReporterOptions
		uses      []featuresv1alpha1.FeatureUse
		want      string // uses after the write, "" when nothing is written
		wantWait  bool
	}{
		{name: "missing entry is written", component: "kube-scheduler", opts: ReporterOptions{FirstWriteDelay: -1},
			want: "kube-scheduler=false[me];"},
		{name: "missing entry waits out the first-write delay", component: "kube-scheduler", opts: ReporterOptions{FirstWriteDelay: time.Hour},
			wantWait: true},
		{name: "other entries are kept", component: "kube-scheduler", opts: ReporterOptions{FirstWriteDelay: -1},
			uses: []featuresv1alpha1.FeatureUse{use("kubelet", true, 0, "node-1")},
			want: "kubelet=true[node-1];kube-scheduler=false[me];"},
		{name: "listed already: nothing to do", component: "kube-scheduler",
			uses: []featuresv1alpha1.FeatureUse{use("kube-scheduler", false, 0, "x", "me")}},
		{name: "young entry: join the sample later", component: "kube-scheduler",
			uses:     []featuresv1alpha1.FeatureUse{use("kube-scheduler", false, 0, "x")},
			wantWait: true},
		{name: "old entry with room: join the sample", component: "kube-scheduler",
			uses: []featuresv1alpha1.FeatureUse{use("kube-scheduler", false, 2*time.Minute, "x")},
			want: "kube-scheduler=false[x me];"},
		{name: "full sample: nothing to do", component: "kube-scheduler",
			uses: []featuresv1alpha1.FeatureUse{use("kube-scheduler", false, 2*time.Minute, nine...)}},
		{name: "apiservers always list themselves", component: APIServerComponent,
			uses: []featuresv1alpha1.FeatureUse{use(APIServerComponent, false, 0, nine...)},
			want: "kube-apiserver=false[a b c d e f g h me];"},
		{name: "stale membership with the other value is dropped", component: APIServerComponent,
			uses: []featuresv1alpha1.FeatureUse{use(APIServerComponent, true, 0, "me"), use(APIServerComponent, false, 0, "other")},
			want: "kube-apiserver=false[other me];"},
		{name: "stale membership is dropped even when the sample is full", component: "kube-scheduler",
			uses: []featuresv1alpha1.FeatureUse{use("kube-scheduler", true, 0, "me", "y"), use("kube-scheduler", false, 0, nine...)},
			want: "kube-scheduler=true[y];kube-scheduler=false[a b c d e f g h];"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := newReporter(newTestGate(t, tc.component), fake.NewClientset(), "me", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			uses, wait := r.decide(feature("AlphaGate", tc.uses...), false, time.Now())
			got := ""
			if uses != nil {
				got = reportersOf(uses)
			}
			if got != tc.want {
				t.Errorf("uses written: %q, want %q", got, tc.want)
			}
			if (wait > 0) != tc.wantWait {
				t.Errorf("wait %v, want a wait: %t", wait, tc.wantWait)
			}
		})
	}
}

func TestFirstWriteDelayIsKeptAcrossEvents(t *testing.T) {
	r, err := newReporter(newTestGate(t, "kube-scheduler"), fake.NewClientset(), "me", ReporterOptions{FirstWriteDelay: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	f := feature("AlphaGate")
	_, first := r.decide(f, false, now)
	// Half-way to the drawn deadline (the draw may be under a second).
	half := first / 2
	_, second := r.decide(f, false, now.Add(half))
	if first <= 0 || first > time.Minute+time.Millisecond || second != first-half {
		t.Fatalf("waits %v then %v: the deadline must be kept, not re-drawn", first, second)
	}
	if uses, wait := r.decide(f, false, now.Add(time.Minute+time.Millisecond)); uses == nil || wait != 0 {
		t.Fatalf("after the deadline the entry must be written, got %v %v", uses, wait)
	}
}

// TestStartReportsUses runs the reporter against a fake clientset: a gate
// checked before Start is reported, a Feature created later is reported once
// it appears, and a conflict is retried.
func TestStartReportsUses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t, "kube-controller-manager")
	g.Enabled("BetaGate") // checked before any client exists

	client := fake.NewClientset(feature("BetaGate"))
	var conflicts atomic.Int32
	client.PrependReactor("update", "features", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() == "status" && conflicts.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(featuresv1alpha1.Resource("features"), "beta-gate", fmt.Errorf("try again"))
		}
		return false, nil, nil
	})
	opts := ReporterOptions{FirstWriteDelay: -1, ResyncPeriod: time.Hour}
	r, err := newReporter(g, client, "kcm-1", opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(ctx); err != nil {
		t.Fatal(err)
	}
	waitForUses(t, client, "beta-gate", "kube-controller-manager=true[kcm-1];")
	if conflicts.Load() < 2 {
		t.Fatalf("expected the conflict to be retried, saw %d status updates", conflicts.Load())
	}

	// First checked after Start, with no Feature yet: the reporter looks,
	// finds none, and reports once the Feature's add event arrives.
	g.Enabled("AlphaGate")
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.absent["alpha-gate"] > 0, nil
	})
	if err != nil {
		t.Fatal("the reporter never looked for the Feature of AlphaGate after its first check")
	}
	if _, err := client.FeaturesV1alpha1().Features("kube-system").Create(ctx, feature("AlphaGate"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForUses(t, client, "alpha-gate", "kube-controller-manager=false[kcm-1];")
}

func waitForUses(t *testing.T, client *fake.Clientset, name, want string) {
	t.Helper()
	var got string
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		f, err := client.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		got = reportersOf(f.Status.Uses)
		return got == want, nil
	})
	if err != nil {
		t.Fatalf("uses of %s: %q, want %q", name, got, want)
	}
}

func TestRetryBackoff(t *testing.T) {
	for n, base := range map[int]time.Duration{1: retryBase, 2: 2 * retryBase, 3: 4 * retryBase, 9: retryCap, 100: retryCap} {
		lo, hi := 2*base, time.Duration(0)
		for range 200 {
			limiter := newRetryRateLimiter[string]()
			for range n - 1 {
				limiter.When("f")
			}
			d := limiter.When("f")
			if got := limiter.NumRequeues("f"); got != n {
				t.Fatalf("failure %d: NumRequeues %d, want %d", n, got, n)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo < base || hi > 2*base {
			t.Errorf("failure %d: backoff in [%v, %v], want within [%v, %v]", n, lo, hi, base, 2*base)
		}
		if hi-lo < base/4 {
			t.Errorf("failure %d: backoff in [%v, %v] is not jittered", n, lo, hi)
		}
	}
	// Forget starts the backoff again from retryBase.
	limiter := newRetryRateLimiter[string]()
	for range 5 {
		limiter.When("f")
	}
	limiter.Forget("f")
	if got := limiter.NumRequeues("f"); got != 0 {
		t.Errorf("NumRequeues after Forget: %d, want 0", got)
	}
	if d := limiter.When("f"); d < retryBase || d > 2*retryBase {
		t.Errorf("backoff after Forget: %v, want within [%v, %v]", d, retryBase, 2*retryBase)
	}
}
