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
	"fmt"
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
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
// delete and deletecollection, and updates (and patches) that do nothing
// but remove finalizers: a deleted object whose finalizer's controller no
// longer runs (it is gated too) would otherwise stay stored, terminating,
// for ever. It implements neither rest.Creater nor any subresource, so the
// API installer registers no route that creates an object or writes a
// status.
type ReadDelete struct {
	// meta answers what needs no storage: types, scope, names, tables.
	meta *genericregistry.Store
	// open returns the store to read and delete with, opened on first use.
	open func() (*genericregistry.Store, error)
}

// NewReadDelete returns the read and delete only storage of store.
func NewReadDelete(store *genericregistry.Store) *ReadDelete {
	return &ReadDelete{meta: store, open: func() (*genericregistry.Store, error) { return store, nil }}
}

// NewLazyReadDelete returns the read and delete only storage of a resource
// whose store is opened (connected to etcd) only when a request first
// needs it: meta is the same resource's store built on no storage, for
// what needs none; open returns the opened store, and is called on every
// request (it must cache).
func NewLazyReadDelete(meta *genericregistry.Store, open func() (*genericregistry.Store, error)) *ReadDelete {
	return &ReadDelete{meta: meta, open: open}
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
	_ rest.Updater              = &ReadDelete{}
	_ rest.Patcher              = &ReadDelete{}
)

func (r *ReadDelete) store() (*genericregistry.Store, error) {
	s, err := r.open()
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("opening the storage of %s: %w", r.meta.DefaultQualifiedResource.String(), err))
	}
	return s, nil
}

// New returns an empty object of the resource.
func (r *ReadDelete) New() runtime.Object { return r.meta.New() }

// Destroy does nothing: the store is shared with the lifecycle's tasks,
// whose owner destroys it.
func (r *ReadDelete) Destroy() {}

// NamespaceScoped reports whether the resource is namespaced.
func (r *ReadDelete) NamespaceScoped() bool { return r.meta.NamespaceScoped() }

// GetSingularName returns the resource's singular name.
func (r *ReadDelete) GetSingularName() string { return r.meta.GetSingularName() }

// Get returns one stored object.
func (r *ReadDelete) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, name, options)
}

// NewList returns an empty list of the resource.
func (r *ReadDelete) NewList() runtime.Object { return r.meta.NewList() }

// List lists the stored objects.
func (r *ReadDelete) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	return s.List(ctx, options)
}

// ConvertToTable is the resource's own table convertor (kubectl get).
func (r *ReadDelete) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.meta.ConvertToTable(ctx, object, tableOptions)
}

// Watch watches the stored objects.
func (r *ReadDelete) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	return s.Watch(ctx, options)
}

// Delete deletes one object through the store (graceful deletion and
// finalizers as the resource's strategy says).
func (r *ReadDelete) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	s, err := r.store()
	if err != nil {
		return nil, false, err
	}
	return s.Delete(ctx, name, deleteValidation, options)
}

// DeleteCollection deletes the objects a list selects.
func (r *ReadDelete) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	return s.DeleteCollection(ctx, deleteValidation, options, listOptions)
}

// Update updates one object if the update only removes finalizers from
// it; any other change is refused with 405 Method Not Allowed and the
// reason. It never creates an object.
func (r *ReadDelete) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	s, err := r.store()
	if err != nil {
		return nil, false, err
	}
	refuse := func(context.Context, runtime.Object) error {
		return r.refusal(ctx, name, "it would create an object")
	}
	return s.Update(ctx, name, &finalizersOnly{UpdatedObjectInfo: objInfo, refuse: func(why string) error { return r.refusal(ctx, name, why) }},
		refuse, updateValidation, false, options)
}

// refusal is the error of an update that does more than remove
// finalizers: the handler's refusal of the request, if it put one in ctx,
// with the reason appended.
func (r *ReadDelete) refusal(ctx context.Context, name, why string) error {
	gr := r.meta.DefaultQualifiedResource
	msg := fmt.Sprintf("%s: update is not allowed: the resource is served only to read and delete the objects stored while its Feature was on", gr.String())
	if base, ok := ctx.Value(refusalKey{}).(string); ok {
		msg = base
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: name},
		Message: msg + "; an update or patch may only remove finalizers (" + why + ")",
	}}
}

// refusalKey keys, in a request's context, the message the handler refuses
// a write with.
type refusalKey struct{}

// finalizersOnly is an update's new object, refused unless it differs from
// the stored one only by finalizers it no longer lists.
type finalizersOnly struct {
	rest.UpdatedObjectInfo
	refuse func(why string) error
}

// UpdatedObject returns the new object if all it changes is to remove
// finalizers.
func (f *finalizersOnly) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := f.UpdatedObjectInfo.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return nil, err
	}
	newMeta, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	for _, fin := range newMeta.GetFinalizers() {
		if !slices.Contains(oldMeta.GetFinalizers(), fin) {
			return nil, f.refuse("it adds finalizer " + fin)
		}
	}
	if !equality.Semantic.DeepEqual(withoutWrittenMeta(old), withoutWrittenMeta(obj)) {
		return nil, f.refuse("it changes more than metadata.finalizers")
	}
	return obj, nil
}

// withoutWrittenMeta returns a copy of obj without its finalizers and the
// metadata every write sets (resourceVersion, managedFields).
func withoutWrittenMeta(obj runtime.Object) runtime.Object {
	c := obj.DeepCopyObject()
	if m, err := meta.Accessor(c); err == nil {
		m.SetFinalizers(nil)
		m.SetResourceVersion("")
		m.SetManagedFields(nil)
	}
	return c
}
