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
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// listedObjectKey is the context key of the object, as listed, that a
// migration write starts from.
type listedObjectKey struct{}

// withListedObject returns ctx carrying obj, the unchanged object a write
// of the migrator starts from. obj is handed over: the storage may change it.
func withListedObject(ctx context.Context, obj runtime.Object) context.Context {
	return context.WithValue(ctx, listedObjectKey{}, obj)
}

// hintedStorage starts the updates of the migrator from the object it has
// just listed, as the watch cache's storage decorator starts every update of
// the apiserver from its cached copy: it passes the object to the etcd3
// store's GuaranteedUpdate as cachedExistingObject, which then skips the read
// before the compare-and-put, and reads the fresh object (and runs the update
// again on it) only when the listed one is no longer current. It is no
// cache: it holds nothing, and every other call goes straight to storage.
type hintedStorage struct {
	storage.Interface
	keyFunc func(obj runtime.Object) (string, error)
}

// GuaranteedUpdate passes the listed object in ctx, if it is the object at
// key, as cachedExistingObject.
func (h hintedStorage) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	if listed, ok := ctx.Value(listedObjectKey{}).(runtime.Object); ok && cachedExistingObject == nil {
		if k, err := h.keyFunc(listed); err == nil && k == key {
			// Handed over by the migrator: no copy.
			cachedExistingObject = listed
		}
	}
	return h.Interface.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate, cachedExistingObject)
}

// hintedUndecoratedStorage is a generic.StorageDecorator: the undecorated
// storage (no watch cache) in a hintedStorage.
func hintedUndecoratedStorage(
	config *storagebackend.ConfigForResource,
	resourcePrefix string,
	keyFunc func(obj runtime.Object) (string, error),
	newFunc func() runtime.Object,
	newListFunc func() runtime.Object,
	getAttrsFunc storage.AttrFunc,
	trigger storage.IndexerFuncs,
	indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	s, destroy, err := generic.UndecoratedStorage(config, resourcePrefix, keyFunc, newFunc, newListFunc, getAttrsFunc, trigger, indexers)
	if err != nil {
		return nil, nil, err
	}
	return hintedStorage{Interface: s, keyFunc: keyFunc}, destroy, nil
}

var _ generic.StorageDecorator = hintedUndecoratedStorage
