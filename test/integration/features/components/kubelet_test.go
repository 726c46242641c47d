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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	fakecri "k8s.io/cri-client/pkg/fake"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// kubeletGate is a gate the kubelet of v1.37.2 checks at start-up (beta,
// default on, no dependents), turned off.
const kubeletGate = "KubeletCrashLoopBackOffMax"

// TestKubeletReportsUses runs our kubelet with node credentials against a
// fake CRI runtime (no container runtime is available here): it reports the
// gates it checked under its node name, with the value of its configuration.
func TestKubeletReportsUses(t *testing.T) {
	harness.RequireRoot(t, "the kubelet bind-mounts its root directory and manages cgroups, which needs root")
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix, harness.LifecycleFlags...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	harness.WaitForFeatures(t, admin, len(harness.KnownGates()))

	kubelet := startKubelet(t, apiserver, "", kubeletGate+": false")
	defer func() {
		if t.Failed() {
			list, _ := admin.FeaturesV1alpha1().Features("kube-system").List(context.Background(), metav1.ListOptions{})
			for _, f := range list.Items {
				for _, u := range f.Status.Uses {
					if u.Component == "kubelet" {
						t.Logf("kubelet reported %s=%t as %v", f.Spec.Gate, u.Enabled, u.Reporters)
					}
				}
			}
			t.Logf("kubelet log:\n%s", harness.Tail(kubelet.Log(), 4000))
		}
	}()
	f := harness.WaitForUse(t, admin, kubeletGate, "kubelet", false, time.Minute)
	for _, u := range f.Status.Uses {
		if u.Component == "kubelet" && (len(u.Reporters) != 1 || u.Reporters[0] != "node-1") {
			t.Fatalf("kubelet reported as %v, want its node name node-1", u.Reporters)
		}
	}
	checkKubeletGates(t, admin)
}

