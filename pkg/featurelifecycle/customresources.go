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

package featurelifecycle

import (
	"context"
	"sort"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	bindinginformers "k8s.io/client-go/informers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"

	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// customResources knows which CustomResourceDefinitions' fields, values
// and kinds are bound to which Features (CustomResourceFeatureBindings),
// for the tasks of third parties' Disabling.
type customResources struct {
	informer cache.SharedIndexInformer
}

// newCustomResources returns the bindings, read by the shared informer of
// CustomResourceFeatureBindings indexed by Feature; a change of a binding
// enqueues the Features it binds to, before and after.
func newCustomResources(informer bindinginformers.CustomResourceFeatureBindingInformer, enqueue func(key string)) (*customResources, error) {
	i := informer.Informer()
	if err := crbinding.AddFeatureIndex(i); err != nil {
		return nil, err
	}
	changed := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		keys, _ := crbinding.IndexByFeature(obj)
		for _, k := range keys {
			enqueue(k)
		}
	}
	if _, err := i.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(old, obj any) { changed(old); changed(obj) },
		DeleteFunc: changed,
	}); err != nil {
		return nil, err
	}
	return &customResources{informer: i}, nil
}

// tasks are the tasks of f's Disabling for the CRDs bound to it, in the
// order of the CRDs' names: for each, clearing what is cleared, then
// holding for what is held and the kind (tasks.CustomResourceTasks).
func (r *customResources) tasks(f *featuresv1alpha1.Feature) []tasks.Task {
	if r == nil {
		return nil
	}
	feature := leader.Key(f)
	objs, err := r.informer.GetIndexer().ByIndex(crbinding.ByFeature, feature)
	if err != nil {
		return nil
	}
	var bindings []*featuresv1alpha1.CustomResourceFeatureBinding
	for _, obj := range objs {
		if b, ok := obj.(*featuresv1alpha1.CustomResourceFeatureBinding); ok {
			bindings = append(bindings, b)
		}
	}
	sort.Slice(bindings, func(i, j int) bool { return bindings[i].Name < bindings[j].Name })
	var out []tasks.Task
	for _, b := range bindings {
		out = append(out, tasks.CustomResourceTasks(b.Name, crbinding.For(b, feature))...)
	}
	return out
}

// moot is the task of a CRD that no longer binds to the Feature (its
// binding changed or was deleted mid-transition): done at once.
func moot(name string) tasks.Task {
	return tasks.Custom(name, "The custom resource definition no longer binds to the feature.", func(context.Context, tasks.Env, *featuresv1alpha1.Feature, featuresv1alpha1.FeatureTask, time.Time) (tasks.Outcome, error) {
		return tasks.Outcome{Done: true, Message: "nothing to do: the custom resource definition no longer binds to the feature"}, nil
	})
}
