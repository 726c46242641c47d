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

package servewhiledisabling

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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
)

// Storage returns storage, the REST storage of a resource its provider
// builds only while gate is on, as it is served while gate is off: read and
// delete only while gate's Feature is Disabling in states, not served
// otherwise (see ReadDelete). Its subresources are not served.
func Storage(states *featurestates.Registry, gate featuregate.Feature, storage rest.Storage) rest.Storage {
	return newReadDelete(states, string(gate), storage)
}

// ReadDelete is the REST storage of a resource served while its Feature is
// turning off: the resource's own REST storage (upstream's strategy, its
// delete rules and finalizers, its table) with only get, list, watch,
// delete and deletecollection, and updates (and patches) that do nothing
// but remove finalizers: a deleted object whose finalizer's controller no
// longer runs (it is gated too) would otherwise stay stored, terminating,
// for ever. A create, and any other update, is refused with 405 Method Not
// Allowed and the reason. It is served (rest.ConditionallyServed) only
// while the Feature of its gate is Disabling.
type ReadDelete struct {
	registry *featurestates.Registry
	gate     string
	resource schema.GroupResource
	// storage is the resource's REST storage; store its registry store, if
	// it has one.
	storage rest.Storage
	store   *genericregistry.Store
}

var (
	_ rest.Storage                  = &ReadDelete{}
	_ rest.Scoper                   = &ReadDelete{}
	_ rest.SingularNameProvider     = &ReadDelete{}
	_ rest.ShortNamesProvider       = &ReadDelete{}
	_ rest.CategoriesProvider       = &ReadDelete{}
	_ rest.Getter                   = &ReadDelete{}
	_ rest.Lister                   = &ReadDelete{}
	_ rest.Watcher                  = &ReadDelete{}
	_ rest.GracefulDeleter          = &ReadDelete{}
	_ rest.CollectionDeleter        = &ReadDelete{}
	_ rest.Creater                  = &ReadDelete{}
	_ rest.Updater                  = &ReadDelete{}
	_ rest.Patcher                  = &ReadDelete{}
	_ rest.ConditionallyServed      = &ReadDelete{}
	_ genericregistry.StoreAccessor = &ReadDelete{}
)

func newReadDelete(registry *featurestates.Registry, gate string, storage rest.Storage) *ReadDelete {
	r := &ReadDelete{registry: registry, gate: gate, storage: storage}
	if a, ok := storage.(genericregistry.StoreAccessor); ok {
		r.store = a.RegistryStore()
	}
	if r.store != nil {
		r.resource = r.store.DefaultQualifiedResource
	}
	return r
}

// Gate returns the gate whose Feature, while Disabling, serves the resource.
func (r *ReadDelete) Gate() string { return r.gate }

// Served reports whether the resource is served: while the Feature of its
// gate is Disabling.
func (r *ReadDelete) Served() bool { return r.registry.Disabling(r.gate) }

// AddServedHandler registers f, called after the Feature of the gate enters
// or leaves Disabling. The API installer calls it: from then on the
// resource's served gauge follows too.
func (r *ReadDelete) AddServedHandler(f func()) {
	RegisterMetrics()
	gauge := servedGauge.WithLabelValues(r.resource.Group, r.resource.Resource, r.gate)
	r.registry.AddHandler(r.gate, func(turningOff bool) {
		gauge.Set(gaugeValue(turningOff))
		f()
	})
	gauge.Set(gaugeValue(r.Served()))
}

// RegistryStore returns the resource's registry store
// (genericregistry.StoreAccessor), nil if it has none.
func (r *ReadDelete) RegistryStore() *genericregistry.Store { return r.store }

// New returns an empty object of the resource.
func (r *ReadDelete) New() runtime.Object { return r.storage.New() }

// Destroy destroys the resource's storage.
func (r *ReadDelete) Destroy() { r.storage.Destroy() }

// NamespaceScoped reports whether the resource is namespaced.
func (r *ReadDelete) NamespaceScoped() bool {
	s, ok := r.storage.(rest.Scoper)
	return ok && s.NamespaceScoped()
}

// GetSingularName returns the resource's singular name.
func (r *ReadDelete) GetSingularName() string {
	if s, ok := r.storage.(rest.SingularNameProvider); ok {
		return s.GetSingularName()
	}
	return ""
}

