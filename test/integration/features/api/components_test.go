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

package api

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/harness"
)

// Gates the components check at start-up in v1.37.2, flipped from their
// defaults so that the reported value shows the component's configuration.
const (
	kcmGate       = "StaleControllerConsistencyJob" // beta, default on
	schedulerGate = "SchedulerAsyncPreemption"      // beta, default on
)

// TestComponentsReportUses runs our kube-apiserver, kube-controller-manager
// and kube-scheduler as processes: each ends up in the uses of gates it
// checks, with the value it was started with (kube-apiserver aggregates
// their FeatureReports), the uses come back after someone clears them, and
// a reporter may write nothing but its own report.
func TestComponentsReportUses(t *testing.T) {
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix, harness.LifecycleFlags...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	harness.WaitForFeatures(t, admin, len(harness.KnownGates()))

	kcm := harness.StartComponentProcess(t, "kube-controller-manager", apiserver, harness.KubeControllerManagerToken,
		"--feature-gates="+kcmGate+"=false")
	scheduler := harness.StartComponentProcess(t, "kube-scheduler", apiserver, harness.KubeSchedulerToken,
		"--feature-gates="+schedulerGate+"=false")
	defer func() {
		if t.Failed() {
			t.Logf("kube-controller-manager log:\n%s", harness.Tail(kcm.Log(), 3000))
			t.Logf("kube-scheduler log:\n%s", harness.Tail(scheduler.Log(), 3000))
		}
	}()

	harness.WaitForUse(t, admin, kcmGate, "kube-controller-manager", false, time.Minute)
	harness.WaitForUse(t, admin, schedulerGate, "kube-scheduler", false, time.Minute)

	// The apiserver reports its configured value of every gate it knows,
	// under its identity lease name.
	leases, err := kubernetes.NewForConfigOrDie(apiserver.ClientConfig()).CoordinationV1().Leases("kube-system").
		List(context.Background(), metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err != nil || len(leases.Items) != 1 {
		t.Fatalf("expected one identity lease: %v %v", leases, err)
	}
	f := harness.WaitForUse(t, admin, "FeatureLifecycle", "kube-apiserver", true, time.Minute)
	if i := slices.IndexFunc(f.Status.Uses, func(u featuresv1alpha1.FeatureUse) bool { return u.Component == "kube-apiserver" }); f.Status.Uses[i].Reporters[0] != leases.Items[0].Name {
		t.Fatalf("kube-apiserver reported as %v, want its identity lease %s", f.Status.Uses[i].Reporters, leases.Items[0].Name)
	}

	t.Run("uses come back after they are cleared", func(t *testing.T) {
		for _, gate := range []string{kcmGate, schedulerGate} {
			clearUses(t, admin, gate)
		}
		harness.WaitForUse(t, admin, kcmGate, "kube-controller-manager", false, time.Minute)
		harness.WaitForUse(t, admin, schedulerGate, "kube-scheduler", false, time.Minute)
	})

	t.Run("reporters write only their own report", func(t *testing.T) {
		ctx := context.Background()
		asKCM := featuresclient.NewForConfigOrDie(apiserver.ClientConfigFor(harness.KubeControllerManagerToken))
		asNode := featuresclient.NewForConfigOrDie(apiserver.ClientConfigFor(harness.NodeToken))
		report := func(component, identity string, gates ...featuresv1alpha1.FeatureReportGate) *featuresv1alpha1.FeatureReport {
			renew := metav1.NewMicroTime(time.Now())
			return &featuresv1alpha1.FeatureReport{
				ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureReportName(component, identity)},
				Spec: featuresv1alpha1.FeatureReportSpec{Component: component, Identity: identity, Gates: gates, RenewTime: &renew,
					HolderLease: &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: identity}},
			}
		}
		on := featuresv1alpha1.FeatureReportGate{Name: schedulerGate, Enabled: true}
		forbidden := func(what string, err error, wantInMessage string) {
			t.Helper()
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), wantInMessage) {
				t.Errorf("%s: expected 403 mentioning %q, got %v", what, wantInMessage, err)
			}
		}
		_, err := asKCM.FeaturesV1alpha1().FeatureReports("kube-system").Create(ctx, report("kube-scheduler", "host-x", on), metav1.CreateOptions{})
		forbidden("kcm writes a scheduler's report", err, "kube-scheduler")
		_, err = asNode.FeaturesV1alpha1().FeatureReports("kube-system").Create(ctx, report("kubelet", "node-2", on), metav1.CreateOptions{})
		forbidden("a node reports under another node's name", err, "node-2")

		// Nobody but kube-apiserver writes the status of a Feature: RBAC
		// grants components no features/status any more, and admission
		// refuses it to whoever RBAC lets through.
		f, err := asKCM.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(schedulerGate), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f.Status.State = featuresv1alpha1.FeatureStateDisabled
		_, err = asKCM.FeaturesV1alpha1().Features("kube-system").UpdateStatus(ctx, f, metav1.UpdateOptions{})
		forbidden("kcm sets the state", err, "features/status")

		// A report with a gate twice is refused by validation (422, which
		// runs before validating admission).
		_, err = asKCM.FeaturesV1alpha1().FeatureReports("kube-system").Create(ctx, report("kube-controller-manager", "host-x", on, on), metav1.CreateOptions{})
		expectInvalid(t, "kcm reports a gate twice", err, "spec.gates[1].name")

		// A node writes its own report, and kube-apiserver aggregates it
		// into the Feature's uses; RBAC lets components read but not
		// create Features.
		if _, err := asNode.FeaturesV1alpha1().FeatureReports("kube-system").Create(ctx, report("kubelet", "node-1", on), metav1.CreateOptions{}); err != nil {
			t.Fatalf("node-1 writing its own report: %v", err)
		}
		f = harness.WaitForUse(t, admin, schedulerGate, "kubelet", true, time.Minute)
		if i := slices.IndexFunc(f.Status.Uses, func(u featuresv1alpha1.FeatureUse) bool { return u.Component == "kubelet" }); !slices.Equal(f.Status.Uses[i].Reporters, []string{"node-1"}) {
			t.Errorf("kubelet use listed %v, want node-1", f.Status.Uses[i].Reporters)
		}
		_, err = asKCM.FeaturesV1alpha1().Features("kube-system").Create(ctx, &featuresv1alpha1.Feature{
			ObjectMeta: metav1.ObjectMeta{Name: "made-up"}, Spec: featuresv1alpha1.FeatureSpec{Gate: "MadeUp"}}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("kcm creating a Feature: expected 403 from RBAC, got %v", err)
		}
	})
}

