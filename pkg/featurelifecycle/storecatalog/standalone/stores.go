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

package standalone

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// readyTimeout bounds the wait for an opened store's watch cache.
const readyTimeout = time.Minute

// Stores are kube-apiserver's registry stores on storage of a process that
// runs no kube-apiserver (a test's etcd), built by Providers on a
// DeferredGetter: building them opens no storage, and the first use of a
// store opens it, as the wrapped getter decorates it (with a watch cache
// when the getter's options enable one, as kube-apiserver's do). They
// implement migrator.Stores and migrator.StatusStores.
type Stores struct {
	catalog *storecatalog.Catalog

	mu        sync.Mutex
	opened    map[schema.GroupResource]*genericregistry.Store
	destroyed bool
}

var (
	_ migrator.Stores       = &Stores{}
	_ migrator.StatusStores = &Stores{}
)

// NewStores builds the stores of every resource kube-apiserver serves with
// a registry store, and of those it serves only with a gate, on getter,
// none of them open. cfg gives the providers the clients and authorizer
// some strategies use when they validate a write.
func NewStores(getter generic.RESTOptionsGetter, cfg Config) (*Stores, error) {
	cfg.Gated = true
	ps, err := Providers(cfg)
	if err != nil {
		return nil, err
	}
	catalog, err := BuildAll(ps, DeferredGetter{RESTOptionsGetter: getter}, cfg)
	if err != nil {
		return nil, err
	}
	return &Stores{catalog: catalog, opened: map[schema.GroupResource]*genericregistry.Store{}}, nil
}

// Catalog returns the catalog of the stores, open or not: what they say
// about their resources. Use Store to reach stored objects.
func (s *Stores) Catalog() *storecatalog.Catalog { return s.catalog }

// Store returns the registry store of gr (a *genericregistry.Store), opened
// on first use, or an error naming gr when kube-apiserver serves it without
// one.
func (s *Stores) Store(gr schema.GroupResource) (migrator.Store, error) {
	r, err := s.open(gr)
	if err != nil {
		return nil, err
	}
	return r.Store, nil
}

// StatusStore returns a store that lists the objects of gr with its
// registry store (opened as Store opens it) and writes them through its
// status subresource, or an error naming gr when it has none.
func (s *Stores) StatusStore(gr schema.GroupResource) (migrator.Store, error) {
	r, err := s.open(gr)
	if err != nil {
		return nil, err
	}
	if r.Status == nil {
		return nil, fmt.Errorf("%s has no status subresource", gr.String())
	}
	// Opening the resource's store opened its status subresource's, a
	// copy of it sharing its storage.
	return storecatalog.StatusStore(r.Store, r.Status), nil
}

// open returns the resource gr with its store open.
func (s *Stores) open(gr schema.GroupResource) (storecatalog.Resource, error) {
	r, ok := s.catalog.Lookup(gr)
	if !ok {
		_, err := s.catalog.NewObject(gr)
		return r, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return r, errors.New("the stores have been destroyed")
	}
	if _, ok := s.opened[gr]; ok {
		return r, nil
	}
	if err := Open(r.Store); err != nil {
		return r, err
	}
	// As an apiserver is ready only once its watch caches are: until then
	// a cache refuses reads ("storage is (re)initializing").
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, readyTimeout, true, func(context.Context) (bool, error) {
		return r.Store.ReadinessCheckFunc == nil || r.Store.ReadinessCheckFunc() == nil, nil
	}); err != nil {
		r.Store.Destroy()
		return r, fmt.Errorf("the storage of %s is not ready: %w", gr.String(), err)
	}
	klog.V(2).InfoS("Opened a registry store", "resource", gr.String())
	s.opened[gr] = r.Store
	return r, nil
}

// Destroy releases the opened stores (their etcd clients and watch
// caches); later calls to Store fail.
func (s *Stores) Destroy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for gr, store := range s.opened {
		store.Destroy()
		delete(s.opened, gr)
	}
	s.destroyed = true
}
