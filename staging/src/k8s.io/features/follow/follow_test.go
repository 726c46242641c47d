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

package follow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
)

func newTestGate(t *testing.T) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	g := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	err := g.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"AlphaGate":  {{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha}},
		"BetaGate":   {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
		"LockedGate": {{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var featureNames = map[string]string{"AlphaGate": "alpha-gate", "BetaGate": "beta-gate", "LockedGate": "locked-gate"}

// target returns the FeatureTarget of gate's Feature as its leader writes
// it: a Dynamic gate, or one that is live, applies while running.
func target(gate string, management featuresv1alpha1.FeatureManagement, desired featuresv1alpha1.FeatureDesiredState, live bool) *featuresv1alpha1.FeatureTarget {
	return &featuresv1alpha1.FeatureTarget{
		ObjectMeta: metav1.ObjectMeta{Name: featureNames[gate], Namespace: "kube-system"},
		Spec: featuresv1alpha1.FeatureTargetSpec{Gate: gate, DesiredState: desired, Management: management,
			AppliesWhileRunning: live || management == dynamic},
	}
}

const (
	central = featuresv1alpha1.FeatureManagementCentral
	dynamic = featuresv1alpha1.FeatureManagementDynamic
	on      = featuresv1alpha1.FeatureDesiredStateEnabled
	off     = featuresv1alpha1.FeatureDesiredStateDisabled
)

// restarts records the reasons Restart was called with.
type restarts struct {
	mu      sync.Mutex
	reasons []string
}

func (r *restarts) restart(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reasons = append(r.reasons, reason)
}

func (r *restarts) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reasons...)
}

func failingClient() *fake.Clientset {
	client := fake.NewClientset()
	client.PrependReactor("list", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	return client
}

func TestFollowAppliesCentralAndDynamicAtStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t)
	client := fake.NewClientset(target("BetaGate", central, off, false), target("AlphaGate", dynamic, on, false))
	cacheFile := filepath.Join(t.TempDir(), "cache.json")
	var changes atomic.Int32
	f := NewFollower(g, client, Options{CacheFile: cacheFile, OnChange: func() { changes.Add(1) }})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if g.Enabled("BetaGate") || !g.Enabled("AlphaGate") {
		t.Fatalf("gates must take the Features' desired state before Start returns: BetaGate %t, AlphaGate %t", g.Enabled("BetaGate"), g.Enabled("AlphaGate"))
	}
	if mode, cached := f.Management("BetaGate"); mode != central || cached {
		t.Errorf("BetaGate is reported %s (cached %t), want Central", mode, cached)
	}
	if changes.Load() == 0 {
		t.Error("OnChange was not called")
	}
	data, err := os.ReadFile(cacheFile)
	if err != nil || !strings.Contains(string(data), `"gate": "BetaGate"`) {
		t.Fatalf("the cache must hold the desired states read: %s, %v", data, err)
	}

	// A process started while no apiserver answers starts from the cache,
	// and says so.
	restarted := newTestGate(t)
	f = NewFollower(restarted, failingClient(), Options{CacheFile: cacheFile, StartTimeout: time.Second})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if restarted.Enabled("BetaGate") || !restarted.Enabled("AlphaGate") {
		t.Fatalf("the cached desired states must apply: BetaGate %t, AlphaGate %t", restarted.Enabled("BetaGate"), restarted.Enabled("AlphaGate"))
	}
	if mode, cached := f.Management("BetaGate"); mode != central || !cached {
		t.Errorf("a cached value must be reported as cached: %s, %t", mode, cached)
	}
}