// ShortNames returns the resource's short names, as upstream lists them.
func (r *ReadDelete) ShortNames() []string {
	if s, ok := r.storage.(rest.ShortNamesProvider); ok {
		return s.ShortNames()
	}
	return nil
}

// Categories returns the resource's categories, as upstream lists them.
func (r *ReadDelete) Categories() []string {
	if s, ok := r.storage.(rest.CategoriesProvider); ok {
		return s.Categories()
	}
	return nil
}

// unsupported is the error of a verb the resource's storage does not serve.
func unsupported(r *ReadDelete, verb string) error {
	return apierrors.NewMethodNotSupported(r.resource, verb)
}

// Get returns one stored object.
func (r *ReadDelete) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	s, ok := r.storage.(rest.Getter)
	if !ok {
		return nil, unsupported(r, "get")
	}
	return s.Get(ctx, name, options)
}

// NewList returns an empty list of the resource.
func (r *ReadDelete) NewList() runtime.Object {
	if s, ok := r.storage.(rest.Lister); ok {
		return s.NewList()
	}
	return nil
}

// List lists the stored objects.
func (r *ReadDelete) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	s, ok := r.storage.(rest.Lister)
	if !ok {
		return nil, unsupported(r, "list")
	}
	return s.List(ctx, options)
}

// ConvertToTable is the resource's own table convertor (kubectl get).
func (r *ReadDelete) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	if s, ok := r.storage.(rest.TableConvertor); ok {
		return s.ConvertToTable(ctx, object, tableOptions)
	}
	return rest.NewDefaultTableConvertor(r.resource).ConvertToTable(ctx, object, tableOptions)
}

// Watch watches the stored objects.
func (r *ReadDelete) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	s, ok := r.storage.(rest.Watcher)
	if !ok {
		return nil, unsupported(r, "watch")
	}
	return s.Watch(ctx, options)
}

// Delete deletes one object (graceful deletion and finalizers as the
// resource's strategy says).
func (r *ReadDelete) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	s, ok := r.storage.(rest.GracefulDeleter)
	if !ok {
		return nil, false, unsupported(r, "delete")
	}
	return s.Delete(ctx, name, deleteValidation, options)
}

// DeleteCollection deletes the objects a list selects.
func (r *ReadDelete) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	s, ok := r.storage.(rest.CollectionDeleter)
	if !ok {
		return nil, unsupported(r, "deletecollection")
	}
	return s.DeleteCollection(ctx, deleteValidation, options, listOptions)
}

// Create refuses to create an object.
func (r *ReadDelete) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	name := ""
	if m, err := meta.Accessor(obj); err == nil {
		name = m.GetName()
	}
	return nil, refusal(r, "create", name, "")
}

// Update updates one object if the update only removes finalizers from
// it; any other change is refused with 405 Method Not Allowed and the
// reason. It never creates an object.
func (r *ReadDelete) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	verb := "update"
	if info, ok := request.RequestInfoFrom(ctx); ok && info.Verb != "" {
		verb = info.Verb
	}
	s, ok := r.storage.(rest.Updater)
	if !ok {
		return nil, false, refusal(r, verb, name, "")
	}
	refuse := func(why string) error { return refusal(r, verb, name, why) }
	noCreate := func(context.Context, runtime.Object) error { return refuse("it would create an object") }
	return s.Update(ctx, name, &finalizersOnly{UpdatedObjectInfo: objInfo, refuse: refuse}, noCreate, updateValidation, false, options)
}

// refusal is the error of a write that is not served while the Feature is
// Disabling; why, if set, says what an update does besides removing
// finalizers.
func refusal(r *ReadDelete, verb, name, why string) error {
	msg := fmt.Sprintf("%s: %s is not allowed: Feature %s/%s (gate %s) is %s, and its resource is served only to read and delete the objects stored while it was on (get, list, watch, delete, deletecollection, and updates that only remove finalizers)",
		r.resource.String(), verb, r.registry.Namespace(), featuresv1alpha1.FeatureName(r.gate), r.gate, featuresv1alpha1.FeatureStateDisabling)
	if why != "" {
		msg += ": " + why
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{Group: r.resource.Group, Kind: r.resource.Resource, Name: name},
		Message: msg,
	}}
}

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
