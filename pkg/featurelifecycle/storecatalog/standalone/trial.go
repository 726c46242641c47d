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
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// TrialGetter is a RESTOptionsGetter for stores that run updates without
// storage (TryUpdate): for learning what a resource's update path, and its
// status subresource's, does to an object. A store built on it has
// upstream's strategies; its storage runs an update's function on the old
// object TryUpdate hands it and stores nothing. Any other storage call
// panics.
type TrialGetter struct{}

// GetRESTOptions returns options whose storage is a trial storage.
func (TrialGetter) GetRESTOptions(gr schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return optionsWithStorage(gr, trialStorage{}), nil
}

// errTrialDone ends a trial update once the store's update function ran.
var errTrialDone = errors.New("trial update done")

// trialKey is the context key of a trial update.
type trialKey struct{}

// trial is a trial update's old object, and what came of it.
type trial struct {
	old runtime.Object
	// ran reports whether the update function ran; err is what it returned.
	ran bool
	err error
}

// trialResourceVersion is the resourceVersion of both objects of a trial.
const trialResourceVersion = 1

// trialStorage is the storage of a store built on TrialGetter.
type trialStorage struct {
	storage.Interface
}

// Versioner returns the API object versioner.
func (trialStorage) Versioner() storage.Versioner { return storage.APIObjectVersioner{} }

// GuaranteedUpdate runs tryUpdate once on a copy of the trial's old object.
func (trialStorage) GuaranteedUpdate(ctx context.Context, _ string, _ runtime.Object, _ bool,
	_ *storage.Preconditions, tryUpdate storage.UpdateFunc, _ runtime.Object) error {
	t, ok := ctx.Value(trialKey{}).(*trial)
	if !ok {
		return errors.New("a store built on TrialGetter was updated outside of TryUpdate")
	}
	_, _, t.err = tryUpdate(t.old.DeepCopyObject(), storage.ResponseMeta{ResourceVersion: trialResourceVersion})
	t.ran = true
	return errTrialDone
}

// updatedObject is the rest.UpdatedObjectInfo of a trial: the new object
// itself, which the strategy prepares in place.
type updatedObject struct{ obj runtime.Object }

func (updatedObject) Preconditions() *metav1.Preconditions { return nil }

func (u updatedObject) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return u.obj, nil
}

// TryUpdate runs the update of old to a copy of obj, internal objects with
// the same name and namespace, through updater – a store, or a
// subresource such as a status, built on TrialGetter – in ctx (the
// request's namespace, user and request info) and returns the copy as the
// strategy prepared it, with validation's refusal of it (an Invalid
// error), or nil. err is set, and the copy nil, when the update stopped
// before the strategy prepared the object. Nothing is stored.
func TryUpdate(ctx context.Context, updater rest.Updater, old, obj runtime.Object) (prepared runtime.Object, refusal, err error) {
	old, prepared = old.DeepCopyObject(), obj.DeepCopyObject()
	for _, o := range []runtime.Object{old, prepared} {
		a, err := meta.Accessor(o)
		if err != nil {
			return nil, nil, err
		}
		a.SetResourceVersion(fmt.Sprint(trialResourceVersion))
	}
	t := &trial{old: old}
	name := prepared.(metav1.Object).GetName()
	_, _, err = updater.Update(context.WithValue(ctx, trialKey{}, t), name, updatedObject{obj: prepared}, nil, nil, false, &metav1.UpdateOptions{})
	switch {
	case !t.ran:
		return nil, nil, fmt.Errorf("the update did not reach storage: %w", err)
	case t.err != nil && !apierrors.IsInvalid(t.err):
		return nil, nil, fmt.Errorf("the update was refused before validation: %w", t.err)
	}
	return prepared, t.err, nil
}

// StatusWriter returns what writes r's status, and the subresource it
// serves: r's status subresource, or r's own store when it has none (then
// status is written with the rest of the object).
func StatusWriter(r storecatalog.Resource) (rest.Updater, string) {
	if r.Status != nil {
		return r.Status, "status"
	}
	return r.Store, ""
}

// StatusField returns the status field of obj, an internal API object, and
// whether it has one.
func StatusField(obj runtime.Object) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.Elem().FieldByName("Status")
	return f, f.IsValid()
}
