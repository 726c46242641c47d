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

package components

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// Gates the lifecycle registry lets be managed beyond the command line
// (pkg/features.Managements).
const (
	centralGate = "MaxUnavailableStatefulSet" // Central, applies while running
	dynamicGate = "PodDeletionCost"           // Dynamic
)

// waitForReport waits until component's report in kube-system says gate is
// enabled with management (any management when empty), and returns it.
// afterOutage bounds a wait for a component to report once the apiserver
// it reports to is back: while the apiserver was gone the reporter's retries
// backed off to at most 30 s, with up to 100 % jitter, so its next try can be
// a minute away before the write itself.
const afterOutage = 2 * time.Minute

func waitForReport(t *testing.T, client featuresclient.Interface, component, gate string, enabled bool, management featuresv1alpha1.FeatureManagement, timeout time.Duration) featuresv1alpha1.FeatureReportGate {
	t.Helper()
	var found featuresv1alpha1.FeatureReportGate
	var last []featuresv1alpha1.FeatureReportGate
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.FeaturesV1alpha1().FeatureReports("kube-system").List(ctx, metav1.ListOptions{FieldSelector: "spec.component=" + component})
		if err != nil {
			return false, nil
		}
		for _, r := range list.Items {
			for _, g := range r.Spec.Gates {
				if g.Name == gate {
					last = append(last[:0], g)
					if g.Enabled == enabled && (management == "" || g.Management == management) {
						found = g
						return true, nil
					}
				}
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s never reported %s=%t (%s): last %+v", component, gate, enabled, management, last)
	}
	return found
}

// TestCentralFeature is the KEP's MaxUnavailableStatefulSet story: the gate
// is set on kube-apiserver only, opted into Central; kube-controller-manager,
// started without it, takes the apiserver's value from the Feature, follows
// it while running when the apiserver restarts with another value, and the
// Feature reaches Disabled with maxUnavailable cleared. A kube-controller-manager
// started while no apiserver answers starts from its cache.
func TestCentralFeature(t *testing.T) {
	ctx := context.Background()
	flags := func(value string) []string {
		return []string{"--feature-gates=FeatureLifecycle=true," + centralGate + "=" + value,
			"--runtime-config=features.k8s.io/v1alpha1=true",
			"--feature-lifecycle-central-gates=" + centralGate}
	}
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix, flags("false")...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	kube := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	name := featuresv1alpha1.FeatureName(centralGate)
	f := featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, time.Minute)
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		f, _ = admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		return f != nil && f.Spec.Management == featuresv1alpha1.FeatureManagementCentral && f.Status.AppliesWhileRunning, nil
	}); err != nil {
		t.Fatalf("the Feature must become Central, from the apiserver's flags: %+v %+v", f.Spec, f.Status)
	}

	cacheFile := filepath.Join(t.TempDir(), "feature-desired-state.json")
	kcm := harness.StartComponentProcess(t, "kube-controller-manager", apiserver, harness.KubeControllerManagerToken,
		"--controllers=statefulset", "--use-service-account-credentials", "--feature-desired-state-cache-file="+cacheFile)
	defer func() {
		if t.Failed() {
			t.Logf("kube-controller-manager log:\n%s", harness.Tail(kcm.Log(), 4000))
		}
	}()
	// The StatefulSet controller checks the gate when it syncs one.
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
			},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
	}
	if _, err := kube.AppsV1().StatefulSets("default").Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kube-controller-manager's own default is on (beta, on by default at
	// 1.37); it reports the apiserver's value, and that it follows it.
	waitForReport(t, admin, "kube-controller-manager", centralGate, false, featuresv1alpha1.FeatureManagementCentral, time.Minute)
	if !strings.Contains(kcm.Log(), "Feature gate follows its Feature's desired state") {
		t.Error("kube-controller-manager must log that the gate follows its Feature")
	}

	// On on the apiserver: kube-controller-manager follows while running.
	apiserver.Restart(t, flags("true")...)
	ready := time.Now()
	waitForReport(t, admin, "kube-controller-manager", centralGate, true, featuresv1alpha1.FeatureManagementCentral, afterOutage)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, time.Minute)
	t.Logf("%s=true on the apiserver: Enabled %.1fs after it was ready", centralGate, time.Since(ready).Seconds())
	patch := []byte(`{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":2}}}}`)
	if _, err := kube.AppsV1().StatefulSets("default").Patch(ctx, "web", types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := kube.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || got.Spec.UpdateStrategy.RollingUpdate == nil || !equalIntOrString(got.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable, 2) {
		t.Fatalf("with the gate on, maxUnavailable is kept: %+v, %v", got.Spec.UpdateStrategy, err)
	}

	// Disabled on the apiserver: kube-controller-manager goes with it, and the
	// Feature reaches Disabled with maxUnavailable cleared.
	apiserver.Restart(t, flags("false")...)
	ready = time.Now()
	waitForReport(t, admin, "kube-controller-manager", centralGate, false, featuresv1alpha1.FeatureManagementCentral, afterOutage)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)
	t.Logf("%s=false on the apiserver: Disabled %.1fs after it was ready", centralGate, time.Since(ready).Seconds())
	got, err = kube.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || (got.Spec.UpdateStrategy.RollingUpdate != nil && got.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil) {
		t.Fatalf("maxUnavailable must be cleared once Disabled: %+v, %v", got.Spec.UpdateStrategy, err)
	}

	// A kube-controller-manager started while no apiserver answers starts
	// from its cache.
	kcm.Stop()
	apiserver.Stop()
	cached := harness.StartComponentProcess(t, "kube-controller-manager", apiserver, harness.KubeControllerManagerToken,
		"--controllers=statefulset", "--use-service-account-credentials", "--feature-desired-state-cache-file="+cacheFile)
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return strings.Contains(cached.Log(), "using the cached desired state"), nil
	}); err != nil {
		t.Fatalf("kube-controller-manager must say it uses its cache:\n%s", harness.Tail(cached.Log(), 3000))
	}
	defer func() {
		if t.Failed() {
			t.Logf("log of the kube-controller-manager started from its cache:\n%s", harness.Tail(cached.Log(), 4000))
		}
	}()
	apiserver.Start(t)
	// Upstream's kube-controller-manager gives the apiserver 10 s to become
	// healthy and exits otherwise; on a loaded machine the apiserver's RBAC
	// bootstrap alone can take longer. Restart it then, as the kubelet
	// restarts a static pod: the cached start was asserted above.
	// Start returns once /readyz passes; the component polls /healthz every
	// second, so it has given up by then or goes on.
	if cached.WaitForExit(2 * time.Second) {
		if !strings.Contains(cached.Log(), "failed to wait for apiserver being healthy") {
			t.Fatalf("kube-controller-manager started from its cache exited with %d:\n%s", cached.ExitCode(), harness.Tail(cached.Log(), 3000))
		}
		t.Logf("kube-controller-manager started from its cache gave up waiting for the apiserver's health (upstream waits 10 s); restarting it")
		cached = harness.StartComponentProcess(t, "kube-controller-manager", apiserver, harness.KubeControllerManagerToken,
			"--controllers=statefulset", "--use-service-account-credentials", "--feature-desired-state-cache-file="+cacheFile)
	}
	waitForReport(t, admin, "kube-controller-manager", centralGate, false, featuresv1alpha1.FeatureManagementCentral, afterOutage)
}

