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

package featurestates

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

const testGate = "StorageVersionMigrator"

func feature(gate, name string, state featuresv1alpha1.FeatureState) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: gate},
		Status:     featuresv1alpha1.FeatureStatus{State: state},
	}
}

// TestRegistryFollowsFeatures checks that a running registry answers
// Disabling from the Features' states and calls a gate's handlers when
// its answer changes, within a moment.
func TestRegistryFollowsFeatures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svm := feature(testGate, featuresv1alpha1.FeatureName(testGate), featuresv1alpha1.FeatureStateDisabling)
	client := fake.NewClientset(svm,
		// Named after no gate: ignored.
		feature("PodCertificateRequest", "elsewhere", featuresv1alpha1.FeatureStateDisabling))
	registry := NewRegistry("kube-system")
	var calls atomic.Int32
	var last atomic.Bool
	registry.AddHandler(testGate, func(on bool) { calls.Add(1); last.Store(on) })
	if registry.Disabling(testGate) {
		t.Fatal("Disabling before the registry is started")
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := registry.Run(ctx, factory.Features().V1alpha1().Features()); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	waitFor("the Feature Disabling", func() bool { return registry.Disabling(testGate) })
	if registry.Disabling("PodCertificateRequest") {
		t.Error("a Feature not named after its gate counts")
	}
	waitFor("the handler", func() bool { return calls.Load() == 1 && last.Load() })

	svm = svm.DeepCopy()
	svm.Status.State = featuresv1alpha1.FeatureStateDisabled
	if _, err := client.FeaturesV1alpha1().Features("kube-system").UpdateStatus(ctx, svm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the Feature Disabled", func() bool { return !registry.Disabling(testGate) && calls.Load() == 2 && !last.Load() })

	// Unchanged answers call no handler.
	registry.Set(map[string]bool{"Other": true})
	if calls.Load() != 2 {
		t.Errorf("a change of another gate called the handler")
	}
}
