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

package tasks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

var widgetsResource = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// widgetsCRD is the CRD of widgets.example.com as a dynamic client reads
// it: v1 served and stored, namespaced.
func widgetsCRD() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]interface{}{"name": "widgets.example.com"},
		"spec": map[string]interface{}{"group": "example.com", "scope": "Namespaced",
			"names":    map[string]interface{}{"plural": "widgets", "kind": "Widget"},
			"versions": []interface{}{map[string]interface{}{"name": "v1", "served": true, "storage": true}}},
	}}
}

func widgetObject(name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": name, "namespace": "default"}, "spec": spec}}
}

// widgetsClient is a fake dynamic client holding the CRD and objs.
func widgetsClient(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		widgetsResource: "WidgetList", crdResource: "CustomResourceDefinitionList"}, append([]runtime.Object{widgetsCRD()}, objs...)...)
}

// runToDone steps task until it is done, at most 10 steps, and returns
// the outcomes.
func runToDone(t *testing.T, task Task, env Env) []Outcome {
	t.Helper()
	status := Status(task)
	var outs []Outcome
	for range 10 {
		out, err := task.Step(context.Background(), env, &featuresv1alpha1.Feature{}, status, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
		if out.Done {
			return outs
		}
		status.Checkpoint, status.Message, status.Progress = out.Checkpoint, out.Message, out.Progress
	}
	t.Fatalf("not done after 10 steps: %+v", outs[len(outs)-1])
	return nil
}

var (
	colors     = featuresv1alpha1.FeatureReference{Namespace: "widgets", Name: "colors"}
	colorField = featuresv1alpha1.CustomResourceFieldBinding{Name: "color", Path: "spec.color", Feature: colors,
		WhenOff: featuresv1alpha1.CustomResourceWhenOffDrop, WhenStored: featuresv1alpha1.CustomResourceWhenStoredClear}
	hugeCleared = featuresv1alpha1.CustomResourceFieldBinding{Name: "huge", Path: "spec.size", Value: ptr.To("huge"), Feature: colors,
		WhenOff: featuresv1alpha1.CustomResourceWhenOffRefuse, WhenStored: featuresv1alpha1.CustomResourceWhenStoredClear}
	hugeHeld = featuresv1alpha1.CustomResourceFieldBinding{Name: "huge", Path: "spec.size", Value: ptr.To("huge"), Feature: colors,
		WhenOff: featuresv1alpha1.CustomResourceWhenOffRefuse, WhenStored: featuresv1alpha1.CustomResourceWhenStoredHold}
	widgetKind = featuresv1alpha1.CustomResourceFieldBinding{Name: "kind", Feature: colors,
		WhenOff: featuresv1alpha1.CustomResourceWhenOffRefuse, WhenStored: featuresv1alpha1.CustomResourceWhenStoredHold}
)

func TestCustomResourceTasks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bindings []featuresv1alpha1.CustomResourceFieldBinding
		want     []string // name: bindings
	}{
		{"cleared", []featuresv1alpha1.CustomResourceFieldBinding{colorField, hugeCleared}, []string{"clear-widgets-example-com: color,huge"}},
		{"held", []featuresv1alpha1.CustomResourceFieldBinding{hugeHeld}, []string{"wait-for-no-widgets-example-com: huge"}},
		{"cleared, then held", []featuresv1alpha1.CustomResourceFieldBinding{hugeHeld, colorField, widgetKind},
			[]string{"clear-widgets-example-com: color", "wait-for-no-widgets-example-com: huge,kind"}},
		{"none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, task := range CustomResourceTasks("widgets.example.com", tc.bindings) {
				var names []string
				for _, b := range task.(CustomResources).Bindings {
					names = append(names, b.Name)
				}
				got = append(got, task.Name()+": "+strings.Join(names, ","))
				if !IsCustomResourcesTaskName(task.Name()) {
					t.Errorf("IsCustomResourcesTaskName(%s) is false", task.Name())
				}
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("tasks %q, want %q", got, tc.want)
			}
		})
	}
	if got := CustomResourcesTaskName("a-very-long-plural-name-of-a-custom-resource.with-a-long.example.com", true); len(got) > maxTaskName || strings.HasSuffix(got, "-") {
		t.Errorf("a long name is not cut to a DNS label: %q", got)
	}
}