// TestFollowWithoutClientThenConnect is a kubelet's start: the cache
// before its TLS bootstrap, the Features once it has a client.
func TestFollowWithoutClientThenConnect(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cacheFile := filepath.Join(t.TempDir(), "cache.json")
	client := fake.NewClientset(target("BetaGate", central, off, false), target("AlphaGate", dynamic, on, false))
	if err := NewFollower(newTestGate(t), client, Options{CacheFile: cacheFile}).Start(ctx); err != nil {
		t.Fatal(err)
	}

	g := newTestGate(t)
	f := NewFollower(g, nil, Options{CacheFile: cacheFile})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if g.Enabled("BetaGate") || !g.Enabled("AlphaGate") {
		t.Fatal("without a client the cached desired states must apply")
	}
	// The desired state changed meanwhile: the Features win at Connect,
	// and the gates they set are not mistaken for configured ones.
	features := client.FeaturesV1alpha1().FeatureTargets("kube-system")
	if _, err := features.Update(ctx, target("BetaGate", central, on, false), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Connect(ctx, client); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled("BetaGate") {
		t.Error("Connect must apply the Features' desired state")
	}
	if mode, cached := f.Management("BetaGate"); mode != central || cached {
		t.Errorf("after Connect BetaGate is reported %s (cached %t), want Central", mode, cached)
	}
	if err := f.Connect(ctx, client); err == nil {
		t.Error("a second Connect must fail")
	}
}

func TestFollowKeepsConfiguredGates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t)
	if err := g.Set("BetaGate=true"); err != nil { // its command line
		t.Fatal(err)
	}
	client := fake.NewClientset(target("BetaGate", central, off, false))
	f := NewFollower(g, client, Options{})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled("BetaGate") {
		t.Fatal("a gate set on the command line must keep its value")
	}
	if mode, _ := f.Management("BetaGate"); mode != "" {
		t.Errorf("a configured gate is reported as the process's own value, got management %q", mode)
	}

	// kube-apiserver follows its Dynamic gates although --feature-gates set them.
	apiserver := newTestGate(t)
	if err := apiserver.Set("AlphaGate=false"); err != nil {
		t.Fatal(err)
	}
	client = fake.NewClientset(target("AlphaGate", dynamic, on, true), target("BetaGate", dynamic, off, true))
	f = NewFollower(apiserver, client, Options{Modes: []featuresv1alpha1.FeatureManagement{dynamic},
		Gates: map[featuregate.Feature]bool{"AlphaGate": true}, OverrideConfigured: true})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !apiserver.Enabled("AlphaGate") {
		t.Fatal("kube-apiserver must apply the desired state of its Dynamic gates")
	}
	if !apiserver.Enabled("BetaGate") {
		t.Fatal("only Options.Gates are followed")
	}
	if mode, _ := f.Management("AlphaGate"); mode != dynamic {
		t.Errorf("AlphaGate is reported %q, want Dynamic", mode)
	}
}

// TestFollowGoesBack checks that a gate no longer followed goes back to its
// own value: its default, what AllAlpha made it, or its configured value.
func TestFollowGoesBack(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name      string
		configure string
		override  bool
		gate      string
		desired   featuresv1alpha1.FeatureDesiredState
		want      bool
		explicit  bool
	}{
		{name: "default", gate: "AlphaGate", desired: on, want: false},
		{name: "AllAlpha", configure: "AllAlpha=true", gate: "AlphaGate", desired: off, want: true},
		{name: "configured", configure: "BetaGate=false", override: true, gate: "BetaGate", desired: on, want: false, explicit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newTestGate(t)
			if tc.configure != "" {
				if err := g.Set(tc.configure); err != nil {
					t.Fatal(err)
				}
			}
			ft := target(tc.gate, dynamic, tc.desired, true)
			client := fake.NewClientset(ft)
			var r restarts
			f := NewFollower(g, client, Options{OverrideConfigured: tc.override, Restart: r.restart})
			if err := f.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if g.Enabled(featuregate.Feature(tc.gate)) != (tc.desired == on) {
				t.Fatalf("%s must follow its Feature", tc.gate)
			}
			// The Feature is managed by the command line again: its leader
			// deletes its target.
			if err := client.FeaturesV1alpha1().FeatureTargets("kube-system").Delete(ctx, ft.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				return len(r.get()) > 0, nil
			}); err != nil {
				t.Fatal("a gate that goes back to another value applies at the next start")
			}
			// What the next start does: nothing is followed.
			if err := f.apply(klog.Background(), nil, false); err != nil {
				t.Fatal(err)
			}
			if got := g.Enabled(featuregate.Feature(tc.gate)); got != tc.want {
				t.Errorf("%s went back to %t, want %t", tc.gate, got, tc.want)
			}
			if got := g.ExplicitlySet(featuregate.Feature(tc.gate)); got != tc.explicit {
				t.Errorf("%s explicitly set %t, want %t", tc.gate, got, tc.explicit)
			}
			if mode, _ := f.Management(featuregate.Feature(tc.gate)); mode != "" {
				t.Errorf("a gate no longer followed is reported %q", mode)
			}
		})
	}
}

