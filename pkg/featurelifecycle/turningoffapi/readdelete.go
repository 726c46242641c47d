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

package turningoffapi

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
)

// ReadDelete is the REST storage of a resource served while its Feature is
// turning off: the resource's own registry store (upstream's strategy,
// its delete rules and finalizers, its table) with only get, list, watch,
// delete and deletecollection. It implements none of rest.Creater,
// rest.Updater, rest.Patcher or any subresource, so the API installer
// registers no route that writes an object.
type ReadDelete struct {
	store *genericregistry.Store
}

// NewReadDelete returns the read and delete only storage of store.
func NewReadDelete(store *genericregistry.Store) *ReadDelete {
	return &ReadDelete{store: store}
}

var (
	_ rest.Storage              = &ReadDelete{}
	_ rest.Scoper               = &ReadDelete{}
	_ rest.SingularNameProvider = &ReadDelete{}
	_ rest.Getter               = &ReadDelete{}
	_ rest.Lister               = &ReadDelete{}
	_ rest.Watcher              = &ReadDelete{}
	_ rest.GracefulDeleter      = &ReadDelete{}
	_ rest.CollectionDeleter    = &ReadDelete{}
)

// New returns an empty object of the resource.
func (r *ReadDelete) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the store is shared with the lifecycle's tasks,
// whose owner destroys it.
func (r *ReadDelete) Destroy() {}

// NamespaceScoped reports whether the resource is namespaced.
func (r *ReadDelete) NamespaceScoped() bool { return r.store.NamespaceScoped() }

// GetSingularName returns the resource's singular name.
func (r *ReadDelete) GetSingularName() string { return r.store.GetSingularName() }

// Get returns one stored object.
func (r *ReadDelete) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// NewList returns an empty list of the resource.
func (r *ReadDelete) NewList() runtime.Object { return r.store.NewList() }

// List lists the stored objects.
func (r *ReadDelete) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}

// ConvertToTable is the resource's own table convertor (kubectl get).
func (r *ReadDelete) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// Watch watches the stored objects.
func (r *ReadDelete) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}

// Delete deletes one object through the store (graceful deletion and
// finalizers as the resource's strategy says).
func (r *ReadDelete) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return r.store.Delete(ctx, name, deleteValidation, options)
}

// DeleteCollection deletes the objects a list selects.
func (r *ReadDelete) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.DeleteCollection(ctx, deleteValidation, options, listOptions)
}
