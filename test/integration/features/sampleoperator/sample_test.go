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

package sampleoperator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/sample-feature-controller/artifacts"
	"k8s.io/sample-feature-controller/pkg/controller"
	"k8s.io/sample-feature-controller/pkg/features"
	"k8s.io/sample-feature-controller/pkg/operator"

	"k8s.io/kubernetes/test/integration/features/harness"
)

const (
	namespace = "sample-feature-system"
	widgets   = 100
)

// manifests reads the sample's manifests matching pattern, in file order.
func manifests(t *testing.T, pattern string) []*unstructured.Unstructured {
	t.Helper()
	files, err := fs.Glob(artifacts.Manifests, pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("the sample's manifests %s: %v", pattern, err)
	}
	var out []*unstructured.Unstructured
	for _, file := range files {
		data, err := fs.ReadFile(artifacts.Manifests, file)
		if err != nil {
			t.Fatal(err)
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(obj.Object) > 0 {
				out = append(out, obj)
			}
		}
	}
	return out
}

// applier creates manifests through the API, as kubectl apply -f does.
type applier struct {
	t      *testing.T
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// create creates obj, waiting up to a minute for its resource to be
// served; a CustomResourceDefinition it waits for until it is established.
// A failure names the last answer, and whether discovery knew the kind.
func (a *applier) create(obj *unstructured.Unstructured) error {
	a.t.Helper()
	const timeout = time.Minute
	gvk := obj.GroupVersionKind()
	var mapping *meta.RESTMapping
	var err error
	polled := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if mapping, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			a.mapper.Reset()
			return false, nil
		}
		var client dynamic.ResourceInterface = a.dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			client = a.dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
		}
		// A request cut by the poll's deadline leaves the answer before it.
		_, created := client.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		if ctx.Err() != nil {
			return false, nil
		}
		err = created
		return !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err), nil
	})
	if polled != nil {
		if err == nil {
			err = polled
		}
		return fmt.Errorf("%s %s not created in %v (discovery knew the kind: %t): %w", gvk.Kind, obj.GetName(), timeout, mapping != nil, err)
	}
	if err != nil || gvk.Kind != "CustomResourceDefinition" {
		return err
	}
	crds := a.dyn.Resource(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))
	return wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		crd, err := crds.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, c := range conditions {
			if c, ok := c.(map[string]interface{}); ok && c["type"] == string(apiextensionsv1.Established) && c["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}

// TestSampleOperator installs the sample operator from its manifests
// (its Features, CRDs and Role; the operator itself runs in the test, as
// its service account) and takes its two gates through on, use, off and
// on again. WidgetColors: the operator copies each Widget's color into the
// Widget's ConfigMap; turned off, kube-apiserver clears spec.color and the
// size Huge from every stored Widget (etcd, read directly, holds none),
// then the operator's own task removes the colors from its ConfigMaps and
// the Feature is Disabled; new colors are dropped with a warning. Gadgets: off
// by default, no Gadget can be created; turned on, the operator serves
// them; turned off, the Feature holds Disabling naming the Gadget left
// until it is deleted. A tenant of another namespace can write neither the
// sample's reports nor its Features' status.
func TestSampleOperator(t *testing.T) {
	ctx := context.Background()
	prefix := harness.SharedEtcd().Prefix
	apiserver := harness.StartAPIServerProcess(t, "apiserver", prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	cfg := apiserver.ClientConfig()
	var seen bytes.Buffer
	cfg.WarningHandler = restclient.NewWarningWriter(&seen, restclient.WarningWriterOptions{})
	admin := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	apply := &applier{t: t, dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(admin.Discovery()))}

	// Install: everything but the Deployment, the operator runs here.
	for _, obj := range manifests(t, "install/*.yaml") {
		if obj.GetKind() == "Deployment" {
			continue
		}
		if err := apply.create(obj); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	if w := seen.String(); w != "" {
		t.Errorf("warnings installing the sample: %s", w)
	}
	operatorCfg := restclient.CopyConfig(apiserver.ClientConfig())
	operatorCfg.Impersonate = restclient.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":" + controller.Component,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	running, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- operator.Run(running, operatorCfg, features.NewGate(), operator.Options{
			Namespace: namespace, Identity: "pod-0", Workers: 2, Resync: 30 * time.Second})
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the operator: %v", err)
		}
	}()

	feature := func(name string) *featuresv1alpha1.Feature {
		f, err := admin.FeaturesV1alpha1().Features(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return f
	}
	// waitFor logs how long each wait took, so that a slow machine shows
	// where its time went.
	waitFor := func(what string, timeout time.Duration, cond func() bool) {
		t.Helper()
		defer func(start time.Time) { t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond)) }(time.Now())
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
			select {
			case err := <-done:
				return false, fmt.Errorf("the operator stopped: %w", err)
			default:
			}
			return cond(), nil
		}); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	inState := func(name string, state featuresv1alpha1.FeatureState) func() bool {
		return func() bool { f := feature(name); return f != nil && f.Status.State == state }
	}
	setDesired := func(name string, state featuresv1alpha1.FeatureDesiredState) {
		t.Helper()
		if _, err := admin.FeaturesV1alpha1().Features(namespace).Patch(ctx, name, types.MergePatchType,
			fmt.Appendf(nil, `{"spec":{"desiredState":%q}}`, state), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	configMaps := func() map[string]map[string]string {
		list, err := admin.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{
			LabelSelector: labels.SelectorFromSet(labels.Set{controller.ManagedByLabel: controller.Component}).String()})
		if err != nil {
			return nil
		}
		out := map[string]map[string]string{}
		for _, cm := range list.Items {
			out[cm.Name] = cm.Data
		}
		return out
	}
	uses := func(name string, enabled bool) func() bool {
		return func() bool {
			f := feature(name)
			return f != nil && slices.ContainsFunc(f.Status.Uses, func(u featuresv1alpha1.FeatureUse) bool {
				return u.Component == controller.Component && u.Enabled == enabled && slices.Contains(u.Reporters, "pod-0")
			})
		}
	}

	// Enabled: the declared defaults; the operator copies the colors.
	waitFor("widget-colors Enabled", time.Minute, inState("widget-colors", featuresv1alpha1.FeatureStateEnabled))
	waitFor("gadgets Disabled", time.Minute, inState("gadgets", featuresv1alpha1.FeatureStateDisabled))
	example := manifests(t, "examples/widget.yaml")[0]
	if err := apply.create(example); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < widgets; i++ {
		w := example.DeepCopy()
		w.SetName(fmt.Sprintf("widget-%d", i))
		if err := unstructured.SetNestedField(w.Object, "Small", "spec", "size"); err != nil {
			t.Fatal(err)
		}
		if err := apply.create(w); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("the operator's ConfigMaps with the colors", time.Minute, func() bool {
		cms := configMaps()
		return len(cms) == widgets && cms["widget-example-widget"]["color"] == "red" && cms["widget-widget-1"]["color"] == "red"
	})
	waitFor("the operator's report of WidgetColors on", time.Minute, uses("widget-colors", true))

	// Disabled: kube-apiserver clears the Widgets, then the operator its
	// ConfigMaps, then the Feature is Disabled.
	asked := time.Now()
	setDesired("widget-colors", featuresv1alpha1.FeatureDesiredStateDisabled)
	var tasks []string
	waitFor("widget-colors Disabled", 3*time.Minute, func() bool {
		f := feature("widget-colors")
		if f == nil {
			return false
		}
		for _, task := range f.Status.Tasks {
			if name := task.Name + " by " + task.Owner; !slices.Contains(tasks, name) {
				tasks = append(tasks, name)
			}
		}
		return f.Status.State == featuresv1alpha1.FeatureStateDisabled
	})
	t.Logf("widget-colors Disabled %.1fs after it was asked Disabled, with %d Widgets and their ConfigMaps cleared; tasks seen: %v", time.Since(asked).Seconds(), widgets, tasks)
	if want := controller.ForgetColorsTask + " by " + controller.Component; !slices.Contains(tasks, want) {
		t.Errorf("the tasks seen while widget-colors turned off: %v, want %q among them", tasks, want)
	}
	for name, spec := range harness.StoredSpecs(t, prefix, controller.Group, "widgets", namespace) {
		if _, ok := spec["color"]; ok || spec["size"] == "Huge" {
			t.Errorf("etcd still holds widget %s with %v", name, spec)
		}
	}
	for name, data := range configMaps() {
		if _, ok := data["color"]; ok {
			t.Errorf("ConfigMap %s still holds a color: %v", name, data)
		}
	}
	events, err := admin.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.name", "widget-colors"), fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
	if err != nil {
		t.Fatal(err)
	}
	var completed []string
	for _, e := range events.Items {
		completed = append(completed, e.Message)
	}
	for _, want := range []string{
		fmt.Sprintf("task clear-widgets-samplefeature-example-com: %d widgets.samplefeature.example.com cleared", widgets),
		fmt.Sprintf("task forget-colors: completed by %s: %d ConfigMaps of Widgets hold no color", controller.Component, widgets),
	} {
		if !slices.ContainsFunc(completed, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("TaskCompleted events of widget-colors: %q, want %q", completed, want)
		}
	}
	waitFor("the operator's report of WidgetColors off", time.Minute, uses("widget-colors", false))

	// A new color is dropped with a warning; the operator copies none.
	seen.Reset()
	late := example.DeepCopy()
	late.SetName("late")
	unstructured.RemoveNestedField(late.Object, "spec", "size")
	if err := apply.create(late); err != nil {
		t.Fatal(err)
	}
	if w, want := strings.TrimSpace(seen.String()), "Warning: spec.color was dropped: feature sample-feature-system/widget-colors is Disabled"; w != want {
		t.Errorf("warnings creating a Widget with a color while widget-colors is Disabled: %q, want %q", w, want)
	}
	waitFor("the late Widget's ConfigMap", 30*time.Second, func() bool {
		data, ok := configMaps()["widget-late"]
		return ok && data["color"] == ""
	})

	// Gadgets: off by default, no Gadget can be created.
	gadget := manifests(t, "examples/gadget.yaml")[0]
	err = apply.create(gadget)
	if want := "kind: Forbidden: Gadget cannot be created: feature sample-feature-system/gadgets is Disabled"; !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("creating a Gadget with gadgets Disabled: want 422 with %q, got %v", want, err)
	}
	setDesired("gadgets", featuresv1alpha1.FeatureDesiredStateEnabled)
	waitFor("gadgets Enabled", time.Minute, inState("gadgets", featuresv1alpha1.FeatureStateEnabled))
	if err := apply.create(gadget); err != nil {
		t.Fatal(err)
	}
	waitFor("the Gadget's ConfigMap", time.Minute, func() bool { return configMaps()["gadget-example-gadget"]["parts"] == "3" })
	setDesired("gadgets", featuresv1alpha1.FeatureDesiredStateDisabled)
	const named = "1 gadgets.samplefeature.example.com left: delete them to turn the feature off: sample-feature-system/example-gadget"
	waitFor("gadgets Disabling naming the Gadget left", time.Minute, func() bool {
		f := feature("gadgets")
		return f != nil && f.Status.State == featuresv1alpha1.FeatureStateDisabling && len(f.Status.Tasks) > 0 && f.Status.Tasks[0].Message == named
	})
	gadgets := dyn.Resource(controller.GadgetsResource).Namespace(namespace)
	if _, err := gadgets.Get(ctx, gadget.GetName(), metav1.GetOptions{}); err != nil {
		t.Errorf("reading the Gadget while gadgets turns off: %v", err)
	}
	if err := gadgets.Delete(ctx, gadget.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("gadgets Disabled", time.Minute, inState("gadgets", featuresv1alpha1.FeatureStateDisabled))

	// On again: colors are stored and copied again.
	setDesired("widget-colors", featuresv1alpha1.FeatureDesiredStateEnabled)
	waitFor("widget-colors Enabled again", time.Minute, inState("widget-colors", featuresv1alpha1.FeatureStateEnabled))
	again := example.DeepCopy()
	again.SetName("again")
	if err := apply.create(again); err != nil {
		t.Fatal(err)
	}
	waitFor("the color copied again", time.Minute, func() bool { return configMaps()["widget-again"]["color"] == "red" })
	if spec := harness.StoredSpecs(t, prefix, controller.Group, "widgets", namespace)["again"]; spec["color"] != "red" || spec["size"] != "Huge" {
		t.Errorf("etcd holds the Widget again as %v", spec)
	}

	// A tenant of another namespace, with the sample's own Role in its
	// namespace, writes neither the sample's reports nor its status.
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant-system"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, obj := range manifests(t, "install/04-rbac.yaml") {
		obj.SetNamespace("tenant-system")
		if subjects, ok, _ := unstructured.NestedSlice(obj.Object, "subjects"); ok {
			subjects[0].(map[string]interface{})["namespace"] = "tenant-system"
			_ = unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
		}
		if err := apply.create(obj); err != nil {
			t.Fatal(err)
		}
	}
	tenantCfg := restclient.CopyConfig(apiserver.ClientConfig())
	tenantCfg.Impersonate = restclient.ImpersonationConfig{UserName: "system:serviceaccount:tenant-system:" + controller.Component,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:tenant-system", "system:authenticated"}}
	tenant := kubernetes.NewForConfigOrDie(tenantCfg)
	_, err = tenant.FeaturesV1alpha1().FeatureReports(namespace).Create(ctx, &featuresv1alpha1.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: controller.Component + ".intruder", Namespace: namespace},
		Spec:       featuresv1alpha1.FeatureReportSpec{Component: controller.Component, Identity: "intruder"},
	}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("a tenant writing the sample's report: want 403, got %v", err)
	}
	f := feature("widget-colors")
	f.Status.Tasks = append(f.Status.Tasks, featuresv1alpha1.FeatureTask{Name: controller.ForgetColorsTask, Owner: controller.Component, Done: true})
	if _, err := tenant.FeaturesV1alpha1().Features(namespace).UpdateStatus(ctx, f, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a tenant writing the sample's Feature status: want 403, got %v", err)
	}
}
