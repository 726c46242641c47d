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

// Package storecatalog is the store catalog of the feature lifecycle
// (KEP-3920): the registry store of every resource an apiserver serves with
// one, collected from the APIGroupInfos the apiserver installs. The
// lifecycle's storage migrations, deletions, waits and residue scans read
// and write stored objects through these stores, and its task declarations
// learn from them what each resource stores and whether it has a status
// subresource.
//
// In kube-apiserver the catalog holds the stores kube-apiserver itself
// installed: k8s.io/kubernetes/pkg/controlplane/apiserver's InstallAPIs
// hands Add every API group it installs, so the catalog has no list of
// upstream's storage providers, no store of its own, no etcd client and no
// watch cache of its own: a resource's store reads through the apiserver's
// watch cache wherever the apiserver's own requests do, and a resource
// added upstream is in the catalog with no change here.
package storecatalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	clusterrolepolicybased "k8s.io/kubernetes/pkg/registry/rbac/clusterrole/policybased"
	clusterrolebindingpolicybased "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding/policybased"
	rolepolicybased "k8s.io/kubernetes/pkg/registry/rbac/role/policybased"
	rolebindingpolicybased "k8s.io/kubernetes/pkg/registry/rbac/rolebinding/policybased"
)

// Resource is one resource an apiserver serves with a registry store.
type Resource struct {
	schema.GroupResource
	// Version is the first version, in the group's priority order, that
	// serves the resource.
	Version schema.GroupVersion
	// Store is the resource's registry store (of Version's storage).
	Store *genericregistry.Store
	// Status is the REST storage of the resource's status subresource
	// (<resource>/status) in Version, which writes status through the
	// resource's status strategy, or nil when it has none.
	Status rest.Updater
}

// NoStore is a resource an apiserver serves without a registry store (a
// review, a proxy, a virtual resource): it has no strategy to run and no
// objects to rewrite.
type NoStore struct {
	schema.GroupResource
	// Storage is the Go type of its REST storage.
	Storage string
}

// Catalog is the registry stores of the resources of the API groups added
// to it. It is safe for concurrent use; a nil *Catalog holds no resource.
type Catalog struct {
	mu        sync.RWMutex
	resources map[schema.GroupResource]Resource
	without   map[schema.GroupResource]NoStore
}

var (
	_ migrator.Stores       = &Catalog{}
	_ migrator.StatusStores = &Catalog{}
)

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{resources: map[schema.GroupResource]Resource{}, without: map[schema.GroupResource]NoStore{}}
}

