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

package faults

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/test/e2e_features/framework"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// TestRollingFlagChange turns a gate off across three apiservers the way an
// administrator rolls a flag change: one apiserver at a time (stopped
// gracefully, started with the new flag), with a pause between. While they
// disagree the Feature holds Enabled, and ConfigurationAgreed=False names which
// apiservers say Enabled and which say Disabled; once the last one is restarted it
// goes Enabled -> Disabling -> Disabled exactly once: a watch kept through the whole
// roll sees no other state (0 flaps).
func TestRollingFlagChange(t *testing.T) {
	const (
		gate = "PodDeletionCost"
		// pause is how long the roll waits between two apiservers.
		pause      = 10 * time.Second
		waitPeriod = 5 * time.Second
	)
	flags := func(on bool) []string {
		return LifecycleFlags(","+gate+"="+strconv.FormatBool(on), "waitForUsesPeriod: "+waitPeriod.String()+"\n")
	}
	begin := time.Now()
	c := framework.StartCluster(t, framework.Options{APIServerFlags: flags(true)})
	t.Logf("cluster up in %.1fs", time.Since(begin).Seconds())
	clients := featuretest.NewClients(c.ClientConfigs()...)
	name := featuresv1alpha1.FeatureName(gate)
	featuretest.WaitForConverged(t, clients.Features[0], name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	var ids []string
	for i := range c.APIServers {
		ids = append(ids, c.Identity(t, i))
	}
	w := featuretest.WatchFeature(t, clients, name)

	ctx := context.Background()
	var lastRestart time.Time
	for i, a := range c.APIServers {
		stop := time.Now()
		clients.SetDown(i, true)
		a.Recreate(t, true, c.APIServerArgs(i, flags(false)...)...)
		clients.SetDown(i, false)
		lastRestart = time.Now()
		t.Logf("%s stopped gracefully and ready again with %s=false in %.1fs", a.Name, gate, lastRestart.Sub(stop).Seconds())
		if i == len(c.APIServers)-1 {
			break
		}
		// They disagree: the Feature holds Enabled and says who says what.
		off, on := slices.Sorted(slices.Values(ids[:i+1])), slices.Sorted(slices.Values(ids[i+1:]))
		want := "apiservers disagree: Enabled on " + strings.Join(on, ", ") + "; Disabled on " + strings.Join(off, ", ")
		deadline := lastRestart.Add(pause)
		seen := false
		var f *featuresv1alpha1.Feature
		for time.Now().Before(deadline) || !seen {
			if time.Since(lastRestart) > pause+30*time.Second {
				t.Fatalf("after %s restarted with %s=false, ConfigurationAgreed never said %q: %+v", a.Name, gate, want, f.Status.Conditions)
			}
			var err error
			if f, err = clients.Features[clients.Pick(i)].FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			if f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled || f.Status.State != featuresv1alpha1.FeatureStateEnabled {
				t.Fatalf("with %d of %d apiservers off the Feature moved: desired %s, state %s", i+1, len(ids), f.Spec.DesiredState, f.Status.State)
			}
			if cond := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed); cond != nil &&
				cond.Status == metav1.ConditionFalse && cond.Message == want && !seen {
				seen = true
				t.Logf("%s off (%.1fs after its restart): held Enabled, ConfigurationAgreed=False %q", a.Name, time.Since(lastRestart).Seconds(), cond.Message)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}

	off := featuretest.WaitForConverged(t, clients.Features[0], name, featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)
	convergedAt := time.Now()
	if cond := meta.FindStatusCondition(off.Status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("once all agree, ConfigurationAgreed must be True: %+v", cond)
	}
	want := []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabling, featuresv1alpha1.FeatureStateDisabled}
	var states []featuresv1alpha1.FeatureState
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		states = w.States()
		return len(states) > 0 && states[len(states)-1] == featuresv1alpha1.FeatureStateDisabled, nil
	})
	if err != nil {
		t.Fatalf("the watch never delivered Disabled: %v", states)
	}
	flaps := max(0, len(states)-len(want))
	if !slices.Equal(states, want) {
		w.Log(t, begin)
		t.Fatalf("states %v, want exactly %v", states, want)
	}
	t.Logf("rolled %s=false through %d apiservers with %s between: states %v, %d flaps, %d versions of the Feature watched; Disabled %.1fs after the last restart (wait period %s)",
		gate, len(ids), pause, states, flaps, len(w.Get()), convergedAt.Sub(lastRestart).Seconds(), waitPeriod)
	t.Logf("whole test: %.1fs", time.Since(begin).Seconds())
}
