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

package features

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	registrypod "k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"

	"k8s.io/featureflags/pkg/featurelifecycle/migrator"
	"k8s.io/featureflags/pkg/featurelifecycle/tasks"
	lifecyclefixtures "k8s.io/featureflags/test/integration/features/lifecycle"
)

// kinds are the kinds fixtures may hold, with their resource and upstream's
// create strategy (PrepareForCreate drops disabled fields, Validate is the
// kind's validation). A fixture with another kind fails the test: add it.
var kinds = map[schema.GroupKind]struct {
	resource schema.GroupResource
	strategy rest.RESTCreateStrategy
}{
	api.Kind("Namespace"):             {api.Resource("namespaces"), namespace.Strategy},
	api.Kind("ServiceAccount"):        {api.Resource("serviceaccounts"), serviceaccount.Strategy},
	api.Kind("Pod"):                   {api.Resource("pods"), registrypod.Strategy},
	api.Kind("PodTemplate"):           {api.Resource("podtemplates"), podtemplate.Strategy},
	api.Kind("ReplicationController"): {api.Resource("replicationcontrollers"), replicationcontroller.Strategy},
	apps.Kind("DaemonSet"):            {apps.Resource("daemonsets"), daemonset.Strategy},
	apps.Kind("Deployment"):           {apps.Resource("deployments"), deployment.Strategy},
	apps.Kind("ReplicaSet"):           {apps.Resource("replicasets"), replicaset.Strategy},
	apps.Kind("StatefulSet"):          {apps.Resource("statefulsets"), statefulset.Strategy},
	batch.Kind("CronJob"):             {batch.Resource("cronjobs"), cronjob.Strategy},
	batch.Kind("Job"):                 {batch.Resource("jobs"), job.Strategy},
}

// inspectors returns the tasks of a lifecycle a harness can check objects
// with.
func inspectors(lc Lifecycle) map[string]tasks.Inspector {
	out := map[string]tasks.Inspector{}
	for _, list := range [][]tasks.Task{lc.OnEnable, lc.OnDisable} {
		for _, t := range list {
			if in, ok := t.(tasks.Inspector); ok {
				out[t.Name()] = in
			}
		}
	}
	return out
}

// create runs obj (decoded into its internal version, defaulted with the
// gates as they are) through its kind's create strategy as kube-apiserver
// does, without admission: it returns the object as it would be stored.
func create(obj *unstructured.Unstructured) (runtime.Object, schema.GroupResource, error) {
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	internal, gvk, err := legacyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	kind, ok := kinds[gvk.GroupKind()]
	if !ok {
		return nil, schema.GroupResource{}, fmt.Errorf("kind %s: add it to kinds in %s", gvk.GroupKind(), "lifecycle_fixtures_test.go")
	}
	objMeta, err := meta.Accessor(internal)
	if err != nil {
		return nil, kind.resource, err
	}
	rest.FillObjectMetaSystemFields(objMeta)
	ctx := migrator.RequestContext(context.Background(), kind.resource, "create", objMeta.GetNamespace(), objMeta.GetName())
	return internal, kind.resource, rest.BeforeCreate(kind.strategy, ctx, internal)
}

// TestLifecycleFixtures checks every gate's fixture against upstream's
// defaulting, strategies and validation: with the gate on, each object is
// accepted, the objects that use the feature are held by an inspector of
// the gate, control objects by none, and each inspector holds at least one
// object; with the gate off, no object holds what the gate guards (it cannot
// be written then, so once a task is done nothing brings it back).
func TestLifecycleFixtures(t *testing.T) {
	dir := lifecyclefixtures.Dir()
	registry := Registry()
	for _, gate := range fixtureGates(t) {
		lc := registry[gate]
		t.Run(string(gate), func(t *testing.T) {
			objs, err := lifecyclefixtures.Load(dir, gate)
			if err != nil {
				t.Fatal(err)
			}
			ins := inspectors(lc)
			if len(ins) > 0 && len(objs) == 0 {
				t.Fatalf("%s has tasks that look at stored objects but its fixture has none", gate)
			}
			if len(objs) == 0 {
				return
			}
			emulateChangeable(t, gate)
			ns := lifecyclefixtures.Namespace(gate)
			if objs[0].GetKind() != "Namespace" || objs[0].GetName() != ns {
				t.Errorf("the first object must be the Namespace %s, is %s %s", ns, objs[0].GetKind(), objs[0].GetName())
			}

			t.Run("on", func(t *testing.T) {
				enable(t, gate, true)
				held := map[string]int{}
				for _, obj := range objs {
					name := fmt.Sprintf("%s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
					if obj.GetKind() != "Namespace" && obj.GetNamespace() != ns {
						t.Errorf("%s: fixture objects go in the namespace %s", name, ns)
					}
					stored, gr, err := create(obj)
					if err != nil {
						t.Errorf("%s is not accepted with %s on: %v", name, gate, err)
						continue
					}
					covered, holders := false, 0
					for task, in := range ins {
						for _, r := range in.Resources() {
							if r != gr {
								continue
							}
							covered = true
							if in.Holds(stored) {
								holders++
								held[task]++
							}
						}
					}
					switch {
					case lifecyclefixtures.IsControl(obj) && holders > 0:
						t.Errorf("%s is a control object but a task of %s holds it", name, gate)
					case !lifecyclefixtures.IsControl(obj) && covered && holders == 0:
						t.Errorf("%s does not use %s: no task holds it (mark it %s: \"true\" if it is meant as a control)", name, gate, lifecyclefixtures.ControlAnnotation)
					}
				}
				for task := range ins {
					if held[task] == 0 {
						t.Errorf("no fixture object exercises the task %s", task)
					}
				}
			})

			t.Run("off", func(t *testing.T) {
				enable(t, gate, false)
				for _, obj := range objs {
					stored, _, err := create(obj)
					if err != nil {
						continue // rejected with the gate off: cannot be written either
					}
					for task, in := range ins {
						if in.Holds(stored) {
							t.Errorf("%s %s/%s: with %s off, %s still holds what the strategy should have dropped", obj.GetKind(), obj.GetNamespace(), obj.GetName(), gate, task)
						}
					}
				}
			})
		})
	}
}

// fixtureGates returns the gates with a fixture: every explicit
// registration, and the derived ones a fixture was written for, sorted.
func fixtureGates(t *testing.T) []featuregate.Feature {
	t.Helper()
	dirs, err := lifecyclefixtures.Gates(lifecyclefixtures.Dir())
	if err != nil {
		t.Fatal(err)
	}
	gates := slices.Collect(maps.Keys(Lifecycles))
	for _, d := range dirs {
		if !slices.Contains(gates, d) {
			gates = append(gates, d)
		}
	}
	slices.Sort(gates)
	return gates
}

// enable sets gate, with the gates it depends on when turning it on, for the
// duration of the test.
func enable(t *testing.T, gate featuregate.Feature, on bool) {
	overrides := featuregatetesting.FeatureOverrides{gate: on}
	if on {
		for _, f := range lifecyclefixtures.WithDependencies(utilfeature.DefaultFeatureGate, gate) {
			overrides[f] = true
		}
	}
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
}