// Add adds the resources of info, an API group as the apiserver installs
// it: each resource from the first version, in info's priority order,
// that serves it, with its registry store (reached through
// genericregistry.StoreAccessor) and its status subresource. Of the other
// subresources nothing is kept: their strategies write no field of their
// own. A resource already in the catalog is kept as it is.
func (c *Catalog) Add(info *genericapiserver.APIGroupInfo) error {
	if len(info.PrioritizedVersions) == 0 {
		return errors.New("the feature lifecycle's store catalog: an API group without versions")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, gv := range info.PrioritizedVersions {
		storages := info.VersionedResourcesStorageMap[gv.Version]
		for _, name := range slices.Sorted(maps.Keys(storages)) {
			if strings.Contains(name, "/") {
				continue
			}
			gr := schema.GroupResource{Group: gv.Group, Resource: name}
			if _, ok := c.resources[gr]; ok {
				continue
			}
			if _, ok := c.without[gr]; ok {
				continue
			}
			store := RegistryStore(storages[name])
			if store == nil || store.CreateStrategy == nil {
				c.without[gr] = NoStore{GroupResource: gr, Storage: fmt.Sprintf("%T", storages[name])}
				continue
			}
			status, _ := storages[name+"/status"].(rest.Updater)
			c.resources[gr] = Resource{GroupResource: gr, Version: gv, Store: store, Status: status}
		}
	}
	return nil
}

// Lookup returns the resource gr, and whether the catalog has it.
func (c *Catalog) Lookup(gr schema.GroupResource) (Resource, bool) {
	if c == nil {
		return Resource{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.resources[gr]
	return r, ok
}

// Resources returns the resources with a registry store, sorted.
func (c *Catalog) Resources() []Resource {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.SortedFunc(maps.Values(c.resources), func(a, b Resource) int { return cmp.Compare(a.String(), b.String()) })
}

// GroupResources returns the group-resources with a registry store, sorted.
func (c *Catalog) GroupResources() []schema.GroupResource {
	rs := c.Resources()
	out := make([]schema.GroupResource, len(rs))
	for i, r := range rs {
		out[i] = r.GroupResource
	}
	return out
}

// WithoutStore returns the resources served without a registry store,
// sorted.
func (c *Catalog) WithoutStore() []NoStore {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.SortedFunc(maps.Values(c.without), func(a, b NoStore) int { return cmp.Compare(a.String(), b.String()) })
}

// NewObject returns an empty internal object of the kind gr stores, or an
// error naming gr when the catalog has no store of it.
func (c *Catalog) NewObject(gr schema.GroupResource) (runtime.Object, error) {
	r, ok := c.Lookup(gr)
	if !ok {
		return nil, c.unsupported(gr)
	}
	return r.Store.New(), nil
}

// CreateValidation returns the validation a create of an object of gr
// passes (its strategy's Validate, reading the feature gates as the
// process has them), or an error naming gr when the catalog has no store
// of it.
func (c *Catalog) CreateValidation(gr schema.GroupResource) (func(ctx context.Context, obj runtime.Object) field.ErrorList, error) {
	r, ok := c.Lookup(gr)
	if !ok {
		return nil, c.unsupported(gr)
	}
	return r.Store.CreateStrategy.Validate, nil
}

// HasStatus reports whether gr has a status subresource whose strategy
// writes the status (StatusStore): a field under status is cleared through
// it, since the resource's own strategy keeps the stored status.
func (c *Catalog) HasStatus(gr schema.GroupResource) bool {
	r, ok := c.Lookup(gr)
	return ok && r.Status != nil
}

// Store returns the registry store of gr (a *genericregistry.Store), or an
// error naming gr when the catalog has none. It implements
// migrator.Stores.
func (c *Catalog) Store(gr schema.GroupResource) (migrator.Store, error) {
	r, ok := c.Lookup(gr)
	if !ok {
		return nil, c.unsupported(gr)
	}
	return r.Store, nil
}

// StatusStore returns a store that lists the objects of gr with its
// registry store and writes them through its status subresource, or an
// error naming gr when it has none. It implements migrator.StatusStores.
func (c *Catalog) StatusStore(gr schema.GroupResource) (migrator.Store, error) {
	r, ok := c.Lookup(gr)
	if !ok {
		return nil, c.unsupported(gr)
	}
	if r.Status == nil {
		return nil, fmt.Errorf("the feature lifecycle cannot write the status of %q: it has no status subresource", gr.String())
	}
	return StatusStore(r.Store, r.Status), nil
}

// unsupported is the error for gr, which has no registry store here: a
// *migrator.NotServedError unless the apiserver serves gr without one.
func (c *Catalog) unsupported(gr schema.GroupResource) error {
	if c != nil {
		c.mu.RLock()
		_, without := c.without[gr]
		c.mu.RUnlock()
		if without {
			return fmt.Errorf("the feature lifecycle cannot reach the stored objects of %q: this apiserver serves it without a registry store", gr.String())
		}
	}
	return &migrator.NotServedError{Resource: gr}
}

// RegistryStore returns the registry store a REST storage is backed by
// (genericregistry.StoreAccessor), or nil: reviews, proxies and virtual
// resources have none.
func RegistryStore(s rest.Storage) *genericregistry.Store {
	switch s := s.(type) {
	case genericregistry.StoreAccessor:
		return s.RegistryStore()
	// RBAC's storage checks escalation in front of the resource's store.
	case *clusterrolepolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	case *clusterrolebindingpolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	case *rolepolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	case *rolebindingpolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	}
	return nil
}

// statusStore lists with a resource's registry store and writes through its
// status subresource (upstream's StatusREST, a copy of the registry store
// with the status strategy), so that the status strategy, not the
// resource's, prepares and validates the write.
type statusStore struct {
	*genericregistry.Store
	status rest.Updater
}

// StatusStore returns a migrator.Store that lists with store and writes
// through status, the status subresource of store's resource.
func StatusStore(store *genericregistry.Store, status rest.Updater) migrator.Store {
	return statusStore{Store: store, status: status}
}

// Update writes obj's status through the status subresource.
func (s statusStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return s.status.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// Subresource returns "status": the migrator's writes name it in their
// request info, as a client's status update does.
func (statusStore) Subresource() string { return "status" }
