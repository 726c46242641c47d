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
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// DeferredGetter wraps a RESTOptionsGetter so that building a provider's
// stores connects none of them to storage: each store gets a placeholder
// that remembers how the wrapped getter's decorator was to be called, and
// Open makes that call for the stores actually used. Building a whole
// group this way costs no etcd client; using one of its resources costs
// one (and a watch cache, when the getter's decorator adds one). The
// stores do not poll their object count (an apiserver's metric).
type DeferredGetter struct {
	generic.RESTOptionsGetter
}

// GetRESTOptions returns the wrapped getter's options with a decorator that
// defers the storage.
func (d DeferredGetter) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := d.RESTOptionsGetter.GetRESTOptions(gr, example)
	if err != nil {
		return opts, err
	}
	opts.CountMetricPollPeriod = 0
	opts.StorageObjectCountTracker = nil
	decorate := opts.Decorator
	if decorate == nil {
		decorate = generic.UndecoratedStorage
	}
	opts.Decorator = func(config *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(obj runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, getAttrsFunc storage.AttrFunc, trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		return &pendingStorage{open: func() (storage.Interface, factory.DestroyFunc, error) {
			return decorate(config, resourcePrefix, keyFunc, newFunc, newListFunc, getAttrsFunc, trigger, indexers)
		}}, func() {}, nil
	}
	return opts, nil
}

// pendingStorage is the placeholder storage of a store built on a
// DeferredGetter. Any call before Open panics (nil storage.Interface); after
// Open it forwards to the opened storage. The stores a provider copies from
// the resource's store (its status subresource's, say) share the
// placeholder, so opening the resource's store opens theirs too.
type pendingStorage struct {
	storage.Interface
	open func() (storage.Interface, factory.DestroyFunc, error)
}

// ErrNotDeferred is returned by Open for a store not built on a
// DeferredGetter, or already open.
var ErrNotDeferred = errors.New("the store was not built on a DeferredGetter, or is already open")

// Open connects store, built on a DeferredGetter, to its storage as the
// wrapped getter's decorator does. The caller must not share store before
// Open returns; call store.Destroy to release the storage.
func Open(store *genericregistry.Store) error {
	p, ok := store.Storage.Storage.(*pendingStorage)
	if !ok || p.Interface != nil {
		return ErrNotDeferred
	}
	s, destroy, err := p.open()
	if err != nil {
		return fmt.Errorf("opening the storage of %s: %w", store.DefaultQualifiedResource.String(), err)
	}
	p.Interface = s
	store.DestroyFunc = destroy
	store.ReadinessCheckFunc = s.ReadinessCheck
	return nil
}

// OpenedStorage returns the storage store, built on a DeferredGetter, was
// connected to by Open, or nil when it is not open.
func OpenedStorage(store *genericregistry.Store) storage.Interface {
	if p, ok := store.Storage.Storage.(*pendingStorage); ok {
		return p.Interface
	}
	return nil
}

// NoStorage is a RESTOptionsGetter for stores that never touch storage:
// built on it, a store has upstream's strategies, types and keys, and a
// placeholder storage whose Open fails. For running strategies and learning
// what a resource stores.
type NoStorage struct{}

// GetRESTOptions returns options whose storage cannot be opened.
func (NoStorage) GetRESTOptions(gr schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return optionsWithStorage(gr, &pendingStorage{open: func() (storage.Interface, factory.DestroyFunc, error) {
		return nil, nil, fmt.Errorf("%s was built on no storage", gr.String())
	}}), nil
}

// optionsWithStorage returns the RESTOptions of gr for a store built on s,
// a storage of no backend (NoStorage, TrialGetter).
func optionsWithStorage(gr schema.GroupResource, s storage.Interface) generic.RESTOptions {
	return generic.RESTOptions{
		StorageConfig:  &storagebackend.ConfigForResource{GroupResource: gr},
		ResourcePrefix: "/" + gr.String(),
		Decorator: func(*storagebackend.ConfigForResource, string, func(runtime.Object) (string, error), func() runtime.Object, func() runtime.Object,
			storage.AttrFunc, storage.IndexerFuncs, *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
			return s, func() {}, nil
		},
	}
}
