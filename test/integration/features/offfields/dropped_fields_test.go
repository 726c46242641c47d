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

package offfields

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// warnings collects the warnings a client receives.
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.text
	w.text = nil
	return out
}

// TestDroppedFieldWarnings: with MaxUnavailableStatefulSet off, a create,
// a patch and a server-side apply that set maxUnavailable each get a
// warning naming the field and the Feature's state, client-go hands it to
// its warning handler and kubectl apply prints it; the object stored is
// upstream's (no maxUnavailable); writes that do not set it get none.
func TestDroppedFieldWarnings(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix,
		"--feature-gates=FeatureLifecycle=true,MaxUnavailableStatefulSet=false",
		"--runtime-config=features.k8s.io/v1alpha1=true")
	cfg := apiserver.ClientConfig()
	seen := &warnings{}
	cfg.WarningHandler = seen
	client := kubernetes.NewForConfigOrDie(cfg)
	featuretest.WaitForConverged(t, client, featuresv1alpha1.FeatureName("MaxUnavailableStatefulSet"), featuresv1alpha1.FeatureStateDisabled, time.Minute)
	const want = "spec.updateStrategy.rollingUpdate.maxUnavailable was dropped: feature kube-system/max-unavailable-stateful-set is Disabled"

	sts := func(name string, maxUnavailable *intstr.IntOrString) *appsv1.StatefulSet {
		s := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: appsv1.StatefulSetSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
				},
				UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			},
		}
		if maxUnavailable != nil {
			s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: maxUnavailable}
		}
		return s
	}
	two := intstr.FromInt32(2)
	check := func(what string, got []string, warned bool) {
		t.Helper()
		if warned != slices.Contains(got, want) {
			t.Errorf("%s: warnings %q, want %q: %t", what, got, want, warned)
		}
	}

	// Create.
	if _, err := client.AppsV1().StatefulSets("default").Create(ctx, sts("created", &two), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("create", seen.take(), true)
	if _, err := client.AppsV1().StatefulSets("default").Create(ctx, sts("plain", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("create without the field", seen.take(), false)

	// Patch.
	patch := []byte(`{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":2}}}}`)
	if _, err := client.AppsV1().StatefulSets("default").Patch(ctx, "plain", types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	check("patch", seen.take(), true)

	// Server-side apply.
	applied := []byte(`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"applied","namespace":"default"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"applied"}},"template":{"metadata":{"labels":{"app":"applied"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":2}}}}`)
	if _, err := client.AppsV1().StatefulSets("default").Patch(ctx, "applied", types.ApplyPatchType, applied, metav1.PatchOptions{FieldManager: "test", Force: ptr.To(true)}); err != nil {
		t.Fatal(err)
	}
	check("server-side apply", seen.take(), true)

	// What is stored is upstream's: no maxUnavailable.
	for _, name := range []string{"created", "plain", "applied"} {
		got, err := client.AppsV1().StatefulSets("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r := got.Spec.UpdateStrategy.RollingUpdate; r != nil && r.MaxUnavailable != nil {
			t.Errorf("%s: maxUnavailable stored with the gate off: %v", name, r.MaxUnavailable)
		}
	}

	// kubectl apply prints it.
	dir := t.TempDir()
	manifest := filepath.Join(dir, "sts.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kubectl-applied
  namespace: default
spec:
  replicas: 0
  selector:
    matchLabels: {app: kubectl-applied}
  template:
    metadata:
      labels: {app: kubectl-applied}
    spec:
      containers: [{name: c, image: registry.k8s.io/pause:3.10}]
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl := exec.Command(harness.Binary(t, "kubectl"), "--kubeconfig="+harness.WriteKubeconfig(t, apiserver, harness.AdminToken, dir), "apply", "-f", manifest)
	out, err := kubectl.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Warning: "+want) {
		t.Errorf("kubectl apply must print the warning:\n%s", out)
	}
	t.Logf("kubectl apply:\n%s", out)
}

// BenchmarkDroppedFieldWarning: creating a StatefulSet that sets
// maxUnavailable with MaxUnavailableStatefulSet off, against an apiserver
// with the FeatureLifecycle gate on (ours: the write gets the warning)
// and one with it off (upstream: the field is dropped without a word),
// sequentially, over the API. The ratio is the cost of the warning.
func BenchmarkDroppedFieldWarning(b *testing.B) {
	two := intstr.FromInt32(2)
	for _, c := range []struct{ name, lifecycle string }{{"upstream", "false"}, {"ours", "true"}} {
		flags := []string{"--feature-gates=FeatureLifecycle=" + c.lifecycle + ",MaxUnavailableStatefulSet=false"}
		if c.lifecycle == "true" {
			flags = append(flags, "--runtime-config=features.k8s.io/v1alpha1=true")
		}
		apiserver := harness.StartAPIServerProcess(b, "apiserver-"+c.name, harness.SharedEtcd().Prefix, flags...)
		cfg := apiserver.ClientConfig()
		seen := &warnings{}
		cfg.WarningHandler = seen
		client := kubernetes.NewForConfigOrDie(cfg)
		b.Run(c.name+"/create-statefulset", func(b *testing.B) {
			for i := range b.N {
				s := &appsv1.StatefulSet{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s-%d", i), Namespace: "default"},
					Spec: appsv1.StatefulSetSpec{
						Replicas: ptr.To[int32](0),
						Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "s"}},
						Template: corev1.PodTemplateSpec{
							ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "s"}},
							Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
						},
						UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
							RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &two}},
					},
				}
				if _, err := client.AppsV1().StatefulSets("default").Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				_ = client.AppsV1().StatefulSets("default").Delete(context.Background(), s.Name, metav1.DeleteOptions{})
			}
			b.StopTimer()
			if got := len(seen.take()) > 0; got != (c.name == "ours") {
				b.Fatalf("%s: warned %t", c.name, got)
			}
		})
		apiserver.Stop()
	}
}
