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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
)

// annotatedCRD is a CRD named name, with the annotation when it is not
// empty.
func annotatedCRD(name, annotation string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]interface{}{"name": name}}}
	if annotation != "" {
		u.SetAnnotations(map[string]string{crbinding.LegacyAnnotation: annotation, "other": "kept"})
	}
	return u
}

func TestMigrateBindings(t *testing.T) {
	ctx := context.Background()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList"},
		annotatedCRD("widgets.example.com", `[{"path": "spec.color", "feature": "widgets-system/widget-colors"},
		 {"path": "spec.size", "value": "Huge", "feature": "widgets-system/widget-colors", "whenOff": "Refuse"},
		 {"path": "status.color", "feature": "widgets-system/widget-colors"}]`),
		annotatedCRD("gadgets.example.com", `[{"feature": "widgets-system/gadgets"}]`),
		annotatedCRD("broken.example.com", `[{"path": "spec.color", "feature": "no-namespace"}]`),
		annotatedCRD("plain.example.com", ""))
	client := fake.NewClientset()
	var out bytes.Buffer
	err := MigrateBindings(ctx, &out, client, dyn, nil, false)
	if !errors.Is(err, ErrNotMigrated) {
		t.Fatalf("want ErrNotMigrated for the broken annotation, got %v", err)
	}
	for _, want := range []string{
		"widgets.example.com  3         customresourcefeaturebinding.features.k8s.io/widgets.example.com applied; annotation removed",
		"gadgets.example.com  1         customresourcefeaturebinding.features.k8s.io/gadgets.example.com applied; annotation removed",
		`broken.example.com   -         not migrated: entry 0: feature "no-namespace" is not <namespace>/<name>`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report %q lacks %q", out.String(), want)
		}
	}
	if strings.Contains(out.String(), "plain.example.com") {
		t.Errorf("a CRD without the annotation is reported: %q", out.String())
	}

	got, err := client.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	colors := featuresv1alpha1.FeatureReference{Namespace: "widgets-system", Name: "widget-colors"}
	want := []featuresv1alpha1.CustomResourceFieldBinding{
		{Name: "color", Path: "spec.color", Feature: colors, WhenOff: "Drop", WhenStored: "Clear"},
		{Name: "size-huge", Path: "spec.size", Value: ptr.To("Huge"), Feature: colors, WhenOff: "Refuse", WhenStored: "Clear"},
		{Name: "color-2", Path: "status.color", Feature: colors, WhenOff: "Drop", WhenStored: "Clear"},
	}
	if len(got.Spec.Bindings) != len(want) {
		t.Fatalf("bindings %+v, want %+v", got.Spec.Bindings, want)
	}
	for i := range want {
		g, w := got.Spec.Bindings[i], want[i]
		if g.Name != w.Name || g.Path != w.Path || ptr.Deref(g.Value, "") != ptr.Deref(w.Value, "") || g.Feature != w.Feature || g.WhenOff != w.WhenOff || g.WhenStored != w.WhenStored {
			t.Errorf("binding %d: %+v, want %+v", i, g, w)
		}
	}
	gadgets, err := client.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "gadgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b := gadgets.Spec.Bindings; len(b) != 1 || b[0].Name != "kind" || b[0].Path != "" || b[0].WhenOff != "Refuse" || b[0].WhenStored != "Hold" {
		t.Errorf("the kind's binding: %+v", b)
	}
	for name, kept := range map[string]bool{"widgets.example.com": false, "gadgets.example.com": false, "broken.example.com": true} {
		crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, has := crd.GetAnnotations()[crbinding.LegacyAnnotation]; has != kept || crd.GetAnnotations()["other"] != "kept" {
			t.Errorf("%s: annotations %v, want the former annotation kept: %t, and the others", name, crd.GetAnnotations(), kept)
		}
	}
	if _, err := client.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "broken.example.com", metav1.GetOptions{}); err == nil {
		t.Error("a binding was made of an annotation that does not parse")
	}

	// Run again: nothing is left to migrate but the broken one.
	out.Reset()
	if err := MigrateBindings(ctx, &out, client, dyn, []string{"widgets.example.com"}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "widgets.example.com  0         no features.k8s.io/gated-fields annotation: nothing to migrate") {
		t.Errorf("a second run: %q", out.String())
	}
}

func TestMigrateBindingsDryRun(t *testing.T) {
	ctx := context.Background()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList"},
		annotatedCRD("widgets.example.com", `[{"path": "spec.size", "value": "Huge", "feature": "widgets-system/widget-colors", "whenOff": "Refuse"}]`))
	client := fake.NewClientset()
	var out bytes.Buffer
	if err := MigrateBindings(ctx, &out, client, dyn, nil, true); err != nil {
		t.Fatal(err)
	}
	want := `---
apiVersion: features.k8s.io/v1alpha1
kind: CustomResourceFeatureBinding
metadata:
  name: widgets.example.com
spec:
  bindings:
  - feature:
      name: widget-colors
      namespace: widgets-system
    name: size-huge
    path: spec.size
    value: Huge
    whenOff: Refuse
    whenStored: Clear
`
	if out.String() != want {
		t.Errorf("dry run printed\n%s\nwant\n%s", out.String(), want)
	}
	if list, _ := client.FeaturesV1alpha1().CustomResourceFeatureBindings().List(ctx, metav1.ListOptions{}); len(list.Items) != 0 {
		t.Errorf("a dry run applied %d bindings", len(list.Items))
	}
	if crd, _ := dyn.Resource(crdResource).Get(ctx, "widgets.example.com", metav1.GetOptions{}); crd.GetAnnotations()[crbinding.LegacyAnnotation] == "" {
		t.Error("a dry run removed the annotation")
	}
}

func TestBindingName(t *testing.T) {
	taken := map[string]bool{}
	for _, tc := range []struct {
		l    legacyBinding
		want string
	}{
		{legacyBinding{}, "kind"},
		{legacyBinding{Path: "spec.color"}, "color"},
		{legacyBinding{Path: "spec.color"}, "color-2"},
		{legacyBinding{Path: "spec.size", Value: ptr.To("Extra Large!")}, "size-extra-large"},
		{legacyBinding{Path: "spec.x", Value: ptr.To("")}, "x"},
		{legacyBinding{Path: "spec._", Value: ptr.To("")}, "binding"},
	} {
		if got := bindingName(tc.l, taken); got != tc.want {
			t.Errorf("bindingName(%+v) = %q, want %q", tc.l, got, tc.want)
		}
	}
}
