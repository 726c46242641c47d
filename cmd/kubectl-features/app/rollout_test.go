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

package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// rolloutFeature is ExtendWebSocketsToKubelet's Dynamic Feature, with
// spec.rollout when rolls is true.
func rolloutFeature(rolls bool) *featuresv1alpha1.Feature {
	f := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "extend-web-sockets-to-kubelet", Namespace: "kube-system"},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "ExtendWebSocketsToKubelet", Management: featuresv1alpha1.FeatureManagementDynamic,
			DesiredState: featuresv1alpha1.FeatureDesiredStateDisabled},
	}
	if rolls {
		f.Spec.Rollout = &featuresv1alpha1.FeatureRollout{}
	}
	return f
}

// runRollout runs kubectl features rollout args against client.
func runRollout(client kubernetes.Interface, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newRolloutCommand(&out, func() (kubernetes.Interface, error) { return client, nil })
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage = true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestRolloutCommands(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(rolloutFeature(false))
	get := func() *featuresv1alpha1.Feature {
		t.Helper()
		f, err := client.FeaturesV1alpha1().Features("kube-system").Get(ctx, "extend-web-sockets-to-kubelet", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	// Pausing a Feature that rolls out in no steps says how to start one.
	if _, err := runRollout(client, "pause", "ExtendWebSocketsToKubelet"); err == nil || !strings.Contains(err.Error(), "kubectl features rollout start") {
		t.Errorf("pause without spec.rollout: %v, want an error naming rollout start", err)
	}
	if _, err := runRollout(client, "start", "ExtendWebSocketsToKubelet", "--to", "on"); err == nil || !strings.Contains(err.Error(), "--to must be Enabled or Disabled") {
		t.Errorf("start --to on: %v, want an error naming Enabled and Disabled", err)
	}

	// start, by the gate's name: the desired state and spec.rollout.
	out, err := runRollout(client, "start", "ExtendWebSocketsToKubelet", "--to", "Enabled")
	if err != nil {
		t.Fatal(err)
	}
	if f := get(); f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled || f.Spec.Rollout == nil {
		t.Fatalf("after start: desired %s, rollout %v", f.Spec.DesiredState, f.Spec.Rollout)
	}
	if !strings.Contains(out, "extend-web-sockets-to-kubelet started the rollout to Enabled") {
		t.Errorf("start printed %q", out)
	}
	out, err = runRollout(client, "status", "extend-web-sockets-to-kubelet")
	if err != nil || !strings.Contains(out, "waiting for kube-apiserver to start the rollout to Enabled") {
		t.Errorf("status before the leader published it: %q, %v", out, err)
	}

	for _, tc := range []struct {
		verb  string
		check func(*featuresv1alpha1.FeatureRollout) bool
	}{
		{"pause", func(r *featuresv1alpha1.FeatureRollout) bool { return r.Paused }},
		{"resume", func(r *featuresv1alpha1.FeatureRollout) bool { return !r.Paused }},
		{"abort", func(r *featuresv1alpha1.FeatureRollout) bool { return r.Abort }},
	} {
		if _, err := runRollout(client, tc.verb, "ExtendWebSocketsToKubelet"); err != nil {
			t.Fatalf("%s: %v", tc.verb, err)
		}
		if r := get().Spec.Rollout; r == nil || !tc.check(r) {
			t.Errorf("after %s: spec.rollout %+v", tc.verb, r)
		}
	}
	// A new start clears abort and paused.
	if _, err := runRollout(client, "start", "ExtendWebSocketsToKubelet", "--to", "Disabled"); err != nil {
		t.Fatal(err)
	}
	if r := get().Spec.Rollout; r == nil || r.Abort || r.Paused {
		t.Errorf("after a new start: spec.rollout %+v, want neither abort nor paused", r)
	}
}

func TestRolloutStatusWatch(t *testing.T) {
	for _, tc := range []struct {
		phase   featuresv1alpha1.FeatureRolloutPhase
		scope   featuresv1alpha1.FeatureRolloutScope
		wantErr error
		want    string
	}{
		{featuresv1alpha1.FeatureRolloutComplete, featuresv1alpha1.FeatureRolloutScopeNodes, nil, "Complete Enabled -> Disabled, step 5 of 5, cohort 20 of 20 nodes"},
		{featuresv1alpha1.FeatureRolloutRolledBack, featuresv1alpha1.FeatureRolloutScopeNodes, ErrRolloutStopped, "RolledBack Enabled -> Disabled, step 1 of 5, cohort 0 of 20 nodes (NodeNotReady: node-3 is NotReady)"},
		{featuresv1alpha1.FeatureRolloutComplete, featuresv1alpha1.FeatureRolloutScopeAPIServers, nil, "Complete Enabled -> Disabled, step 5 of 5, cohort 20 of 20 apiservers"},
	} {
		t.Run(string(tc.phase)+"/"+string(tc.scope), func(t *testing.T) {
			f := rolloutFeature(true)
			r := &featuresv1alpha1.FeatureRolloutStatus{Phase: tc.phase, Scope: tc.scope,
				From: featuresv1alpha1.FeatureDesiredStateEnabled, To: featuresv1alpha1.FeatureDesiredStateDisabled, Step: 5, Members: 20, Candidates: 20}
			if tc.phase == featuresv1alpha1.FeatureRolloutRolledBack {
				r.Step, r.Members = 1, 0
				f.Status.Conditions = []metav1.Condition{{Type: featuresv1alpha1.FeatureConditionProgressing, Status: metav1.ConditionFalse,
					Reason: "NodeNotReady", Message: "node-3 is NotReady"}}
			}
			f.Status.Rollout = r
			out, err := runRollout(fake.NewClientset(f), "status", "-w", "--timeout", "10s", "ExtendWebSocketsToKubelet")
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("status -w: %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("status -w printed %q, want %q", out, tc.want)
			}
		})
	}
}
