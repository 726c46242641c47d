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

package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// checkControls checks, once the gates are Disabled, that the control objects
// of the fixtures survive untouched (etcd, before the gates went off and
// now: stored, holds the same object; what kube-apiserver wrote into them
// with the gate on, where the inventory says it needs no task, stays) and
// stay writable with the gates off.
func checkControls(ctx context.Context, t *testing.T, res *results, dyn dynamic.Interface, mapper meta.RESTMapper, gates []featuregate.Feature, fixtures map[featuregate.Feature][]*unstructured.Unstructured, backup, stored []storedObject) {
	for _, g := range gates {
		for _, obj := range fixtures[g] {
			if !IsControl(obj) {
				continue
			}
			gvr, _, err := resourceOf(mapper, obj)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := get(ctx, dyn, mapper, obj); err != nil {
				// A task of another gate turned off with it may hold the
				// object (MatchLabelKeysInPodTopologySpread's pods with
				// matchLabelKeys): deleted as that Feature asked.
				if other, ok := heldByAnother(g, gates, gvr.GroupResource(), storedAs(backup, gvr.GroupResource(), obj)); ok && apierrors.IsNotFound(err) {
					t.Logf("%s: control object %s %s/%s was deleted as %s asked", g, obj.GetKind(), obj.GetNamespace(), obj.GetName(), other)
					continue
				}
				res.fail(t, g, "%s: control object %s %s/%s: %v", g, obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				continue
			}
			if before, after := storedAs(backup, gvr.GroupResource(), obj), storedAs(stored, gvr.GroupResource(), obj); before != nil && !apiequality.Semantic.DeepEqual(before, after) {
				res.fail(t, g, "%s: control object %s %s/%s changed in etcd while the gate went off:\nbefore: %+v\nafter: %+v", g, obj.GetKind(), obj.GetNamespace(), obj.GetName(), before, after)
			}
			client, err := resourceClient(dyn, mapper, obj)
			if err == nil {
				_, err = client.Patch(ctx, obj.GetName(), types.MergePatchType, []byte(`{"metadata":{"labels":{"lifecycle.features.k8s.io/written-while-off":"true"}}}`), metav1.PatchOptions{})
			}
			if err != nil {
				res.fail(t, g, "%s: control object %s %s/%s is not writable with the gate off: %v", g, obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				continue
			}
			t.Logf("%s: control object %s %s/%s: etcd holds it as it was with the gate on, and it was updated with the gate off", g, obj.GetKind(), obj.GetNamespace(), obj.GetName())
		}
	}
}

// heldByAnother returns a gate of gates other than g one of whose tasks
// holds obj, an object of gr.
func heldByAnother(g featuregate.Feature, gates []featuregate.Feature, gr schema.GroupResource, obj runtime.Object) (featuregate.Feature, bool) {
	if obj == nil {
		return "", false
	}
	for _, o := range gates {
		if o == g {
			continue
		}
		for _, task := range registry[o].OnDisable {
			if in, ok := task.(tasks.Inspector); ok && slices.Contains(in.Resources(), gr) && holds(o, task.Name(), in, obj) {
				return o, true
			}
		}
	}
	return "", false
}

// storedAs returns the object of gr named as obj (a fixture object) in
// stored, with no resource version, or nil.
func storedAs(stored []storedObject, gr schema.GroupResource, obj *unstructured.Unstructured) runtime.Object {
	for _, s := range stored {
		m, err := meta.Accessor(s.obj)
		if err != nil || s.resource != gr || m.GetName() != obj.GetName() || m.GetNamespace() != obj.GetNamespace() {
			continue
		}
		out := s.obj.DeepCopyObject()
		if m, err := meta.Accessor(out); err == nil {
			m.SetResourceVersion("")
		}
		return out
	}
	return nil
}

// holds reports whether in, the task named task of gate g, holds obj: a
// task that runs the resource's validation (lifecycle.ValidatesWithGateOff)
// with g off in this process, as it runs in kube-apiserver during the
// transition.
func holds(g featuregate.Feature, task string, in tasks.Inspector, obj runtime.Object) bool {
	if !lifecycle.ValidatesWithGateOff(task) {
		return in.Holds(obj)
	}
	var h bool
	withGateOff(g, func() { h = in.Holds(obj) })
	return h
}

// withGateOff runs f with g and the gates that depend on it off in this
// process's feature gate, and sets them back. The harness's tests do not
// run in parallel.
func withGateOff(g featuregate.Feature, f func()) {
	gate := utilfeature.DefaultFeatureGate.(featuregate.MutableVersionedFeatureGate)
	known := gate.GetAll()
	before, off := map[string]bool{}, map[string]bool{}
	for _, d := range append(Dependents(gate, g), g) {
		if spec, ok := known[d]; ok && !spec.LockToDefault {
			before[string(d)], off[string(d)] = gate.Enabled(d), false
		}
	}
	if err := gate.SetFromMap(off); err != nil {
		panic(fmt.Sprintf("turning %s off in the harness: %v", g, err))
	}
	defer func() {
		if err := gate.SetFromMap(before); err != nil {
			panic(fmt.Sprintf("setting %s back in the harness: %v", g, err))
		}
	}()
	f()
}
