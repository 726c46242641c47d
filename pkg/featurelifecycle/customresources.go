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
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// customResources knows which CRDs bind fields, values or kinds to which
// Features (crdbindings), for the tasks of third parties' Disabling.
type customResources struct {
	informer cache.SharedIndexInformer
}

// newCustomResources returns the CRDs' bindings, read by an informer of
// CRDs through client; a change of a CRD's bindings enqueues the Features
// it binds to, before and after.
func newCustomResources(client dynamic.Interface, resync time.Duration, enqueue func(key string)) (*customResources, error) {
	informer := dynamicinformer.NewFilteredDynamicInformer(client, apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"),
		"", resync, cache.Indexers{crdbindings.ByFeature: crdbindings.IndexByFeature}, nil).Informer()
	changed := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		keys, _ := crdbindings.IndexByFeature(obj)
		for _, k := range keys {
			enqueue(k)
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(old, obj any) { changed(old); changed(obj) },
		DeleteFunc: changed,
	}); err != nil {
		return nil, err
	}
	return &customResources{informer: informer}, nil
}

// run runs the informer until ctx ends.
func (r *customResources) run(ctx context.Context) { r.informer.RunWithContext(ctx) }

// tasks are the tasks of f's Disabling for the CRDs bound to it, one per
// CRD, in the order of the CRDs' names.
func (r *customResources) tasks(f *featuresv1alpha1.Feature) []tasks.Task {
	if r == nil {
		return nil
	}
	feature := leader.Key(f)
	objs, err := r.informer.GetIndexer().ByIndex(crdbindings.ByFeature, feature)
	if err != nil {
		return nil
	}
	var out []tasks.Task
	for _, obj := range objs {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		if crd, ok := crdbindings.FromUnstructured(u); ok {
			out = append(out, tasks.CustomResources{CRD: crd, Bindings: crd.For(feature)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// moot is the task of a CRD that no longer binds to the Feature (its
// annotation changed or it was deleted mid-transition): done at once.
func moot(name string) tasks.Task {
	return tasks.Custom(name, "The custom resource definition no longer binds to the feature.", func(context.Context, tasks.Env, *featuresv1alpha1.Feature, featuresv1alpha1.FeatureTask, time.Time) (tasks.Outcome, error) {
		return tasks.Outcome{Done: true, Message: "nothing to do: the custom resource definition no longer binds to the feature"}, nil
	})
}

// customResourcesTaskName says whether name is the name of a
// CustomResources task.
func customResourcesTaskName(name string) bool {
	return strings.HasPrefix(name, "clear-") || strings.HasPrefix(name, "wait-for-no-")
}
