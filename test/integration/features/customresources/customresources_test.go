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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
	"k8s.io/kubernetes/test/integration/authutil"
	"k8s.io/kubernetes/test/integration/features/harness"
)

const vendor = "widgets-system"

var (
	widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	gadgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
)

// vendorCRD is a CRD of example.com with string fields color and size
// under spec and the bindings given.
func vendorCRD(plural, kind, bindings string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".example.com", Annotations: map[string]string{crdbindings.Annotation: bindings}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"color": str, "size": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"small"`)}, {Raw: []byte(`"huge"`)}}}}},
					}}}}},
		},
	}
}

func vendorObject(kind, name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": kind,
		"metadata": map[string]interface{}{"name": name, "namespace": vendor}, "spec": spec}}
}

// waitForState waits until the vendor's Feature name is in state and
// returns it; it fails the test after timeout.
func waitForState(t *testing.T, client kubernetes.Interface, name string, state featuresv1alpha1.FeatureState, timeout time.Duration, holds func(*featuresv1alpha1.Feature) bool) *featuresv1alpha1.Feature {
	t.Helper()
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		var err error
		if f, err = client.FeaturesV1alpha1().Features(vendor).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		return f.Status.State == state && (holds == nil || holds(f)), nil
	})
	if err != nil {
		t.Fatalf("feature %s/%s did not reach %s: %+v", vendor, name, state, f.Status)
	}
	return f
}

// setDesired sets the vendor Feature's desired state.
func setDesired(t *testing.T, client kubernetes.Interface, name string, state featuresv1alpha1.FeatureDesiredState) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"desiredState":%q}}`, state)
	if _, err := client.FeaturesV1alpha1().Features(vendor).Patch(context.Background(), name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestGatedCustomResourceFields: a vendor binds a field and an enum value
// of its Widget CRD, and its whole Gadget kind, to Features it declares in
// its namespace. With a Feature on the field is stored; turned off, the
// server flow rewrites all 1,000 stored Widgets without it (etcd, read
// directly, no longer holds it) and new writes of it are dropped with a
// warning, or refused for the enum value; the Gadget Feature holds
// Disabling naming the Gadget left, which stays readable, until it is
// deleted; turned on again, the field is stored again. Whoever may not
// read the vendor's Features cannot bind a CRD to them, and a Feature a CRD
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

	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: vendor}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, gate := range []string{"WidgetColors", "Gadgets"} {
		name := featuresv1alpha1.FeatureName(gate)
		if _, err := admin.FeaturesV1alpha1().Features(vendor).Create(ctx, &featuresv1alpha1.Feature{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: vendor},
			Spec: featuresv1alpha1.FeatureSpec{Gate: gate, Management: featuresv1alpha1.FeatureManagementDynamic,
				Declaration: &featuresv1alpha1.FeatureDeclaration{PreRelease: featuresv1alpha1.FeaturePreReleaseBeta, Default: true}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitForState(t, admin, name, featuresv1alpha1.FeatureStateEnabled, time.Minute, nil)
	}

	// A tenant who may create CRDs but not read the vendor's Features
	// cannot bind to them; nothing is created.
	// The grant waits until the authorizer's cache holds it.
	authutil.GrantUserAuthorization(t, ctx, admin, "tenant",
		rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"create", "get"}})
	tenantCfg := restclient.CopyConfig(apiserver.ClientConfig())
	tenantCfg.Impersonate = restclient.ImpersonationConfig{UserName: "tenant"}
	_, err := apiextensionsclient.NewForConfigOrDie(tenantCfg).ApiextensionsV1().CustomResourceDefinitions().Create(ctx,
		vendorCRD("thefts", "Theft", `[{"path": "spec.color", "feature": "widgets-system/widget-colors"}]`), metav1.CreateOptions{})
	const forbidden = `metadata.annotations[features.k8s.io/gated-fields][0].feature: Forbidden: user "tenant" may not get feature widgets-system/widget-colors`
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), forbidden) {
		t.Errorf("a tenant binding to the vendor's Feature: want 422 with %q, got %v", forbidden, err)
	}
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "thefts.example.com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused CRD was stored: %v", err)
	}
	// Bad input: a field-level error.
	_, err = crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx,
		vendorCRD("widgets", "Widget", `[{"path": "spec.colour", "feature": "widgets-system/widget-colors"}]`), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `metadata.annotations[features.k8s.io/gated-fields][0].path: Invalid value: "spec.colour": version v1: the schema has no field spec.colour`) {
		t.Errorf("binding a field the schema does not have: want 422 naming the path, got %v", err)
	}

	for _, crd := range []*apiextensionsv1.CustomResourceDefinition{
		vendorCRD("widgets", "Widget", `[{"path": "spec.color", "feature": "widgets-system/widget-colors"},
			{"path": "spec.size", "value": "huge", "feature": "widgets-system/widget-colors", "whenOff": "Refuse"}]`),
		vendorCRD("gadgets", "Gadget", `[{"feature": "widgets-system/gadgets"}]`),
	} {
		if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		}); err != nil {
			t.Fatalf("%s not established: %v", crd.Name, err)
		}
	}
	// A Feature a CRD binds to cannot be deleted.
	err = admin.FeaturesV1alpha1().Features(vendor).Delete(ctx, "widget-colors", metav1.DeleteOptions{})
	if want := "remove the bindings from widgets.example.com first"; !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("deleting a Feature a CRD binds to: want 403 with %q, got %v", want, err)
	}
	// The first writes of a new resource may find it not yet served.
	create := func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error {
		var err error
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err = dyn.Resource(gvr).Namespace(vendor).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
			return !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err), nil
		})
		return err
	}

	// admitted waits until admission refuses (or admits) obj in a dry run: the
	// FeatureCustomFields plugin reads Features from its informer, which
	// sees a state change a moment after the API does.
	admitted := func(gvr schema.GroupVersionResource, obj *unstructured.Unstructured, refused bool) {
		t.Helper()
		var err error
		if werr := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err = dyn.Resource(gvr).Namespace(vendor).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return apierrors.IsInvalid(err) == refused, nil
		}); werr != nil {
			t.Fatalf("admission of %s %s: want refused %t, last %v", obj.GetKind(), obj.GetName(), refused, err)
		}
	}

	// Enabled: the field and the value are stored.
	start := time.Now()
	if err := create(widgetsGVR, vendorObject("Widget", "widget-0", map[string]interface{}{"color": "red", "size": "huge"})); err != nil {
		t.Fatal(err)
	}
	var next atomic.Int64
	next.Store(1)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < widgets; i = next.Add(1) - 1 {
				if err := create(widgetsGVR, vendorObject("Widget", fmt.Sprintf("widget-%d", i), map[string]interface{}{"color": "red", "size": "small"})); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := create(gadgetsGVR, vendorObject("Gadget", "gadget-0", map[string]interface{}{})); err != nil {
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
	admitted(widgetsGVR, vendorObject("Widget", "probe", map[string]interface{}{"size": "huge"}), true)
	if err := create(widgetsGVR, vendorObject("Widget", "late", map[string]interface{}{"color": "blue", "size": "small"})); err != nil {
		t.Fatal(err)
	}
	if w := take(); w != "Warning: spec.color was dropped: feature widgets-system/widget-colors is Disabled" {
		t.Errorf("warnings of a write of spec.color with its Feature Disabled: %q", w)
	}
	if spec := harness.StoredSpecs(t, prefix, "example.com", "widgets", vendor)["late"]; spec["color"] != nil || spec["size"] != "small" {
		t.Errorf("stored with the Feature Disabled: %v", spec)
	}
	err = create(widgetsGVR, vendorObject("Widget", "huge", map[string]interface{}{"size": "huge"}))
	if want := `spec.size: Forbidden: spec.size "huge" cannot be set: feature widgets-system/widget-colors is Disabled`; !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("creating a huge widget with the Feature Disabled: want 422 with %q, got %v", want, err)
	}

	// The kind: Disabling names the gadget left; it stays readable, no
	// new one can be created; deleting it lets the Feature turn Disabled.
	setDesired(t, admin, "gadgets", featuresv1alpha1.FeatureDesiredStateDisabled)
	const named = "1 gadgets.example.com left: delete them to turn the feature off: widgets-system/gadget-0"
	waitForState(t, admin, "gadgets", featuresv1alpha1.FeatureStateDisabling, time.Minute, func(f *featuresv1alpha1.Feature) bool {
		return len(f.Status.Tasks) > 0 && f.Status.Tasks[0].Message == named
	})
	if _, err := dyn.Resource(gadgetsGVR).Namespace(vendor).Get(ctx, "gadget-0", metav1.GetOptions{}); err != nil {
		t.Errorf("reading the gadget while its kind turns off: %v", err)
	}
	admitted(gadgetsGVR, vendorObject("Gadget", "probe", map[string]interface{}{}), true)
	err = create(gadgetsGVR, vendorObject("Gadget", "gadget-1", map[string]interface{}{}))
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
	admitted(widgetsGVR, vendorObject("Widget", "probe", map[string]interface{}{"size": "huge"}), false)
	if err := create(widgetsGVR, vendorObject("Widget", "again", map[string]interface{}{"color": "green", "size": "huge"})); err != nil {
		t.Fatal(err)
	}
	if spec := harness.StoredSpecs(t, prefix, "example.com", "widgets", vendor)["again"]; spec["color"] != "green" || spec["size"] != "huge" {
		t.Errorf("stored with the Feature Enabled again: %v", spec)
	}
}

// conditionsOf lists a Feature's conditions as type=status.
func conditionsOf(f *featuresv1alpha1.Feature) []string {
	var out []string
	for _, c := range f.Status.Conditions {
		out = append(out, c.Type+"="+string(c.Status))
	}
	return out
}
