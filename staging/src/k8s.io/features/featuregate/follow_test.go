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
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	"k8s.io/features/client/clientset/versioned/fake"
)

func followed(gate string, management featuresv1alpha1.FeatureManagement, desired featuresv1alpha1.FeatureDesiredState, live bool) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: map[string]string{"AlphaGate": "alpha-gate", "BetaGate": "beta-gate"}[gate], Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: gate, DesiredState: desired, Management: management},
		Status:     featuresv1alpha1.FeatureStatus{AppliesWhileRunning: live},
	}
}

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

func TestFollowAppliesCentralAndDynamicAtStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t, "kube-controller-manager")
	client := fake.NewClientset(
		followed("BetaGate", featuresv1alpha1.FeatureManagementCentral, featuresv1alpha1.FeatureDesiredStateOff, false),
		followed("AlphaGate", featuresv1alpha1.FeatureManagementDynamic, featuresv1alpha1.FeatureDesiredStateOn, false),
	)
	cacheFile := filepath.Join(t.TempDir(), "cache.json")
	if err := g.Follow(ctx, client, FollowOptions{CacheFile: cacheFile}); err != nil {
		t.Fatal(err)
	}
	if g.Enabled("BetaGate") || !g.Enabled("AlphaGate") {
		t.Fatalf("gates must take the Features' desired state before Follow returns: BetaGate %t, AlphaGate %t", g.Enabled("BetaGate"), g.Enabled("AlphaGate"))
	}
	if mode, cached := g.Management("BetaGate"); mode != featuresv1alpha1.FeatureManagementCentral || cached {
		t.Errorf("BetaGate is reported %s (cached %t), want Central", mode, cached)
	}
	data, err := os.ReadFile(cacheFile)
	if err != nil || !strings.Contains(string(data), `"gate": "BetaGate"`) {
		t.Fatalf("the cache must hold the desired states read: %s, %v", data, err)
	}

	// A process started while no apiserver answers starts from the cache,
	// and says so.
	failing := fake.NewClientset()
	failing.PrependReactor("list", "features", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	restarted := newTestGate(t, "kube-controller-manager")
	if err := restarted.Follow(ctx, failing, FollowOptions{CacheFile: cacheFile, StartTimeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if restarted.Enabled("BetaGate") || !restarted.Enabled("AlphaGate") {
		t.Fatalf("the cached desired states must apply: BetaGate %t, AlphaGate %t", restarted.Enabled("BetaGate"), restarted.Enabled("AlphaGate"))
	}
	if mode, cached := restarted.Management("BetaGate"); mode != featuresv1alpha1.FeatureManagementCentral || !cached {
		t.Errorf("a cached value must be reported as cached: %s, %t", mode, cached)
	}
}

func TestFollowKeepsConfiguredGates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t, "kube-scheduler")
	if err := g.Set("BetaGate=true"); err != nil { // its command line
		t.Fatal(err)
	}
	client := fake.NewClientset(followed("BetaGate", featuresv1alpha1.FeatureManagementCentral, featuresv1alpha1.FeatureDesiredStateOff, false))
	if err := g.Follow(ctx, client, FollowOptions{}); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled("BetaGate") {
		t.Fatal("a gate set on the command line must keep its value")
	}
	if mode, _ := g.Management("BetaGate"); mode != "" {
		t.Errorf("a configured gate is reported as the process's own value, got management %q", mode)
	}
	// kube-apiserver follows its Dynamic gates although --feature-gates set them.
	apiserver := newTestGate(t, APIServerComponent)
	if err := apiserver.Set("AlphaGate=false"); err != nil {
		t.Fatal(err)
	}
	client = fake.NewClientset(followed("AlphaGate", featuresv1alpha1.FeatureManagementDynamic, featuresv1alpha1.FeatureDesiredStateOn, true))
	err := apiserver.Follow(ctx, client, FollowOptions{Modes: []featuresv1alpha1.FeatureManagement{featuresv1alpha1.FeatureManagementDynamic},
		Gates: map[featuregate.Feature]bool{"AlphaGate": true}, OverrideConfigured: true})
	if err != nil {
		t.Fatal(err)
	}
	if !apiserver.Enabled("AlphaGate") {
		t.Fatal("kube-apiserver must apply the desired state of its Dynamic gates")
	}
}

func TestFollowAppliesChanges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newTestGate(t, "kubelet")
	dynamic := followed("AlphaGate", featuresv1alpha1.FeatureManagementDynamic, featuresv1alpha1.FeatureDesiredStateOff, false)
	central := followed("BetaGate", featuresv1alpha1.FeatureManagementCentral, featuresv1alpha1.FeatureDesiredStateOn, false)
	client := fake.NewClientset(dynamic, central)
	var r restarts
	cacheFile := filepath.Join(t.TempDir(), "cache.json")
	if err := g.Follow(ctx, client, FollowOptions{CacheFile: cacheFile, Restart: r.restart}); err != nil {
		t.Fatal(err)
	}
	features := client.FeaturesV1alpha1().Features("kube-system")

	// A Dynamic Feature's new desired state applies while running.
	dynamic.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateOn
	if _, err := features.Update(ctx, dynamic, metav1.UpdateOptions{}); err != nil {
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

	// A Central gate read only at start: the process restarts, after the
	// cache holds the new value.
	central.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateOff
	if _, err := features.Update(ctx, central, metav1.UpdateOptions{}); err != nil {
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
