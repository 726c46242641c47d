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

package storecatalog

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage/names"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

// strategy is the smallest create strategy: a store with one is a
// resource's registry store.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

func (strategy) NamespaceScoped() bool                            { return true }
func (strategy) PrepareForCreate(context.Context, runtime.Object) {}
func (strategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return field.ErrorList{field.Invalid(nil, nil, "x")}
}
func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (strategy) Canonicalize(runtime.Object)                               {}

// wrapped is REST storage that reaches its store only through
// genericregistry.StoreAccessor, as a resource served while its Feature is
// Disabling is.
type wrapped struct {
	rest.Storage
	store *registry.Store
}

func (w wrapped) RegistryStore() *registry.Store { return w.store }

// review is REST storage without a store.
type review struct{ rest.Storage }

// status is the status subresource of a resource; it counts its updates.
type status struct {
	*registry.Store
	updates *int
}

func (s status) Update(context.Context, string, rest.UpdatedObjectInfo, rest.ValidateObjectFunc, rest.ValidateObjectUpdateFunc, bool, *metav1.UpdateOptions) (runtime.Object, bool, error) {
	*s.updates++
	return nil, false, nil
}

func newStore(gr schema.GroupResource, newFunc func() runtime.Object) *registry.Store {
	return &registry.Store{DefaultQualifiedResource: gr, NewFunc: newFunc, CreateStrategy: strategy{}}
}

// TestAdd checks what Add collects from an API group: each resource from
// the first version, in the group's priority order, that serves it, its
// store reached through an accessor, its status subresource, and the
// resources without a store.
func TestAdd(t *testing.T) {
	pods := newStore(api.Resource("pods"), func() runtime.Object { return &api.Pod{} })
	podsV2 := newStore(api.Resource("pods"), func() runtime.Object { return &api.Pod{} })
	secrets := newStore(api.Resource("secrets"), func() runtime.Object { return &api.Secret{} })
	noStrategy := &registry.Store{DefaultQualifiedResource: api.Resource("bindings")}
	info := &genericapiserver.APIGroupInfo{
		PrioritizedVersions: []schema.GroupVersion{{Version: "v2"}, {Version: "v1"}},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{
			"v1": {"pods": pods, "pods/status": status{pods, new(int)}, "secrets": wrapped{store: secrets}, "reviews": review{}, "bindings": noStrategy},
			"v2": {"pods": podsV2},
		},
	}
	c := New()
	if err := c.Add(info); err != nil {
		t.Fatal(err)
	}
	if got := c.GroupResources(); !slices.Equal(got, []schema.GroupResource{api.Resource("pods"), api.Resource("secrets")}) {
		t.Fatalf("GroupResources() = %v, want pods and secrets", got)
	}
	r, ok := c.Lookup(api.Resource("pods"))
	if !ok || r.Store != podsV2 || r.Version.Version != "v2" || r.Status != nil {
		t.Errorf("pods: %+v, want v2's store, without the status subresource v2 does not serve", r)
	}
	if r, _ := c.Lookup(api.Resource("secrets")); r.Store != secrets {
		t.Errorf("secrets: %+v, want the store behind the accessor", r)
	}
	var without []string
	for _, n := range c.WithoutStore() {
		without = append(without, n.String()+" "+n.Storage)
	}
	if want := []string{"bindings *registry.Store", "reviews storecatalog.review"}; !slices.Equal(without, want) {
		t.Errorf("WithoutStore() = %v, want %v", without, want)
	}
	// A group added later keeps what is there.
	if err := c.Add(&genericapiserver.APIGroupInfo{PrioritizedVersions: []schema.GroupVersion{{Version: "v1"}},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{"v1": {"pods": pods}}}); err != nil {
		t.Fatal(err)
	}
	if r, _ := c.Lookup(api.Resource("pods")); r.Store != podsV2 {
		t.Error("a second Add replaced a resource")
	}
	if err := c.Add(&genericapiserver.APIGroupInfo{}); err == nil {
		t.Error("Add of a group without versions succeeded")
	}
}

// TestLookups checks what the catalog says of a resource, with and without
// a status subresource, and of one it does not have.
func TestLookups(t *testing.T) {
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	pods := newStore(api.Resource("pods"), func() runtime.Object { return &api.Pod{} })
	configMaps := newStore(api.Resource("configmaps"), func() runtime.Object { return &api.ConfigMap{} })
	updates := 0
	c := New()
	if err := c.Add(&genericapiserver.APIGroupInfo{PrioritizedVersions: []schema.GroupVersion{{Version: "v1"}},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{"v1": {"pods": pods, "pods/status": status{pods, &updates}, "configmaps": configMaps}}}); err != nil {
		t.Fatal(err)
	}
	if obj, err := c.NewObject(api.Resource("pods")); err != nil || obj.(*api.Pod) == nil {
		t.Errorf("NewObject(pods) = %T, %v", obj, err)
	}
	if v, err := c.CreateValidation(api.Resource("pods")); err != nil || len(v(context.Background(), &api.Pod{})) != 1 {
		t.Errorf("CreateValidation(pods) is not the strategy's: %v", err)
	}
	if !c.HasStatus(api.Resource("pods")) || c.HasStatus(api.Resource("configmaps")) {
		t.Error("HasStatus: want pods only")
	}
	if s, err := c.Store(api.Resource("pods")); err != nil || s != migrator.Store(pods) {
		t.Errorf("Store(pods) = %v, %v", s, err)
	}
	s, err := c.StatusStore(api.Resource("pods"))
	if err != nil || s.(interface{ Subresource() string }).Subresource() != "status" {
		t.Errorf("StatusStore(pods) = %v, %v", s, err)
	}
	if _, _, err := s.Update(context.Background(), "p", nil, nil, nil, false, &metav1.UpdateOptions{}); err != nil || updates != 1 {
		t.Errorf("the status store's Update does not reach the status subresource: %v, %d updates", err, updates)
	}
	if _, err := c.StatusStore(api.Resource("configmaps")); err == nil || !strings.Contains(err.Error(), "status") {
		t.Errorf("StatusStore(configmaps) = %v, want an error about its status", err)
	}
	for _, f := range []func() error{
		func() error { _, err := c.NewObject(deployments); return err },
		func() error { _, err := c.CreateValidation(deployments); return err },
		func() error { _, err := c.Store(deployments); return err },
		func() error { _, err := c.StatusStore(deployments); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "deployments.apps") || !migrator.IsNotServed(err) {
			t.Errorf("a resource the catalog does not have: %v, want a NotServedError naming it", err)
		}
	}
	// A resource served without a registry store is an error of its own:
	// its objects are served, but not through a store the lifecycle uses.
	reviews := schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}
	if err := c.Add(&genericapiserver.APIGroupInfo{PrioritizedVersions: []schema.GroupVersion{{Group: reviews.Group, Version: "v1"}},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{"v1": {reviews.Resource: review{}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Store(reviews); err == nil || migrator.IsNotServed(err) || !strings.Contains(err.Error(), "without a registry store") {
		t.Errorf("Store(%s) = %v, want an error saying it is served without a registry store", reviews, err)
	}
	var none *Catalog
	if _, ok := none.Lookup(api.Resource("pods")); ok || none.Resources() != nil || none.HasStatus(api.Resource("pods")) {
		t.Error("a nil catalog holds something")
	}
}
