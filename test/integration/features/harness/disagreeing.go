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

import (
	"context"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// DisagreeingWaitPeriod is the wait period of the tests whose apiservers
// disagree on FlippableGate. (It bounds only reports without a lease;
// those tests have none.)
const DisagreeingWaitPeriod = 20 * time.Second

// FlippableGate is an apiserver gate of v1.37.2 that can be flipped safely
// (beta, default on, not locked, no dependents), as in package transitions.
const FlippableGate = "PodDeletionCost"

// Disagreeing is the lifecycle configuration of apiservers that may
// disagree on FlippableGate.
var Disagreeing = Lifecycle{WaitForUsesPeriod: DisagreeingWaitPeriod, LivenessWindow: LivenessWindow}

// DisagreeingFlags are the flags of apiservers that may disagree on
// FlippableGate, with FlippableGate=value and the lifecycle configuration
// lc (Disagreeing, or a variant of it).
func DisagreeingFlags(t testing.TB, value string, lc Lifecycle) []string {
	return []string{"--feature-gates=FeatureLifecycle=true," + FlippableGate + "=" + value,
		"--runtime-config=features.k8s.io/v1alpha1=true", lc.Flag(t)}
}

// RollOne restarts one apiserver of several with FlippableGate set to
// value and checks that the Feature holds still: ConfigurationAgreed=False
// names the restarted apiserver (identity id) while desired state and
// state stay at held.
func RollOne(t *testing.T, admin kubernetes.Interface, server *APIServerProcess, id, value string, held featuresv1alpha1.FeatureState) {
	t.Helper()
	name := featuresv1alpha1.FeatureName(FlippableGate)
	server.Restart(t, DisagreeingFlags(t, value, Disagreeing)...)
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if f, err = admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		c := Condition(f, featuresv1alpha1.FeatureConditionConfigurationAgreed)
		return c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, id), nil
	})
	if err != nil {
		t.Fatalf("after restarting %s with %s=%s, ConfigurationAgreed must be False naming it: %+v", server.Name, FlippableGate, value, f)
	}
	if string(f.Spec.DesiredState) != string(held) || f.Status.State != held {
		t.Fatalf("while the apiservers disagree nothing may move: %+v %+v", f.Spec, f.Status)
	}
	t.Logf("%s restarted with %s=%s: held %s, %s", server.Name, FlippableGate, value, held,
		Condition(f, featuresv1alpha1.FeatureConditionConfigurationAgreed).Message)
}
