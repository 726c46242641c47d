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

package migration

import (
	"context"
	"fmt"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
)

// The third party of the custom resources benchmark: its namespace, its
// Feature and the task that clears its Widgets.
const (
	benchVendor        = "bench-vendor"
	benchVendorFeature = "widget-colors"
	benchVendorTask    = "clear-widgets-example-com"
)

var benchWidgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// customResources clears spec.color from c.n Widgets, as many as ours
// clears StatefulSets: the vendor's Feature widget-colors, declared Dynamic
// in its namespace and bound to spec.color by the Widget CRD, asked Disabled;
// from the status write that makes the clearing task active until the one
// that removes it, as seen by a watch. An iteration after the first turns
// the Feature Enabled again and sets the color again first.
func (c *benchCluster) customResources(b *testing.B) {
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(c.apiserver.ClientConfig())
	widgets := dyn.Resource(benchWidgets).Namespace(benchVendor)
	features := c.features.FeaturesV1alpha1().Features(benchVendor)
	setDesired := func(state featuresv1alpha1.FeatureDesiredState) {
		if _, err := features.Patch(ctx, benchVendorFeature, types.MergePatchType,
			fmt.Appendf(nil, `{"spec":{"desiredState":%q}}`, state), metav1.PatchOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	c.installVendor(b)
	c.waitForVendorState(b, featuresv1alpha1.FeatureStateEnabled)
	colored := func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]interface{}{"name": fmt.Sprintf("widget-%05d", i), "namespace": benchVendor},
			"spec":     map[string]interface{}{"color": "red"}}}
	}
	start := time.Now()
	benchParallel(b, c.n, func(i int) error {
		_, err := widgets.Create(ctx, colored(i), metav1.CreateOptions{})
		return err
	})
	b.Logf("setup: created %d Widgets with spec.color in %.1fs with %d clients", c.n, time.Since(start).Seconds(), benchCreators)

	var elapsed time.Duration
	for i := range b.N {
		if i > 0 {
			setDesired(featuresv1alpha1.FeatureDesiredStateEnabled)
			c.waitForVendorState(b, featuresv1alpha1.FeatureStateEnabled)
			benchParallel(b, c.n, func(i int) error {
				_, err := widgets.Patch(ctx, colored(i).GetName(), types.MergePatchType, []byte(`{"spec":{"color":"red"}}`), metav1.PatchOptions{})
				return err
			})
		}
		w := benchWatchFeature(b, c.features, benchVendor, benchVendorFeature)
		setDesired(featuresv1alpha1.FeatureDesiredStateDisabled)
		c.waitForVendorState(b, featuresv1alpha1.FeatureStateDisabled)
		w.stop()
		active, _, done, err := w.taskTimes(benchVendorTask)
		if err != nil {
			b.Fatal(err)
		}
		elapsed += done.Sub(active)
		left := 0
		list, err := widgets.List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range list.Items {
			if _, ok, _ := unstructured.NestedString(w.Object, "spec", "color"); ok {
				left++
			}
		}
		if len(list.Items) != c.n || left != 0 {
			b.Fatalf("after the task: %d of %d Widgets still have spec.color, want 0 of %d", left, len(list.Items), c.n)
		}
	}
	benchReport(b, c.n, elapsed)
	rate := float64(c.n) * float64(b.N) / elapsed.Seconds()
	if c.oursRate > 0 {
		b.ReportMetric(rate/c.oursRate, "customresources/builtin")
	}
	b.Logf("customresources: %d Widgets cleared %d time(s) in %.2fs: %.0f objects/s, built-in StatefulSets %.0f objects/s",
		c.n, b.N, elapsed.Seconds(), rate, c.oursRate)
}

// installVendor creates the vendor's namespace, its Feature widget-colors
// and the Widget CRD that binds spec.color to it, once.
func (c *benchCluster) installVendor(b *testing.B) {
	ctx := context.Background()
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchVendor}}, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		return
	} else if err != nil {
		b.Fatal(err)
	}
	if _, err := c.features.FeaturesV1alpha1().Features(benchVendor).Create(ctx, &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: benchVendorFeature, Namespace: benchVendor},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "WidgetColors", Management: featuresv1alpha1.FeatureManagementDynamic,
			Declaration: &featuresv1alpha1.FeatureDeclaration{PreRelease: featuresv1alpha1.FeaturePreReleaseBeta, Default: true}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	crds := apiextensionsclient.NewForConfigOrDie(c.apiserver.ClientConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", Annotations: map[string]string{
			crdbindings.Annotation: `[{"path": "spec.color", "feature": "` + benchVendor + `/` + benchVendorFeature + `"}]`}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"color": {Type: "string"}}},
					}}}}},
		},
	}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	// Served: a list answers.
	dyn := dynamic.NewForConfigOrDie(c.apiserver.ClientConfig())
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(benchWidgets).Namespace(benchVendor).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	}); err != nil {
		b.Fatalf("%s not served: %v", crd.Name, err)
	}
}

// waitForVendorState waits until the vendor's Feature is in state with no
// task left.
func (c *benchCluster) waitForVendorState(b *testing.B, state featuresv1alpha1.FeatureState) {
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		f, err = c.features.FeaturesV1alpha1().Features(benchVendor).Get(ctx, benchVendorFeature, metav1.GetOptions{})
		return err == nil && f.Status.State == state && len(f.Status.Tasks) == 0, nil
	})
	if err != nil {
		b.Fatalf("%s/%s did not reach %s: %v; %+v", benchVendor, benchVendorFeature, state, err, f)
	}
}
