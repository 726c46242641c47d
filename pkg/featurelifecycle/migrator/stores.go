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

package migrator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/featurelifecycle/upstreamstores"
)

// catalog is every resource kube-apiserver serves with a registry store,
// each store built by upstream's REST storage providers on no storage: what
// NewObject and SupportedResources answer from. Built once, on first use.
var catalog = sync.OnceValues(func() (map[schema.GroupResource]upstreamstores.Resource, error) {
	cfg := upstreamstores.Config{Gated: true}
	ps, err := upstreamstores.Providers(cfg)
	if err != nil {
		return nil, err
	}
	rs, _, err := upstreamstores.BuildAll(ps, upstreamstores.NoStorage{}, cfg)
	if err != nil {
		return nil, err
	}
	m := make(map[schema.GroupResource]upstreamstores.Resource, len(rs))
	for _, r := range rs {
		m[r.GroupResource] = r
	}
	return m, nil
})

// SupportedResources returns, sorted, the group-resources NewStores can
// open: every resource kube-apiserver serves with a registry store, except
// services (their store allocates cluster IPs and node ports) and the
// resources of the apiextensions and aggregator servers.
func SupportedResources() []schema.GroupResource {
	c, err := catalog()
	if err != nil {
		klog.ErrorS(err, "Building the feature storage migrator's catalog of resources")
		return nil
	}
	grs := slices.Collect(maps.Keys(c))
	slices.SortFunc(grs, func(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) })
	return grs
}

// NewObject returns an empty internal object of the kind gr stores, or an
// error naming gr when it is not supported.
func NewObject(gr schema.GroupResource) (runtime.Object, error) {
	c, err := catalog()
	if err != nil {
		return nil, fmt.Errorf("building the feature storage migrator's catalog of resources: %w", err)
	}
	r, ok := c[gr]
	if !ok {
		return nil, unsupported(gr)
	}
	return r.Store.New(), nil
}

// CreateValidation returns the validation a create of an object of gr
// passes (its strategy's Validate, reading the feature gates as this
// binary has them), or an error naming gr when it is not supported.
func CreateValidation(gr schema.GroupResource) (func(ctx context.Context, obj runtime.Object) field.ErrorList, error) {
	c, err := catalog()
	if err != nil {
		return nil, fmt.Errorf("building the feature storage migrator's catalog of resources: %w", err)
	}
	r, ok := c[gr]
	if !ok || r.Store.CreateStrategy == nil {
		return nil, unsupported(gr)
	}
	return r.Store.CreateStrategy.Validate, nil
}

// HasStatus reports whether gr has a status subresource whose strategy
// writes the status (StatusStores): a field under status is cleared through
// it, since the resource's own strategy keeps the stored status.
func HasStatus(gr schema.GroupResource) bool {
	c, err := catalog()
	return err == nil && c[gr].Status != nil
}

func unsupported(gr schema.GroupResource) error {
	return fmt.Errorf("the feature storage migrator does not support %q: kube-apiserver serves it without a registry store, or not at all", gr.String())
}

// RegistryStores opens the upstream registry stores of the supported
// resources on the apiserver's storage. It implements Stores.
type RegistryStores struct {
	getter generic.RESTOptionsGetter
	config upstreamstores.Config

	mu sync.Mutex
	// groups holds, per API group, the stores its provider built on a
	// DeferredGetter; stores those that have been opened.
	groups    map[string]map[schema.GroupResource]upstreamstores.Resource
	stores    map[schema.GroupResource]*genericregistry.Store
	destroyed bool
}

var (
	_ Stores       = &RegistryStores{}
	_ StatusStores = &RegistryStores{}
)

// StatusStores opens the stores that write the status of a group-resource.
type StatusStores interface {
	// StatusStore returns a Store that lists the objects of gr and writes
	// them through gr's status subresource, or an error naming gr when it
	// has none (see HasStatus).
	StatusStore(gr schema.GroupResource) (Store, error)
}

// statusStore lists with a resource's registry store and writes through its
// status subresource (upstream's StatusREST, a copy of the registry store
// with the status strategy), so that the status strategy, not the
// resource's, prepares and validates the write.
type statusStore struct {
	*genericregistry.Store
	status rest.Updater
}

