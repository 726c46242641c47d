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

package harness

// Helpers the feature lifecycle's integration test packages share.

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/featurelifecycle"
)

// LivenessWindow is a liveness window (Lifecycle.LivenessWindow)
// just above the identity leases' 10 s renewal, so that a killed
// apiserver's Features fail over quickly in tests with several apiservers.
const LivenessWindow = 15 * time.Second

// LifecycleFlags turn on the FeatureLifecycle gate and serve the group.
var LifecycleFlags = []string{"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true"}

// WaitForFeatures waits until the namespace holds want Features, each with a state.
func WaitForFeatures(t *testing.T, client kubernetes.Interface, want int) []featuresv1alpha1.Feature {
	t.Helper()
	var items []featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		items = list.Items
		if len(items) != want {
			return false, nil
		}
		for _, f := range items {
			if f.Status.State == "" || f.Status.Version == "" {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("expected %d announced Features with a state, have %d: %v", want, len(items), err)
	}
	return items
}

// KnownGates are the gates our apiserver announces with its default flags
// plus FeatureLifecycle=true (the same binary, so the same gate set).
func KnownGates() []featuregate.Feature {
	return (&featurelifecycle.Announcer{Gate: utilfeature.DefaultMutableFeatureGate}).Gates()
}

func Condition(f *featuresv1alpha1.Feature, condType string) *metav1.Condition {
	return meta.FindStatusCondition(f.Status.Conditions, condType)
}

// IdentityOf returns the identity (lease name) of the apiserver whose host
// name is host.
func IdentityOf(t *testing.T, kube kubernetes.Interface, host string) string {
	t.Helper()
	var id string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		leases, err := kube.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{
			LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver,kubernetes.io/hostname=" + host})
		if err != nil || len(leases.Items) != 1 {
			return false, nil
		}
		id = leases.Items[0].Name
		return true, nil
	})
	if err != nil {
		t.Fatalf("no identity lease for host %s", host)
	}
	return id
}

// WaitForUse waits until the gate's Feature has a use of component with the
// value, and returns the Feature.
func WaitForUse(t *testing.T, client kubernetes.Interface, gate, component string, enabled bool, timeout time.Duration) *featuresv1alpha1.Feature {
	t.Helper()
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		var err error
		f, err = client.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(gate), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return slices.ContainsFunc(f.Status.Uses, func(u featuresv1alpha1.FeatureUse) bool {
			return u.Component == component && u.Enabled == enabled && len(u.Reporters) > 0
		}), nil
	})
	if err != nil {
		var uses []featuresv1alpha1.FeatureUse
		if f != nil {
			uses = f.Status.Uses
		}
		t.Fatalf("%s never reported %s=%t: uses %+v", component, gate, enabled, uses)
	}
	return f
}

func Tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// StateRecorder records the states a Feature goes through, from a watch.
type StateRecorder struct {
	mu     sync.Mutex
	states []featuresv1alpha1.FeatureState
}

func RecordStates(t *testing.T, client kubernetes.Interface, name string) *StateRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &StateRecorder{}
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

func (r *StateRecorder) add(s featuresv1alpha1.FeatureState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s != "" && (len(r.states) == 0 || r.states[len(r.states)-1] != s) {
		r.states = append(r.states, s)
	}
}

func (r *StateRecorder) Get() []featuresv1alpha1.FeatureState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.states)
}

// through waits until the watch has delivered state as the last of at least
// n recorded states, and returns them all: a GET can see a state before the
// watch delivers it.
func (r *StateRecorder) Through(t *testing.T, n int, state featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureState {
	t.Helper()
	var got []featuresv1alpha1.FeatureState
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		got = r.Get()
		return len(got) >= n && got[len(got)-1] == state, nil
	})
	if err != nil {
		t.Fatalf("the watch never delivered %s as state %d: states %v", state, n, got)
	}
	return got
}

// ConfigsOf returns the admin client configs of the processes, nil for nil
// ones.
func ConfigsOf(servers []*APIServerProcess) []*restclient.Config {
	out := make([]*restclient.Config, len(servers))
	for i, s := range servers {
		if s != nil {
			out[i] = s.ClientConfig()
		}
	}
	return out
}