// TestFeatureSpecRules checks, as an administrator against a real apiserver,
// that kube-system only takes Features of known gates, and that neither the
// desired state of a CommandLine Feature nor the management of a Feature in
// kube-system can be set through the API.
func TestFeatureSpecRules(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix, harness.LifecycleFlags...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	harness.WaitForFeatures(t, admin, len(harness.KnownGates()))
	client := admin.FeaturesV1alpha1().Features("kube-system")

	_, err := client.Create(ctx, &featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Name: "made-up"},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "MadeUp"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "not known to this kube-apiserver") {
		t.Errorf("creating a Feature of an unknown gate in kube-system: expected 403, got %v", err)
	}

	name := featuresv1alpha1.FeatureName("FeatureLifecycle")
	_, err = client.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"desiredState":"Disabled"}}`), metav1.PatchOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.desiredState") {
		t.Errorf("setting desiredState of a CommandLine Feature: expected 403, got %v", err)
	}
	// No flag opts a gate into Dynamic: management cannot be changed either,
	// alone or with desiredState, and the Feature is left as it was.
	for _, patch := range []string{`{"spec":{"management":"Dynamic"}}`, `{"spec":{"management":"Dynamic","desiredState":"Disabled"}}`} {
		_, err = client.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.management") {
			t.Errorf("%s: expected 403 naming spec.management, got %v", patch, err)
		}
	}
	f, err := client.Get(ctx, name, metav1.GetOptions{})
	if err != nil || f.Spec.Management != featuresv1alpha1.FeatureManagementCommandLine || f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled {
		t.Errorf("refused patches changed the Feature: %+v, %v", f.Spec, err)
	}
}

func clearUses(t *testing.T, client featuresclient.Interface, gate string) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		f, err := client.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(gate), metav1.GetOptions{})
		if err != nil {
			return err
		}
		f.Status.Uses = nil
		now := metav1.Now()
		f.Status.UsesResetTime = &now
		_, err = client.FeaturesV1alpha1().Features("kube-system").UpdateStatus(ctx, f, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