// Update writes obj's status through the status subresource.
func (s statusStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return s.status.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// Subresource returns "status": the migrator's writes name it in their
// request info, as a client's status update does.
func (statusStore) Subresource() string { return "status" }

// NewStores returns Stores that build the registry stores of a resource's
// API group with upstream's own REST storage provider (the one
// kube-apiserver installs), lazily and once per group, on getter – the
// apiserver's RESTOptionsGetter – with the storage decorator replaced by
// generic.UndecoratedStorage, and connect to storage only the stores that
// are used: the same etcd prefix, codecs and encryption-at-rest transformers
// as the apiserver's store of the resource, but no second watch cache and
// no object-count polling. (The undecorated storage is wrapped so that a
// migration write starts from the object the migrator listed, as the
// apiserver's writes start from the watch cache's copy.) config gives the
// providers the clients and authorizer some strategies use when they
// validate a write. It also registers the migrator's metrics.
func NewStores(getter generic.RESTOptionsGetter, config upstreamstores.Config) *RegistryStores {
	RegisterMetrics()
	return &RegistryStores{
		getter: upstreamstores.DeferredGetter{RESTOptionsGetter: undecorated{getter}},
		config: gated(config),
		groups: map[string]map[schema.GroupResource]upstreamstores.Resource{},
		stores: map[schema.GroupResource]*genericregistry.Store{},
	}
}

// Store returns the registry store of gr (a *genericregistry.Store), building
// it on first use, or an error naming gr when it is not supported.
func (s *RegistryStores) Store(gr schema.GroupResource) (Store, error) {
	if _, err := NewObject(gr); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return nil, errors.New("the feature storage migrator's stores have been destroyed")
	}
	if store, ok := s.stores[gr]; ok {
		return store, nil
	}
	group, err := s.group(gr.Group)
	if err != nil {
		return nil, fmt.Errorf("building the registry store of %s for the feature storage migrator: %w", gr.String(), err)
	}
	r, ok := group[gr]
	if !ok {
		return nil, unsupported(gr)
	}
	store := r.Store
	if err := upstreamstores.Open(store); err != nil {
		return nil, fmt.Errorf("building the registry store of %s for the feature storage migrator: %w", gr.String(), err)
	}
	klog.V(2).InfoS("Opened a registry store for feature storage migrations", "resource", gr.String())
	s.stores[gr] = store
	return store, nil
}

// StatusStore returns a Store that lists the objects of gr with its
// registry store (opened as Store opens it) and writes them through gr's
// status subresource, or an error naming gr when it has none.
func (s *RegistryStores) StatusStore(gr schema.GroupResource) (Store, error) {
	if !HasStatus(gr) {
		return nil, fmt.Errorf("the feature storage migrator cannot write the status of %q: it has no status subresource", gr.String())
	}
	// Opening the resource's store opens its status subresource's, a copy
	// of it sharing its storage.
	store, err := s.Store(gr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.groups[gr.Group][gr]
	if r.Status == nil {
		return nil, fmt.Errorf("the feature storage migrator cannot write the status of %q: its provider built no status subresource", gr.String())
	}
	return statusStore{Store: store.(*genericregistry.Store), status: r.Status}, nil
}

// gated returns config with Gated set: a resource served only while its
// gate is on must still be readable while the gate is turning off.
func gated(config upstreamstores.Config) upstreamstores.Config {
	config.Gated = true
	return config
}

// group returns the stores of an API group, built (not opened) by its
// provider on first use. s.mu is held.
func (s *RegistryStores) group(name string) (map[schema.GroupResource]upstreamstores.Resource, error) {
	if g, ok := s.groups[name]; ok {
		return g, nil
	}
	ps, err := upstreamstores.Providers(s.config)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.GroupName() != name {
			continue
		}
		rs, _, err := upstreamstores.Build(p, s.getter, s.config)
		if err != nil {
			return nil, err
		}
		g := make(map[schema.GroupResource]upstreamstores.Resource, len(rs))
		for _, r := range rs {
			g[r.GroupResource] = r
		}
		s.groups[name] = g
		return g, nil
	}
	return nil, fmt.Errorf("no REST storage provider serves API group %q", name)
}

// Destroy releases the opened stores (their etcd clients); later calls to
// Store fail.
func (s *RegistryStores) Destroy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for gr, store := range s.stores {
		store.Destroy()
		delete(s.stores, gr)
	}
	s.groups = nil
	s.destroyed = true
}

// undecorated returns the RESTOptions of the wrapped getter without a watch
// cache (see hintedStorage) and without object-count polling (the apiserver's own store polls,
// and destroying ours would delete that store's count metric).
type undecorated struct {
	generic.RESTOptionsGetter
}

// GetRESTOptions returns the wrapped getter's options, undecorated.
func (u undecorated) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := u.RESTOptionsGetter.GetRESTOptions(gr, example)
	if err != nil {
		return opts, err
	}
	opts.Decorator = hintedUndecoratedStorage
	opts.CountMetricPollPeriod = 0
	opts.StorageObjectCountTracker = nil
	return opts, nil
}