// startKubelet runs our kubelet as node-1 against a fake CRI runtime (no
// container runtime is available here), with featureGates (YAML map
// entries, e.g. "Foo: false") in its configuration and its files in dir (a
// new directory when empty; a restart passes the last one's, where the
// kubelet keeps its cache of followed desired states).
func startKubelet(t *testing.T, apiserver *harness.APIServerProcess, dir, featureGates string) *harness.ComponentProcess {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	socket, err := os.CreateTemp(dir, "cri-*.sock")
	if err != nil {
		t.Fatal(err)
	}
	_ = socket.Close()
	_ = os.Remove(socket.Name())
	endpoint := "unix://" + socket.Name()
	runtime := fakecri.NewFakeRemoteRuntime()
	if err := runtime.Start(endpoint); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runtime.Stop)
	// The kubelet reports and follows features only with the gate on.
	gates := "featureGates:\n  FeatureLifecycle: true\n"
	if featureGates != "" {
		gates += "  " + featureGates + "\n"
	}
	config := filepath.Join(dir, "kubelet.yaml")
	err = os.WriteFile(config, []byte(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
failSwapOn: false
cgroupsPerQOS: false
enforceNodeAllocatable: []
port: 0
readOnlyPort: 0
healthzPort: 0
containerRuntimeEndpoint: `+endpoint+`
`+gates+`authentication: {anonymous: {enabled: false}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	// The kubelet bind-mounts its root directory; undo that once it stopped
	// (cleanups run last-in first-out, so after the process is stopped).
	t.Cleanup(func() { _ = syscall.Unmount(root, syscall.MNT_DETACH) })
	return harness.StartProcess(t, "kubelet", dir,
		"--config="+config,
		"--kubeconfig="+harness.WriteKubeconfig(t, apiserver, harness.NodeToken, dir),
		"--hostname-override=node-1",
		"--root-dir="+root,
		"--cert-dir="+filepath.Join(dir, "pki"))
}

// checkKubeletGates compares the gates the kubelet reported with
// harness.KubeletCheckedGatesFile, which the reporting package's simulated
// kubelets check: it rewrites the file when FEATUREFLAGS_UPDATE_TESTDATA is
// set, and otherwise logs how the real kubelet differs from it (some gates
// are checked only when used).
func checkKubeletGates(t *testing.T, admin featuresclient.Interface) {
	t.Helper()
	var reported []string
	// The kubelet checks most gates in its first seconds: wait until the
	// count has not grown for 5 s.
	last, stable := -1, 0
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := admin.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		reported = reported[:0]
		for _, f := range list.Items {
			if slices.ContainsFunc(f.Status.Uses, func(u featuresv1alpha1.FeatureUse) bool { return u.Component == "kubelet" }) {
				reported = append(reported, f.Spec.Gate)
			}
		}
		if len(reported) == last {
			stable++
		} else {
			last, stable = len(reported), 0
		}
		return stable >= 5, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(reported)
	if os.Getenv("FEATUREFLAGS_UPDATE_TESTDATA") != "" {
		content := "# The gates a real kubelet of this release checks in its first seconds, written by\n" +
			"# FEATUREFLAGS_UPDATE_TESTDATA=1 go test -run TestKubeletReportsUses ./test/integration/features/components\n" +
			strings.Join(reported, "\n") + "\n"
		if err := os.WriteFile(harness.KubeletCheckedGatesPath(t), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	listed := sets.New(harness.KubeletCheckedGates(t)...)
	got := sets.New(reported...)
	t.Logf("the kubelet checked %d gates; %s lists %d; only checked now: %v; only listed: %v",
		got.Len(), harness.KubeletCheckedGatesFile, listed.Len(), sets.List(got.Difference(listed)), sets.List(listed.Difference(got)))
}

// TestKubeletFollowsFeatures runs our kubelet, started without any gate set,
// against an apiserver that opts KubeletCrashLoopBackOffMax into Central
// (turned off on the apiserver) and ExtendWebSocketsToKubelet into Dynamic: the
// kubelet takes the Central value from the Feature at start and the Dynamic
// one while running, and reports both; when the Central gate's desired
// state changes, the kubelet, which reads that gate only at start, exits
// cleanly, saying why, for its supervisor to restart it.
func TestKubeletFollowsFeatures(t *testing.T) {
	harness.RequireRoot(t, "the kubelet bind-mounts its root directory and manages cgroups, which needs root")
	const dynamic = "ExtendWebSocketsToKubelet"
	flags := func(central string) []string {
		return []string{"--feature-gates=FeatureLifecycle=true," + kubeletGate + "=" + central,
			"--runtime-config=features.k8s.io/v1alpha1=true",
			"--feature-lifecycle-central-gates=" + kubeletGate, "--feature-lifecycle-dynamic-gates=" + dynamic}
	}
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix, flags("false")...)
	admin := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	featuretest.WaitForConverged(t, admin, featuresv1alpha1.FeatureName(kubeletGate), featuresv1alpha1.FeatureStateDisabled, time.Minute)
	kubelet := startKubelet(t, apiserver, "", "")
	defer func() {
		if t.Failed() {
			var lines []string
			for _, line := range strings.Split(kubelet.Log(), "\n") {
				if strings.Contains(line, "eature") {
					lines = append(lines, line)
				}
			}
			t.Logf("kubelet log, lines about features:\n%s", harness.Tail(strings.Join(lines, "\n"), 6000))
		}
	}()
	waitForReport(t, admin, "kubelet", kubeletGate, false, featuresv1alpha1.FeatureManagementCentral, time.Minute)
	waitForReport(t, admin, "kubelet", dynamic, true, featuresv1alpha1.FeatureManagementDynamic, time.Minute)

	// The Dynamic gate is turned off with a patch: applied while running.
	start := time.Now()
	if _, err := admin.FeaturesV1alpha1().Features("kube-system").Patch(context.Background(), featuresv1alpha1.FeatureName(dynamic), types.MergePatchType,
		[]byte(`{"spec":{"desiredState":"Disabled"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReport(t, admin, "kubelet", dynamic, false, featuresv1alpha1.FeatureManagementDynamic, 30*time.Second)
	t.Logf("the kubelet reported %s=false %.1fs after the patch", dynamic, time.Since(start).Seconds())
	if kubelet.Exited() {
		t.Fatal("a Dynamic gate must not restart the kubelet")
	}

	// The Central gate is turned on on the apiserver: the kubelet reads it
	// only at start, so it exits cleanly for its supervisor to restart it.
	apiserver.Restart(t, flags("true")...)
	if !kubelet.WaitForExit(time.Minute) {
		t.Fatal("the kubelet must exit when a Central gate it reads only at start changes")
	}
	if code := kubelet.ExitCode(); code != 0 || !strings.Contains(kubelet.Log(), "Exiting so that this process is restarted with the new feature gate values") ||
		!strings.Contains(kubelet.Log(), kubeletGate+"=true (Central)") {
		t.Fatalf("the kubelet must exit with status 0 saying why, got %d", code)
	}
	// Its supervisor starts it again: it starts with the new value.
	kubelet = startKubelet(t, apiserver, kubelet.Dir, "")
	waitForReport(t, admin, "kubelet", kubeletGate, true, featuresv1alpha1.FeatureManagementCentral, time.Minute)
	featuretest.WaitForConverged(t, admin, featuresv1alpha1.FeatureName(kubeletGate), featuresv1alpha1.FeatureStateEnabled, time.Minute)
}
