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

	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

var widgetsResource = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func widgetObject(name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": name, "namespace": "default"}, "spec": spec}}
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

func TestCustomResourcesClearsFields(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{widgetsResource: "WidgetList"},
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
	task := CustomResources{
		CRD: crdbindings.CRD{Name: "widgets.example.com", Resource: widgetsResource, Kind: "Widget"},
		Bindings: []crdbindings.Binding{{Path: "spec.color", Feature: "widgets/colors"},
			{Path: "spec.size", Value: ptr.To("huge"), Feature: "widgets/colors"}},
	}
	if task.Name() != "clear-widgets-example-com" || !strings.Contains(task.Description(), `spec.color, spec.size "huge"`) {
		t.Errorf("name %q, description %q", task.Name(), task.Description())
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

func TestCustomResourcesWaitsForTheKind(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{widgetsResource: "WidgetList"},
		widgetObject("a", nil), widgetObject("b", nil))
	task := CustomResources{
		CRD:      crdbindings.CRD{Name: "widgets.example.com", Resource: widgetsResource, Kind: "Widget"},
		Bindings: []crdbindings.Binding{{Feature: "widgets/widgets"}},
	}
	if task.Name() != "wait-for-no-widgets-example-com" {
		t.Errorf("name %q", task.Name())
	}
	env := Env{Dynamic: client}
	out, err := task.Step(context.Background(), env, &featuresv1alpha1.Feature{}, Status(task), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if out.Done || out.Message != "2 widgets.example.com left: delete them to turn the feature off: default/a, default/b" || out.RequeueAfter != AbsenceRecheckInterval {
		t.Fatalf("with two objects: %+v", out)
	}
	for _, name := range []string{"a", "b"} {
		if err := client.Resource(widgetsResource).Namespace("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	status := Status(task)
	status.Checkpoint = out.Checkpoint
	out, err = task.Step(context.Background(), env, &featuresv1alpha1.Feature{}, status, time.Now())
	if err != nil || !out.Done || out.Message != "no widgets.example.com is left" {
		t.Fatalf("with none left: %+v %v", out, err)
	}
}