// TestFollowRefusedValue checks that a desired state the gate refuses is
// left out without breaking the gate's later SetFromMap calls.
func TestFollowRefusedValue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t)
	client := fake.NewClientset(target("LockedGate", central, off, false), target("AlphaGate", central, on, false))
	f := NewFollower(g, client, Options{})
	err := f.Start(ctx)
	if err == nil || !strings.Contains(err.Error(), "LockedGate") {
		t.Fatalf("a refused value must be reported: %v", err)
	}
	if !g.Enabled("LockedGate") || !g.Enabled("AlphaGate") {
		t.Error("the refused value must be left out and the others applied")
	}
	if mode, _ := f.Management("LockedGate"); mode != "" {
		t.Errorf("a refused gate does not follow its Feature, reported %q", mode)
	}
	if err := g.SetFromMap(map[string]bool{"BetaGate": false}); err != nil {
		t.Errorf("the gate must still accept values: %v", err)
	}
}

// TestFollowingIsNotAQuery checks that the follower reads values without
// counting as a query of the gate.
func TestFollowingIsNotAQuery(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t)
	var told atomic.Int32
	g.(featuregate.QueryObserver).ObserveQueries(func(featuregate.Feature) { told.Add(1) })
	client := fake.NewClientset(target("BetaGate", central, off, false))
	if err := NewFollower(g, client, Options{}).Start(ctx); err != nil {
		t.Fatal(err)
	}
	if n := told.Load(); n != 0 {
		t.Errorf("following queried %d gates", n)
	}
}

func TestFollowAppliesChanges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t)
	dynamicFeature := target("AlphaGate", dynamic, off, false)
	centralFeature := target("BetaGate", central, on, false)
	client := fake.NewClientset(dynamicFeature, centralFeature)
	var r restarts
	var changes atomic.Int32
	cacheFile := filepath.Join(t.TempDir(), "cache.json")
	if err := NewFollower(g, client, Options{CacheFile: cacheFile, Restart: r.restart, OnChange: func() { changes.Add(1) }}).Start(ctx); err != nil {
		t.Fatal(err)
	}
	features := client.FeaturesV1alpha1().FeatureTargets("kube-system")
	before := changes.Load()

	// A Dynamic Feature's new desired state applies while running.
	dynamicFeature.Spec.DesiredState = on
	if _, err := features.Update(ctx, dynamicFeature, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return g.Enabled("AlphaGate"), nil
	}); err != nil {
		t.Fatal("a Dynamic gate's new desired state must apply while running")
	}
	if got := r.get(); len(got) != 0 {
		t.Fatalf("no restart for a Dynamic gate: %v", got)
	}
	if changes.Load() == before {
		t.Error("OnChange was not called for a change while running")
	}

	// A Central gate read only at start: the process restarts, after the
	// cache holds the new value.
	centralFeature.Spec.DesiredState = off
	if _, err := features.Update(ctx, centralFeature, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return len(r.get()) > 0, nil
	}); err != nil {
		t.Fatal("a Central gate that applies only at start must restart the process")
	}
	if got := r.get()[0]; !strings.Contains(got, "BetaGate=false (Central)") {
		t.Errorf("the restart must say why: %q", got)
	}
	if !g.Enabled("BetaGate") {
		t.Error("the value must not change before the restart")
	}
	data, err := os.ReadFile(cacheFile)
	if err != nil || !strings.Contains(string(data), `"gate": "BetaGate",`+"\n"+`      "enabled": false`) {
		t.Errorf("the cache must hold the new value before the restart: %s, %v", data, err)
	}
}