func TestCustomResourcesClearsFields(t *testing.T) {
	client := widgetsClient(
		widgetObject("red", map[string]interface{}{"color": "red", "size": "small"}),
		widgetObject("huge", map[string]interface{}{"size": "huge"}),
		widgetObject("plain", map[string]interface{}{"size": "small"}))
	// The first update of "red" conflicts, as a client's concurrent write
	// would make it.
	conflicted := false
	client.PrependReactor("update", "widgets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if u := a.(clienttesting.UpdateAction).GetObject().(*unstructured.Unstructured); u.GetName() == "red" && !conflicted {
			conflicted = true
			return true, nil, apierrors.NewConflict(widgetsResource.GroupResource(), "red", fmt.Errorf("the object has been modified"))
		}
		return false, nil, nil
	})
	task := CustomResourceTasks("widgets.example.com", []featuresv1alpha1.CustomResourceFieldBinding{colorField, hugeCleared})[0]
	if !strings.Contains(task.Description(), `holds spec.color or spec.size "huge" without it`) {
		t.Errorf("description %q", task.Description())
	}
	outs := runToDone(t, task, Env{Dynamic: client, Migration: migrator.Options{QPS: -1}})
	// One pass clears two, the second finds nothing left.
	if len(outs) != 2 || outs[0].Progress != "pass 1: 3 widgets.example.com read, 2 cleared" ||
		outs[1].Message != "2 widgets.example.com cleared; a last pass over 3 found nothing left" {
		t.Errorf("outcomes %+v", outs)
	}
	if !conflicted {
		t.Error("no conflict was injected")
	}
	for name, want := range map[string]map[string]interface{}{
		"red": {"size": "small"}, "huge": {}, "plain": {"size": "small"},
	} {
		u, err := client.Resource(widgetsResource).Namespace("default").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		spec, _, _ := unstructured.NestedMap(u.Object, "spec")
		if fmt.Sprint(spec) != fmt.Sprint(want) {
			t.Errorf("%s: spec %v, want %v", name, spec, want)
		}
	}
}

// step runs one step of task with the checkpoint of the previous outcome.
func step(t *testing.T, task Task, env Env, prev Outcome) Outcome {
	t.Helper()
	status := Status(task)
	status.Checkpoint = prev.Checkpoint
	out, err := task.Step(context.Background(), env, &featuresv1alpha1.Feature{}, status, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCustomResourcesHoldsValues(t *testing.T) {
	var objs []runtime.Object
	for i := range 12 {
		objs = append(objs, widgetObject(fmt.Sprintf("huge-%02d", i), map[string]interface{}{"size": "huge"}))
	}
	objs = append(objs, widgetObject("small", map[string]interface{}{"size": "small"}))
	client := widgetsClient(objs...)
	task := CustomResourceTasks("widgets.example.com", []featuresv1alpha1.CustomResourceFieldBinding{hugeHeld})[0]
	env := Env{Dynamic: client}
	out := step(t, task, env, Outcome{})
	const want = `12 widgets.example.com in 1 namespace hold spec.size "huge": change or delete them to turn the feature off: ` +
		"default/huge-00, default/huge-01, default/huge-02, default/huge-03, default/huge-04, default/huge-05, default/huge-06, default/huge-07, default/huge-08, default/huge-09, ..."
	if out.Done || out.Message != want || out.RequeueAfter != AbsenceRecheckInterval {
		t.Fatalf("with 12 objects holding the value: %+v\nwant message %q", out, want)
	}
	// Nothing was changed.
	for _, a := range client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" {
			t.Errorf("the task wrote: %v", a)
		}
	}
	// Their owners change or delete them all but one.
	for i := range 11 {
		name := fmt.Sprintf("huge-%02d", i)
		if i%2 == 0 {
			if err := client.Resource(widgetsResource).Namespace("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := client.Resource(widgetsResource).Namespace("default").Update(context.Background(),
			widgetObject(name, map[string]interface{}{"size": "small"}), metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out = step(t, task, env, out)
	if out.Done || !strings.HasPrefix(out.Message, `1 widgets.example.com in 1 namespace holds spec.size "huge": change or delete it to turn the feature off: default/huge-11`) {
		t.Fatalf("with one left: %+v", out)
	}
	if err := client.Resource(widgetsResource).Namespace("default").Delete(context.Background(), "huge-11", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out = step(t, task, env, out)
	if !out.Done || out.Message != `no stored widgets.example.com holds spec.size "huge"` {
		t.Fatalf("with none left: %+v", out)
	}
}

func TestCustomResourcesWaitsForTheKind(t *testing.T) {
	client := widgetsClient(widgetObject("a", nil), widgetObject("b", nil))
	task := CustomResourceTasks("widgets.example.com", []featuresv1alpha1.CustomResourceFieldBinding{widgetKind})[0]
	if task.Name() != "wait-for-no-widgets-example-com" {
		t.Errorf("name %q", task.Name())
	}
	env := Env{Dynamic: client}
	out := step(t, task, env, Outcome{})
	if out.Done || out.Message != "2 widgets.example.com in 1 namespace are left: delete them to turn the feature off: default/a, default/b" || out.RequeueAfter != AbsenceRecheckInterval {
		t.Fatalf("with two objects: %+v", out)
	}
	for _, name := range []string{"a", "b"} {
		if err := client.Resource(widgetsResource).Namespace("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if out = step(t, task, env, out); !out.Done || out.Message != "no widgets.example.com is left" {
		t.Fatalf("with none left: %+v", out)
	}
}

func TestCustomResourcesOfAGoneCRD(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		widgetsResource: "WidgetList", crdResource: "CustomResourceDefinitionList"})
	for _, task := range CustomResourceTasks("widgets.example.com", []featuresv1alpha1.CustomResourceFieldBinding{colorField, widgetKind}) {
		if out := step(t, task, Env{Dynamic: client}, Outcome{}); !out.Done || !strings.Contains(out.Message, "does not exist: nothing is stored") {
			t.Errorf("%s of a CRD that does not exist: %+v", task.Name(), out)
		}
	}
}
