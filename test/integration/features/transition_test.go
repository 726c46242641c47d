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

package features

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	"k8s.io/features/gatename"

	"k8s.io/featureflags/test/integration/framework"
	"k8s.io/featureflags/test/utils/featuretest"
)

// transitionGate is an apiserver gate of v1.37.2 that can be flipped safely
// (beta, default on, not locked, no dependents).
const transitionGate = "PodDeletionCost"

// stateRecorder records the states a Feature goes through, from a watch.
type stateRecorder struct {
	mu     sync.Mutex
	states []featuresv1alpha1.FeatureState
}

func recordStates(t *testing.T, client featuresclient.Interface, name string) *stateRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &stateRecorder{}
	go func() {
		for ctx.Err() == nil {
			w, err := client.FeaturesV1alpha1().Features("kube-system").Watch(ctx, metav1.ListOptions{
				FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
			if err != nil {
				time.Sleep(200 * time.Millisecond) // the apiserver is restarting
				continue
			}
			for ev := range w.ResultChan() {
				if f, ok := ev.Object.(*featuresv1alpha1.Feature); ok {
					r.add(f.Status.State)
				}
			}
		}
	}()
	return r
}

func (r *stateRecorder) add(s featuresv1alpha1.FeatureState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s != "" && (len(r.states) == 0 || r.states[len(r.states)-1] != s) {
		r.states = append(r.states, s)
	}
}

func (r *stateRecorder) get() []featuresv1alpha1.FeatureState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.states)
}

// through waits until the watch has delivered state as the last of at least
// n recorded states, and returns them all: a GET can see a state before the
// watch delivers it.
func (r *stateRecorder) through(t *testing.T, n int, state featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureState {
	t.Helper()
	var got []featuresv1alpha1.FeatureState
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		got = r.get()
		return len(got) >= n && got[len(got)-1] == state, nil
	})
	if err != nil {
		t.Fatalf("the watch never delivered %s as state %d: states %v", state, n, got)
	}
	return got
}

// TestTransitionAcrossRestarts restarts the apiserver with a gate turned off
// and on again: the Feature goes On -> TurningOff -> Off through WaitForUses
// and back through TurningOn, with events, converging within seconds: no
// component but the apiserver reports the gate.
func TestTransitionAcrossRestarts(t *testing.T) {
	const period = 3 * time.Second
	flags := func(value string) []string {
		return []string{"--feature-gates=FeatureLifecycle=true," + transitionGate + "=" + value,
			"--runtime-config=features.k8s.io/v1alpha1=true", "--feature-lifecycle-wait-for-uses-period=" + period.String()}
	}
	apiserver := framework.StartAPIServerProcess(t, "apiserver", framework.SharedEtcd().Prefix, flags("true")...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	name := gatename.ObjectName(transitionGate)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateOn, time.Minute)
	states := recordStates(t, admin, name)
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return len(states.get()) > 0, nil
	}); err != nil {
		t.Fatal("the watch delivered no state")
	}

	for _, step := range []struct {
		value        string
		final, trans featuresv1alpha1.FeatureState
	}{
		{"false", featuresv1alpha1.FeatureStateOff, featuresv1alpha1.FeatureStateTurningOff},
		{"true", featuresv1alpha1.FeatureStateOn, featuresv1alpha1.FeatureStateTurningOn},
	} {
		before := len(states.get())
		apiserver.Restart(t, flags(step.value)...)
		ready := time.Now()
		f := featuretest.WaitForConverged(t, admin, name, step.final, time.Minute)
		t.Logf("%s=%s: converged to %s %.1fs after the restarted apiserver was ready",
			transitionGate, step.value, step.final, time.Since(ready).Seconds())
		if len(f.Status.Tasks) != 0 {
			t.Fatalf("after the transition: tasks %v", f.Status.Tasks)
		}
		got := states.through(t, before+2, step.final)[before:]
		if want := []featuresv1alpha1.FeatureState{step.trans, step.final}; !slices.Equal(got, want) {
			t.Fatalf("states %v, want %v", got, want)
		}
	}

	events, err := kubernetes.NewForConfigOrDie(apiserver.ClientConfig()).CoreV1().Events("kube-system").List(context.Background(),
		metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, e := range events.Items {
		reasons = append(reasons, e.Reason)
	}
	for _, want := range []string{"TransitionStarted", "TaskCompleted", "TransitionCompleted"} {
		if !slices.Contains(reasons, want) {
			t.Errorf("no %s event on the Feature; events: %s", want, strings.Join(reasons, ", "))
		}
	}
}
