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
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

const vendor = "widgets-system"

// vendorCRD is a CRD of example.com, plural and kind, whose spec has the
// string fields color and label, the enum size (small, huge, giant, and
// the capitalized Small, Huge, Giant) and the integer count.
func vendorCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	var sizes []apiextensionsv1.JSON
	for _, s := range []string{"small", "huge", "giant", "Small", "Huge", "Giant"} {
		sizes = append(sizes, apiextensionsv1.JSON{Raw: []byte(`"` + s + `"`)})
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"color": str, "label": str, "count": {Type: "integer"}, "size": {Type: "string", Enum: sizes}}},
					}}}}},
		},
	}
}

// createCRD creates crd and waits until it is established.
func createCRD(t *testing.T, crds apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ctx := context.Background()
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

// vendorFeature refers to the vendor's Feature name.
func vendorFeature(name string) featuresv1alpha1.FeatureReference {
	return featuresv1alpha1.FeatureReference{Namespace: vendor, Name: name}
}

// binding returns the binding of the CRD crd.
func binding(crd string, bindings ...featuresv1alpha1.CustomResourceFieldBinding) *featuresv1alpha1.CustomResourceFeatureBinding {
	return &featuresv1alpha1.CustomResourceFeatureBinding{ObjectMeta: metav1.ObjectMeta{Name: crd},
		Spec: featuresv1alpha1.CustomResourceFeatureBindingSpec{Bindings: bindings}}
}

// installVendor creates the vendor's namespace and its Dynamic Features
// for gates, on by default, and waits until they are Enabled.
func installVendor(t *testing.T, client kubernetes.Interface, gates ...string) {
	t.Helper()
	ctx := context.Background()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: vendor}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, gate := range gates {
		name := featuresv1alpha1.FeatureName(gate)
		if _, err := client.FeaturesV1alpha1().Features(vendor).Create(ctx, &featuresv1alpha1.Feature{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: vendor},
			Spec: featuresv1alpha1.FeatureSpec{Gate: gate, Management: featuresv1alpha1.FeatureManagementDynamic,
				Declaration: &featuresv1alpha1.FeatureDeclaration{PreRelease: featuresv1alpha1.FeaturePreReleaseBeta, Default: true}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitForState(t, client, name, featuresv1alpha1.FeatureStateEnabled, time.Minute, nil)
	}
}

func vendorObject(kind, name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": kind,
		"metadata": map[string]interface{}{"name": name, "namespace": vendor}, "spec": spec}}
}

// create creates obj in the vendor's namespace; the first writes of a new
// resource may find it not yet served.
func create(dyn dynamic.Interface, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) error {
	var err error
	_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err = dyn.Resource(gvr).Namespace(vendor).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		return !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err), nil
	})
	return err
}

// createAll creates n objects, object(i), with 8 clients.
func createAll(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, n int, object func(i int) *unstructured.Unstructured) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if err := create(dyn, gvr, object(int(i))); err != nil {
					errs <- fmt.Errorf("creating %s: %w", object(int(i)).GetName(), err)
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
}

// admitted waits until admission refuses (or admits) obj in a dry run:
// the FeatureCustomFields plugin reads Features from its informer, which
// sees a state change a moment after the API does.
func admitted(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, refused bool) {
	t.Helper()
	var err error
	if werr := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err = dyn.Resource(gvr).Namespace(vendor).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsInvalid(err) == refused, nil
	}); werr != nil {
		t.Fatalf("admission of %s %s: want refused %t, last %v", obj.GetKind(), obj.GetName(), refused, err)
	}
}

// waitForState waits until the vendor's Feature name is in state (and
// holds, when not nil, says yes) and returns it; it fails the test after
// timeout.
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

// conditionsOf lists a Feature's conditions as type=status.
func conditionsOf(f *featuresv1alpha1.Feature) []string {
	var out []string
	for _, c := range f.Status.Conditions {
		out = append(out, c.Type+"="+string(c.Status))
	}
	return out
}
