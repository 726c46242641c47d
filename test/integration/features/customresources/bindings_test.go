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
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/authutil"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// bindingManifest is a binding of widgets.example.com (crd, when not
// empty) whose spec.bindings is the YAML list bindings.
func bindingManifest(crd, bindings string) string {
	if crd == "" {
		crd = "widgets.example.com"
	}
	return "apiVersion: features.k8s.io/v1alpha1\nkind: CustomResourceFeatureBinding\nmetadata:\n  name: " + crd + "\nspec:\n  bindings:\n" + bindings
}

// TestBindingAPI: the binding is an API kubectl knows: every bad input,
// those the registry tells and those admission tells from the cluster, is
// a field error that kubectl apply prints; kubectl explain documents it;
// kubectl get prints its columns; server-side apply owns each binding by
// name. (TestMigrateBindings: the former annotation.)
func TestBindingAPI(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	cfg := apiserver.ClientConfig()
	admin := kubernetes.NewForConfigOrDie(cfg)
	installVendor(t, admin, "WidgetColors")
	createCRD(t, apiextensionsclient.NewForConfigOrDie(cfg), vendorCRD("widgets", "Widget"))
	// tenant may edit the CRD and write bindings, but not read the
	// vendor's Features; reader may read Features and write bindings, but
	// not edit the CRD.
	bindings := rbacv1.PolicyRule{APIGroups: []string{"features.k8s.io"}, Resources: []string{"customresourcefeaturebindings"}, Verbs: []string{"get", "create", "patch"}}
	authutil.GrantUserAuthorization(t, ctx, admin, "tenant", bindings)
	authutil.GrantUserAuthorization(t, ctx, admin, "tenant",
		rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get", "update"}})
	authutil.GrantUserAuthorization(t, ctx, admin, "reader", bindings)
	authutil.GrantUserAuthorization(t, ctx, admin, "reader",
		rbacv1.PolicyRule{APIGroups: []string{"features.k8s.io"}, Resources: []string{"features"}, Verbs: []string{"get"}})

	dir := t.TempDir()
	kubectl := func(args ...string) (string, error) { return harness.Kubectl(t, apiserver, args...) }
	apply := func(manifest string, args ...string) (string, error) {
		file := filepath.Join(dir, "binding.yaml")
		if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		return kubectl(append([]string{"apply", "-f", file}, args...)...)
	}
	const feature = "    feature: {namespace: widgets-system, name: widget-colors}\n"
	for _, tc := range []struct {
		name, manifest, as, want string
	}{
		{"a path not in the CRD's schema", bindingManifest("", "  - name: colour\n    path: spec.colour\n"+feature), "",
			`spec.bindings[0].path: Invalid value: "spec.colour": version v1: the schema has no field spec.colour`},
		{"a path inside a list or outside spec and status", bindingManifest("", "  - name: labels\n    path: metadata.labels\n"+feature), "",
			`spec.bindings[0].path: Invalid value: "metadata.labels": must be a field under spec or status, its names joined by dots, e.g. spec.color`},
		{"an unknown Feature", bindingManifest("", "  - name: color\n    path: spec.color\n    feature: {namespace: widgets-system, name: no-such-feature}\n"), "",
			`spec.bindings[0].feature: Invalid value: "widgets-system/no-such-feature": no such Feature: create the Feature first`},
		{"a value of the wrong type", bindingManifest("", "  - name: many\n    path: spec.count\n    value: many\n"+feature), "",
			`spec.bindings[0].value: Invalid value: "many": version v1: spec.count is an integer: the value must be written in decimal, e.g. 3`},
		{"a value outside the enum", bindingManifest("", "  - name: enormous\n    path: spec.size\n    value: enormous\n"+feature), "",
			`spec.bindings[0].value: Invalid value: "enormous": version v1: spec.size must be one of its enum values: small, huge, giant, Small, Huge, Giant`},
		{"another namespace's Feature without the right to read it", bindingManifest("", "  - name: color\n    path: spec.color\n"+feature), "tenant",
			`spec.bindings[0].feature: Forbidden: user "tenant" may not get feature widgets-system/widget-colors`},
		{"a CRD its writer may not edit", bindingManifest("", "  - name: color\n    path: spec.color\n"+feature), "reader",
			`metadata.name: Forbidden: user "reader" may not update customresourcedefinition widgets.example.com`},
		{"no such CRD", bindingManifest("nothings.example.com", "  - name: color\n    path: spec.color\n"+feature), "",
			`metadata.name: Invalid value: "nothings.example.com": no CustomResourceDefinition has this name: create the CRD first`},
		{"an unknown whenOff", bindingManifest("", "  - name: color\n    path: spec.color\n    whenOff: Warn\n"+feature), "",
			`spec.bindings[0].whenOff: Unsupported value: "Warn": supported values: "Drop", "Refuse"`},
		{"a kind cleared", bindingManifest("", "  - name: kind\n    whenStored: Clear\n"+feature), "",
			`spec.bindings[0].whenStored: Forbidden: objects of a kind are never deleted: Hold`},
		{"a field bound twice", bindingManifest("", "  - name: color\n    path: spec.color\n"+feature+"  - name: colour\n    path: spec.color\n"+feature), "",
			`spec.bindings[1]: Invalid value: "colour": binds the field spec.color, which bindings[0] (color) binds already`},
		{"a misspelt field", bindingManifest("", "  - name: color\n    path: spec.color\n    fetaure: {namespace: widgets-system, name: widget-colors}\n"), "",
			`unknown field "spec.bindings[0].fetaure"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			if tc.as != "" {
				args = append(args, "--as="+tc.as)
			}
			out, err := apply(tc.manifest, args...)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("kubectl apply: %v\n%s\nwant an error with %q", err, out, tc.want)
			}
			t.Logf("kubectl apply (%s): %s", tc.name, strings.TrimSpace(out))
		})
	}
	if list, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Fatalf("bad input stored %d bindings (%v)", len(list.Items), err)
	}

	// Server-side apply: two managers each own their binding.
	if out, err := apply(bindingManifest("", "  - name: color\n    path: spec.color\n"+feature), "--server-side", "--field-manager=colors"); err != nil {
		t.Fatalf("kubectl apply --server-side: %v\n%s", err, out)
	}
	if out, err := apply(bindingManifest("", "  - name: huge\n    path: spec.size\n    value: huge\n    whenOff: Refuse\n"+feature), "--server-side", "--field-manager=sizes"); err != nil {
		t.Fatalf("kubectl apply --server-side: %v\n%s", err, out)
	}
	b, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var managers []string
	for _, m := range b.ManagedFields {
		managers = append(managers, m.Manager)
	}
	if len(b.Spec.Bindings) != 2 || b.Spec.Bindings[1].WhenStored != "Hold" || strings.Join(managers, ",") != "colors,sizes" {
		t.Errorf("after two managers applied: bindings %+v, managers %v", b.Spec.Bindings, managers)
	}
	out, err := kubectl("get", "customresourcefeaturebindings", "-o", "wide")
	if err != nil || !strings.Contains(out, "widgets.example.com   2          widgets-system/widget-colors") || !strings.Contains(out, `spec.size=huge (Refuse/Hold)`) {
		t.Errorf("kubectl get customresourcefeaturebindings -o wide: %v\n%s", err, out)
	}
	t.Logf("kubectl get customresourcefeaturebindings -o wide:\n%s", out)
	out, err = kubectl("explain", "customresourcefeaturebindings.spec.bindings.whenStored")
	if err != nil || !strings.Contains(out, "Hold keeps the Feature Disabling") {
		t.Errorf("kubectl explain customresourcefeaturebindings.spec.bindings.whenStored: %v\n%s", err, out)
	}
}
