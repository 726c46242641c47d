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

package controller

import (
	"context"
	"maps"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/featuregate"

	"k8s.io/sample-feature-controller/pkg/features"
)

const namespace = "sample-feature-system"

func object(kind, name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": Group + "/v1alpha1", "kind": kind,
		"metadata": map[string]interface{}{"name": name, "namespace": namespace, "uid": kind + "-" + name},
		"spec":     spec,
	}}
}

// fixture is a controller on fake clients whose informers run until the
// test ends.
type fixture struct {
	t          *testing.T
	controller *Controller
	client     *fake.Clientset
	// gate is the controller's own gate (not a global one), which the
	// test turns gates of on and off.
	gate interface {
		SetFromMap(map[string]bool) error
	}
}

func newFixture(t *testing.T, kubeObjects []runtime.Object, crs ...runtime.Object) *fixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gate := features.NewGate()
	client := fake.NewClientset(kubeObjects...)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{WidgetsResource: "WidgetList", GadgetsResource: "GadgetList"}, crs...)
	kubeInformers := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	crInformers := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, namespace, nil)
	c, err := New(ctx, namespace, gate, client, kubeInformers, crInformers)
	if err != nil {
		t.Fatal(err)
	}
	kubeInformers.Start(ctx.Done())
	crInformers.Start(ctx.Done())
	for _, synced := range c.synced {
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) { return synced(), nil }); err != nil {
			t.Fatal("informers did not sync")
		}
	}
	return &fixture{t: t, controller: c, client: client, gate: gate}
}

// configMap waits until the controller's lister holds the ConfigMap name
// with data (nil: no ConfigMap), so that the next sync sees it.
func (f *fixture) configMap(name string, data map[string]string) {
	f.t.Helper()
	var got *corev1.ConfigMap
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		var err error
		got, err = f.controller.configMaps.Get(name)
		if apierrors.IsNotFound(err) {
			return data == nil, nil
		}
		return err == nil && data != nil && maps.Equal(got.Data, data), nil
	})
	if err != nil {
		f.t.Fatalf("ConfigMap %s: want data %v, got %v", name, data, got)
	}
}

func (f *fixture) set(gate featuregate.Feature, on bool) {
	f.t.Helper()
	if err := f.gate.SetFromMap(map[string]bool{string(gate): on}); err != nil {
		f.t.Fatal(err)
	}
}

func TestSyncWidgetFollowsWidgetColors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil, object("Widget", "w1", map[string]interface{}{"size": "Huge", "color": "red"}))

	if err := f.controller.syncWidget(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	f.configMap("widget-w1", map[string]string{"size": "Huge", "color": "red"})
	cm, _ := f.controller.configMaps.Get("widget-w1")
	if ref := metav1.GetControllerOf(cm); ref == nil || ref.Kind != "Widget" || ref.Name != "w1" || cm.Labels[KindLabel] != "Widget" {
		t.Errorf("the Widget's ConfigMap: controller %v, labels %v", ref, cm.Labels)
	}

	f.set(features.WidgetColors, false)
	if err := f.controller.syncWidget(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	f.configMap("widget-w1", map[string]string{"size": "Huge"})

	// A Widget that is gone: nothing to do.
	if err := f.controller.syncWidget(ctx, "gone"); err != nil {
		t.Errorf("syncing a Widget that is gone: %v", err)
	}
}

func TestSyncWidgetLeavesAConfigMapItDoesNotControl(t *testing.T) {
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "widget-w1", Namespace: namespace}, Data: map[string]string{"mine": "yes"}}
	f := newFixture(t, []runtime.Object{foreign}, object("Widget", "w1", map[string]interface{}{"size": "Small"}))
	if err := f.controller.syncWidget(context.Background(), "w1"); err != nil {
		t.Fatal(err)
	}
	got, err := f.client.CoreV1().ConfigMaps(namespace).Get(context.Background(), "widget-w1", metav1.GetOptions{})
	if err != nil || !maps.Equal(got.Data, foreign.Data) {
		t.Errorf("a ConfigMap the Widget does not control was changed: %v, %v", got, err)
	}
}

func TestSyncGadgetOnlyWhileGadgetsIsOn(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil, object("Gadget", "g1", map[string]interface{}{"parts": int64(3)}))
	if err := f.controller.syncGadget(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.CoreV1().ConfigMaps(namespace).Get(ctx, "gadget-g1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Gadget was synced with Gadgets off: %v", err)
	}
	f.set(features.Gadgets, true)
	if err := f.controller.syncGadget(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	f.configMap("gadget-g1", map[string]string{"parts": "3"})
}

func TestForgetColorsCompletesTheTask(t *testing.T) {
	ctx := context.Background()
	colored := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace,
			Labels: map[string]string{ManagedByLabel: Component, KindLabel: "Widget"}}, Data: map[string]string{"size": "Small", "color": "red"}}
	}
	feature := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-colors", Namespace: namespace},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: string(features.WidgetColors)},
		Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabling,
			Tasks: []featuresv1alpha1.FeatureTask{{Name: ForgetColorsTask, Owner: Component}}},
	}
	unrelated := colored("not-ours")
	unrelated.Labels = nil
	f := newFixture(t, []runtime.Object{colored("widget-a"), colored("widget-b"), unrelated, feature})

	// With the gate still on in this process, the task is not done: the
	// colors would come back.
	if err := f.controller.syncFeature(ctx, "widget-colors"); err == nil {
		t.Error("the task was run with WidgetColors on")
	}
	f.set(features.WidgetColors, false)
	if err := f.controller.syncFeature(ctx, "widget-colors"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"widget-a", "widget-b"} {
		f.configMap(name, map[string]string{"size": "Small"})
	}
	f.configMap("not-ours", map[string]string{"size": "Small", "color": "red"})
	got, err := f.client.FeaturesV1alpha1().Features(namespace).Get(ctx, "widget-colors", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if task := got.Status.Tasks[0]; !task.Done || task.Message != "2 ConfigMaps of Widgets hold no color (2 cleared by this task)" {
		t.Errorf("the task after the operator's sync: %+v", task)
	}
}

func TestSyncFeatureIgnoresTasksItDoesNotOwn(t *testing.T) {
	feature := &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-colors", Namespace: namespace},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: string(features.WidgetColors)},
		Status: featuresv1alpha1.FeatureStatus{Tasks: []featuresv1alpha1.FeatureTask{
			{Name: "clear-widgets", Owner: ""}, {Name: ForgetColorsTask, Owner: Component}}},
	}
	f := newFixture(t, []runtime.Object{feature})
	f.set(features.WidgetColors, false)
	if err := f.controller.syncFeature(context.Background(), "widget-colors"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.client.FeaturesV1alpha1().Features(namespace).Get(context.Background(), "widget-colors", metav1.GetOptions{})
	if got.Status.Tasks[1].Done {
		t.Error("the operator completed its task before kube-apiserver's own task ahead of it was done")
	}
}
