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
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/test/integration/authutil"
	"k8s.io/kubernetes/test/integration/features/harness"
)

var (
	widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	gadgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
)

// TestGatedCustomResourceFields: a vendor binds a field and an enum value
// of its Widget CRD, and its whole Gadget kind, to Features it declares in
// its namespace, with CustomResourceFeatureBindings. With a Feature on the
// field is stored; turned off, the server flow rewrites all 1,000 stored
// Widgets without the field and the value (whenStored Clear; etcd, read
// directly, no longer holds them) and new writes of the field are dropped
// with a warning, of the value refused; the Gadget Feature holds
// Disabling naming the Gadget left, which stays readable, until it is
// deleted; turned on again, the field is stored again. Whoever may not read
// the vendor's Features cannot bind a CRD to them, and a Feature a binding
// binds to cannot be deleted.
func TestGatedCustomResourceFields(t *testing.T) {
	const widgets = 1000
	ctx := context.Background()
	prefix := harness.SharedEtcd().Prefix
	apiserver := harness.StartAPIServerProcess(t, "apiserver", prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	cfg := apiserver.ClientConfig()
	// Warnings, as kubectl prints them.
	var seen bytes.Buffer
	cfg.WarningHandler = restclient.NewWarningWriter(&seen, restclient.WarningWriterOptions{})
	take := func() string {
		defer seen.Reset()
		return strings.TrimSpace(seen.String())
	}
	admin := kubernetes.NewForConfigOrDie(cfg)
	crds := apiextensionsclient.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	installVendor(t, admin, "WidgetColors", "Gadgets")

	// A tenant who may create CRDs and bindings but not read the vendor's
	// Features cannot bind to them; nothing is created. The grant waits
	// until the authorizer's cache holds it.
	authutil.GrantUserAuthorization(t, ctx, admin, "tenant",
		rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"create", "get", "update"}})
	authutil.GrantUserAuthorization(t, ctx, admin, "tenant",
		rbacv1.PolicyRule{APIGroups: []string{"features.k8s.io"}, Resources: []string{"customresourcefeaturebindings"}, Verbs: []string{"create"}})
	tenantCfg := restclient.CopyConfig(apiserver.ClientConfig())
	tenantCfg.Impersonate = restclient.ImpersonationConfig{UserName: "tenant"}
	createCRD(t, apiextensionsclient.NewForConfigOrDie(tenantCfg), vendorCRD("thefts", "Theft"))
	_, err := kubernetes.NewForConfigOrDie(tenantCfg).FeaturesV1alpha1().CustomResourceFeatureBindings().Create(ctx,
		binding("thefts.example.com", featuresv1alpha1.CustomResourceFieldBinding{Name: "color", Path: "spec.color", Feature: vendorFeature("widget-colors")}), metav1.CreateOptions{})
	const forbidden = `spec.bindings[0].feature: Forbidden: user "tenant" may not get feature widgets-system/widget-colors`
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), forbidden) {
		t.Errorf("a tenant binding to the vendor's Feature: want 422 with %q, got %v", forbidden, err)
	}
	if _, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "thefts.example.com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused binding was stored: %v", err)
	}

	createCRD(t, crds, vendorCRD("widgets", "Widget"))
	createCRD(t, crds, vendorCRD("gadgets", "Gadget"))
	// Bad input: a field-level error.
	_, err = admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Create(ctx,
		binding("widgets.example.com", featuresv1alpha1.CustomResourceFieldBinding{Name: "colour", Path: "spec.colour", Feature: vendorFeature("widget-colors")}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.bindings[0].path: Invalid value: "spec.colour": version v1: the schema has no field spec.colour`) {
		t.Errorf("binding a field the schema does not have: want 422 naming the path, got %v", err)
	}
	for _, b := range []*featuresv1alpha1.CustomResourceFeatureBinding{
		binding("widgets.example.com",
			featuresv1alpha1.CustomResourceFieldBinding{Name: "color", Path: "spec.color", Feature: vendorFeature("widget-colors")},
			featuresv1alpha1.CustomResourceFieldBinding{Name: "huge", Path: "spec.size", Value: ptr.To("huge"), Feature: vendorFeature("widget-colors"),
				WhenOff: featuresv1alpha1.CustomResourceWhenOffRefuse, WhenStored: featuresv1alpha1.CustomResourceWhenStoredClear}),
		binding("gadgets.example.com", featuresv1alpha1.CustomResourceFieldBinding{Name: "kind", Feature: vendorFeature("gadgets")}),
	} {
		if _, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A Feature a binding binds to cannot be deleted.
	err = admin.FeaturesV1alpha1().Features(vendor).Delete(ctx, "widget-colors", metav1.DeleteOptions{})
	if want := "remove its bindings from widgets.example.com first"; !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("deleting a Feature a binding binds to: want 403 with %q, got %v", want, err)
	}

	// Enabled: the field and the value are stored.
	start := time.Now()
	if err := create(dyn, widgetsGVR, vendorObject("Widget", "widget-0", map[string]interface{}{"color": "red", "size": "huge"})); err != nil {
		t.Fatal(err)
	}
	createAll(t, dyn, widgetsGVR, widgets-1, func(i int) *unstructured.Unstructured {
		return vendorObject("Widget", fmt.Sprintf("widget-%d", i+1), map[string]interface{}{"color": "red", "size": "small"})
	})
	if err := create(dyn, gadgetsGVR, vendorObject("Gadget", "gadget-0", map[string]interface{}{})); err != nil {
		t.Fatal(err)
	}
	t.Logf("created %d widgets with spec.color and a gadget in %.1fs", widgets, time.Since(start).Seconds())
	stored := harness.StoredSpecs(t, prefix, "example.com", "widgets", vendor)
	if len(stored) != widgets || stored["widget-0"]["color"] != "red" || stored["widget-0"]["size"] != "huge" {
		t.Fatalf("with the Feature Enabled, etcd holds %d widgets, widget-0: %v", len(stored), stored["widget-0"])
	}
	if w := take(); w != "" {
		t.Errorf("warnings with the Features Enabled: %q", w)
	}

	// Disabled: the server flow rewrites every widget that holds the field or
	// the value.
	start = time.Now()
	setDesired(t, admin, "widget-colors", featuresv1alpha1.FeatureDesiredStateDisabled)
	f := waitForState(t, admin, "widget-colors", featuresv1alpha1.FeatureStateDisabled, 3*time.Minute, nil)
	took := time.Since(start)
	left := 0
	for name, spec := range harness.StoredSpecs(t, prefix, "example.com", "widgets", vendor) {
		if _, ok := spec["color"]; ok || spec["size"] == "huge" {
			left++
			if left < 5 {
				t.Errorf("etcd still holds %s: %v", name, spec)
			}
		}
	}
	events, err := admin.CoreV1().Events(vendor).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.name", "widget-colors"), fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
	if err != nil {
		t.Fatal(err)
	}
	var completed []string
	for _, e := range events.Items {
		completed = append(completed, e.Message)
	}
	if !strings.Contains(strings.Join(completed, "\n"), "task clear-widgets-example-com: 1000 widgets.example.com cleared") {
		t.Errorf("TaskCompleted events of widget-colors: %q, want one of clear-widgets-example-com clearing 1000", completed)
	}
	t.Logf("widget-colors Disabled %.1fs after it was asked Disabled, with %d widgets cleared (%d left in etcd); conditions %v", took.Seconds(), widgets, left, conditionsOf(f))

	// New writes: the field dropped with a warning, the value refused.
	admitted(t, dyn, widgetsGVR, vendorObject("Widget", "probe", map[string]interface{}{"size": "huge"}), true)
	if err := create(dyn, widgetsGVR, vendorObject("Widget", "late", map[string]interface{}{"color": "blue", "size": "small"})); err != nil {
		t.Fatal(err)
	}
	if w := take(); w != "Warning: spec.color was dropped: feature widgets-system/widget-colors is Disabled" {
		t.Errorf("warnings of a write of spec.color with its Feature Disabled: %q", w)
	}
	if spec := harness.StoredSpecs(t, prefix, "example.com", "widgets", vendor)["late"]; spec["color"] != nil || spec["size"] != "small" {
		t.Errorf("stored with the Feature Disabled: %v", spec)
	}
	err = create(dyn, widgetsGVR, vendorObject("Widget", "huge", map[string]interface{}{"size": "huge"}))
	if want := `spec.size: Forbidden: spec.size "huge" cannot be set: feature widgets-system/widget-colors is Disabled`; !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("creating a huge widget with the Feature Disabled: want 422 with %q, got %v", want, err)
	}

	// The kind: Disabling names the gadget left; it stays readable, no
	// new one can be created; deleting it lets the Feature turn Disabled.
	setDesired(t, admin, "gadgets", featuresv1alpha1.FeatureDesiredStateDisabled)
	const named = "1 gadgets.example.com in 1 namespace is left: delete it to turn the feature off: widgets-system/gadget-0"
	waitForState(t, admin, "gadgets", featuresv1alpha1.FeatureStateDisabling, time.Minute, func(f *featuresv1alpha1.Feature) bool {
		return len(f.Status.Tasks) > 0 && f.Status.Tasks[0].Message == named
	})
	if _, err := dyn.Resource(gadgetsGVR).Namespace(vendor).Get(ctx, "gadget-0", metav1.GetOptions{}); err != nil {
		t.Errorf("reading the gadget while its kind turns off: %v", err)
	}
	admitted(t, dyn, gadgetsGVR, vendorObject("Gadget", "probe", map[string]interface{}{}), true)
	err = create(dyn, gadgetsGVR, vendorObject("Gadget", "gadget-1", map[string]interface{}{}))
	if want := `kind: Forbidden: Gadget cannot be created: feature widgets-system/gadgets is Disabling`; !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("creating a gadget while its kind turns off: want 422 with %q, got %v", want, err)
	}
	if err := dyn.Resource(gadgetsGVR).Namespace(vendor).Delete(ctx, "gadget-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForState(t, admin, "gadgets", featuresv1alpha1.FeatureStateDisabled, time.Minute, nil)

	// On again: the field is stored again.
	setDesired(t, admin, "widget-colors", featuresv1alpha1.FeatureDesiredStateEnabled)
	waitForState(t, admin, "widget-colors", featuresv1alpha1.FeatureStateEnabled, time.Minute, nil)
	admitted(t, dyn, widgetsGVR, vendorObject("Widget", "probe", map[string]interface{}{"size": "huge"}), false)
	if err := create(dyn, widgetsGVR, vendorObject("Widget", "again", map[string]interface{}{"color": "green", "size": "huge"})); err != nil {
		t.Fatal(err)
	}
	if spec := harness.StoredSpecs(t, prefix, "example.com", "widgets", vendor)["again"]; spec["color"] != "green" || spec["size"] != "huge" {
		t.Errorf("stored with the Feature Enabled again: %v", spec)
	}
}
