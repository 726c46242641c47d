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

package customresources

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// TestMigrateBindings: a CRD that still carries the former annotation
// features.k8s.io/gated-fields is warned about, and kubectl features
// migrate-bindings turns the annotation into a CustomResourceFeatureBinding
// and removes it.
func TestMigrateBindings(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	cfg := apiserver.ClientConfig()
	admin := kubernetes.NewForConfigOrDie(cfg)
	installVendor(t, admin, "WidgetColors")
	dir := t.TempDir()
	apply := func(manifest string) (string, error) {
		file := filepath.Join(dir, "crd.yaml")
		if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		return harness.Kubectl(t, apiserver, "apply", "-f", file)
	}

	// The former annotation: a warning, and the migration.
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
  annotations:
    ` + crbinding.LegacyAnnotation + `: '[{"path": "spec.color", "feature": "widgets-system/widget-colors"}]'
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {color: {type: string}}}
`
	out, err := apply(crd)
	if want := "Warning: metadata.annotations[features.k8s.io/gated-fields] is no longer read and gates nothing: bind the fields with the customresourcefeaturebinding gadgets.example.com"; err != nil || !strings.Contains(out, want) {
		t.Errorf("kubectl apply of a CRD with the former annotation: %v\n%s\nwant %q", err, out, want)
	}
	plugin := exec.Command(harness.BinaryOf(t, "kubectl-features", "./cmd/kubectl-features"),
		"--kubeconfig="+harness.WriteKubeconfig(t, apiserver, harness.AdminToken, dir), "migrate-bindings")
	migrated, err := plugin.CombinedOutput()
	if err != nil || !strings.Contains(string(migrated), "customresourcefeaturebinding.features.k8s.io/gadgets.example.com applied; annotation removed") {
		t.Fatalf("kubectl features migrate-bindings: %v\n%s", err, migrated)
	}
	t.Logf("kubectl features migrate-bindings:\n%s", migrated)
	gadgets, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "gadgets.example.com", metav1.GetOptions{})
	if err != nil || len(gadgets.Spec.Bindings) != 1 || gadgets.Spec.Bindings[0].Path != "spec.color" || gadgets.Spec.Bindings[0].WhenStored != "Clear" {
		t.Errorf("the migrated binding: %+v, %v", gadgets, err)
	}
	got, err := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.example.com", metav1.GetOptions{})
	if err != nil || got.Annotations[crbinding.LegacyAnnotation] != "" {
		t.Errorf("the migrated CRD still carries the annotation: %v, %v", got.Annotations, err)
	}
}