func equalIntOrString(v *intstr.IntOrString, want int) bool {
	return v != nil && v.Type == intstr.Int && v.IntValue() == want
}

// TestDynamicFeature: a gate opted into Dynamic on the apiserver is turned
// off and on with a patch, as `kubectl patch feature ... --type=merge`
// sends it (a YAML boolean included); kube-apiserver and
// kube-controller-manager apply it while running, the Feature goes through
// the states, an event names the user, managedFields the field manager;
// whoever RBAC does not allow cannot set it.
func TestDynamicFeature(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix,
		append(harness.LifecycleFlags, "--feature-lifecycle-dynamic-gates="+dynamicGate)...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	kube := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	name := featuresv1alpha1.FeatureName(dynamicGate)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, time.Minute)
	kcm := harness.StartComponentProcess(t, "kube-controller-manager", apiserver, harness.KubeControllerManagerToken,
		"--controllers=replicaset,serviceaccount", "--use-service-account-credentials", "--feature-desired-state-cache-file="+filepath.Join(t.TempDir(), "cache.json"))
	defer func() {
		if t.Failed() {
			t.Logf("kube-controller-manager log:\n%s", harness.Tail(kcm.Log(), 4000))
		}
	}()
	// The ReplicaSet controller checks the gate when it ranks pods to
	// delete: scale a ReplicaSet down.
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rs"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "rs"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if _, err := kube.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=rs"})
		return err == nil && len(pods.Items) == 2, nil
	}); err != nil {
		t.Fatal("the ReplicaSet controller did not create its pods")
	}
	if _, err := kube.AppsV1().ReplicaSets("default").Patch(ctx, "rs", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReport(t, admin, "kube-controller-manager", dynamicGate, true, featuresv1alpha1.FeatureManagementDynamic, time.Minute)

	// Whoever RBAC does not allow to update Features cannot set it.
	asKCM := featuresclient.NewForConfigOrDie(apiserver.ClientConfigFor(harness.KubeControllerManagerToken))
	if _, err := asKCM.FeaturesV1alpha1().Features("kube-system").Patch(ctx, name, types.MergePatchType,
		[]byte(`{"spec":{"desiredState":"Disabled"}}`), metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("kube-controller-manager setting a desired state: expected 403, got %v", err)
	}

	for _, step := range []struct {
		patch   string // as kubectl sends `desiredState: Disabled` (a YAML 1.1 boolean) or "Enabled"
		enabled bool
		final   featuresv1alpha1.FeatureState
	}{
		{`{"spec":{"desiredState":false}}`, false, featuresv1alpha1.FeatureStateDisabled},
		{`{"spec":{"desiredState":"Enabled"}}`, true, featuresv1alpha1.FeatureStateEnabled},
	} {
		states := harness.RecordStates(t, admin, name)
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			return len(states.Get()) > 0, nil
		}); err != nil {
			t.Fatal("the watch delivered no state")
		}
		before := len(states.Get())
		start := time.Now()
		if _, err := admin.FeaturesV1alpha1().Features("kube-system").Patch(ctx, name, types.MergePatchType, []byte(step.patch),
			metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
			t.Fatalf("patch %s: %v", step.patch, err)
		}
		waitForReport(t, admin, "kube-apiserver", dynamicGate, step.enabled, featuresv1alpha1.FeatureManagementDynamic, 30*time.Second)
		waitForReport(t, admin, "kube-controller-manager", dynamicGate, step.enabled, featuresv1alpha1.FeatureManagementDynamic, 30*time.Second)
		applied := time.Since(start)
		f := featuretest.WaitForConverged(t, admin, name, step.final, time.Minute)
		t.Logf("patch %s: every component reported enabled=%t %.1fs after the patch; %s %.1fs after it",
			step.patch, step.enabled, applied.Seconds(), step.final, time.Since(start).Seconds())
		if applied > 10*time.Second {
			t.Errorf("the components took %v to apply a dynamic change, want seconds", applied)
		}
		want := featuresv1alpha1.FeatureStateDisabling
		if step.enabled {
			want = featuresv1alpha1.FeatureStateEnabling
		}
		if got := states.Through(t, before+2, step.final)[before:]; !slices.Equal(got, []featuresv1alpha1.FeatureState{want, step.final}) {
			t.Errorf("states %v, want [%s %s]", got, want, step.final)
		}
		if !slices.ContainsFunc(f.ManagedFields, func(m metav1.ManagedFieldsEntry) bool { return m.Manager == "kubectl-patch" }) {
			t.Errorf("managedFields must name the patch's field manager: %+v", f.ManagedFields)
		}
	}
	events, err := kube.CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name + ",reason=DesiredStateSet"})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) < 2 || !strings.Contains(events.Items[0].Message, "admin set spec.desiredState to") {
		t.Errorf("every change must be recorded in an event naming the user: %+v", events.Items)
	}
}
