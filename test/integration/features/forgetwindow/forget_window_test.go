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

package forgetwindow

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// forgetWindow of TestForgetWindowAcrossLeaderRestart: long enough to
// restart the remaining apiserver inside it and watch it hold.
const forgetWindow = 90 * time.Second

// TestForgetWindowAcrossLeaderRestart: two apiservers disagree on a gate (a
// rollout), so the Feature holds Enabled. The one configured Enabled shuts down
// gracefully (its identity lease is deleted); the other, configured Disabled, is
// restarted within the forget window and leads with nothing in memory. It
// must keep counting the departed apiserver, as the leader before it did,
// and turn the Feature off only once the window has passed. A leader that
// kept departures in memory started Disabling right after its restart.
func TestForgetWindowAcrossLeaderRestart(t *testing.T) {
	if !harness.SeparateHosts() {
		why := "needs unshare(1) with UTS namespaces (root, or an unprivileged user namespace) so that each apiserver process has its own identity"
		harness.RecordSkip(t, "the whole test", why)
		t.Skip(why)
	}
	lc := harness.Disagreeing
	lc.ForgetWindow = forgetWindow
	flags := func(value string) []string { return harness.DisagreeingFlags(t, value, lc) }
	prefix := harness.SharedEtcd().Prefix
	on := harness.StartAPIServerProcess(t, "forget-on", prefix, flags("true")...)
	off := harness.StartAPIServerProcess(t, "forget-off", prefix, flags("true")...)
	admin := featuresclient.NewForConfigOrDie(off.ClientConfig())
	kube := kubernetes.NewForConfigOrDie(off.ClientConfig())
	onID, offID := harness.IdentityOf(t, kube, "forget-on"), harness.IdentityOf(t, kube, "forget-off")
	name := featuresv1alpha1.FeatureName(harness.FlippableGate)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	harness.RollOne(t, admin, off, offID, "false", featuresv1alpha1.FeatureStateEnabled)

	on.Stop()
	departed := time.Now()
	t.Logf("stopped %s (%s) gracefully", on.Name, onID)
	tombstone := featurelifecycle.DepartedLeasePrefix + onID
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoordinationV1().Leases("kube-system").Get(ctx, tombstone, metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("no departure recorded for %s: lease %s never appeared", onID, tombstone)
	}

	off.Restart(t, flags("false")...)
	t.Logf("restarted %s %.1fs after the departure", off.Name, time.Since(departed).Seconds())
	admin = featuresclient.NewForConfigOrDie(off.ClientConfig())
	// Hold while the departed apiserver still counts (with a margin for
	// the leader's pass).
	holdUntil := departed.Add(forgetWindow - 10*time.Second)
	for time.Now().Before(holdUntil) {
		f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && (f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled || f.Status.State != featuresv1alpha1.FeatureStateEnabled) {
			t.Fatalf("%.1fs after %s departed (forget window %s), the restarted leader changed the Feature: %+v %+v",
				time.Since(departed).Seconds(), onID, forgetWindow, f.Spec, f.Status)
		}
		time.Sleep(time.Second)
	}
	t.Logf("held Enabled for %.1fs after the departure across the leader's restart", time.Since(departed).Seconds())
	f := featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, forgetWindow+2*time.Minute)
	t.Logf("Disabled %.1fs after the departure (forget window %s, wait period %s)", time.Since(departed).Seconds(), forgetWindow, harness.DisagreeingWaitPeriod)
	if f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateDisabled {
		t.Fatalf("desired state %s", f.Spec.DesiredState)
	}
}
