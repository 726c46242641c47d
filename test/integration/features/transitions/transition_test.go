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

package transitions

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// transitionGate is an apiserver gate of v1.37.2 that can be flipped safely
// (beta, default on, not locked, no dependents).
const transitionGate = "PodDeletionCost"

// TestTransitionAcrossRestarts restarts the apiserver with a gate turned off
// and on again: the Feature goes Enabled -> Disabling -> Disabled through WaitForUses
// and back through Enabling, with events, converging within seconds: no
// component but the apiserver reports the gate.
func TestTransitionAcrossRestarts(t *testing.T) {
	const period = 3 * time.Second
	flags := func(value string) []string {
		return []string{"--feature-gates=FeatureLifecycle=true," + transitionGate + "=" + value,
			"--runtime-config=features.k8s.io/v1alpha1=true", harness.Lifecycle{WaitForUsesPeriod: period}.Flag(t)}
	}
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix, flags("true")...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	name := featuresv1alpha1.FeatureName(transitionGate)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, time.Minute)
	states := harness.RecordStates(t, admin, name)
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return len(states.Get()) > 0, nil
	}); err != nil {
		t.Fatal("the watch delivered no state")
	}

	for _, step := range []struct {
		value        string
		final, trans featuresv1alpha1.FeatureState
	}{
		{"false", featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateDisabling},
		{"true", featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateEnabling},
	} {
		before := len(states.Get())
		apiserver.Restart(t, flags(step.value)...)
		ready := time.Now()
		f := featuretest.WaitForConverged(t, admin, name, step.final, time.Minute)
		t.Logf("%s=%s: converged to %s %.1fs after the restarted apiserver was ready",
			transitionGate, step.value, step.final, time.Since(ready).Seconds())
		if len(f.Status.Tasks) != 0 {
			t.Fatalf("after the transition: tasks %v", f.Status.Tasks)
		}
		got := states.Through(t, before+2, step.final)[before:]
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
