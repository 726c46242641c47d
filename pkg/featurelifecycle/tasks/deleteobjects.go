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

package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/internal/ellipsis"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// deleteRetryDelay is how long DeleteObjects waits after a pass that could
// not delete every object.
const deleteRetryDelay = 30 * time.Second

// DeleteObjects declares a task that deletes every stored object of gr
// through the resource's registry store (its strategy's delete rules and
// finalizers apply; dependents are left to the garbage collector), a page
// per step, and is done after a pass that deleted every object it read.
// It is meant for the objects of a resource served only while a feature
// is on, which nobody can reach through the API once the feature is off:
// wrap it in OptIn, since deleting data is the admin's call, and follow it
// with a WaitForAbsence of gr for objects that wait for finalizers.
//
// The returned task also implements Inspector: every object of gr holds,
// an object of example's type (gr's internal type, e.g. *storage.VolumeAttributesClass).
func DeleteObjects(name, description string, gr schema.GroupResource, example runtime.Object) Task {
	return &deleteObjects{name: name, description: description, gr: gr, kind: reflect.TypeOf(example)}
}

type deleteObjects struct {
	name, description string
	gr                schema.GroupResource
	kind              reflect.Type
}

// deleteCheckpoint is the state of a pass kept in the task's checkpoint.
type deleteCheckpoint struct {
	Pass     int64    `json:"pass"`
	Continue string   `json:"continue,omitempty"`
	Deleted  int64    `json:"deleted"`
	Failed   int64    `json:"failed"`
	Failures []string `json:"failures,omitempty"`
}

func (d *deleteObjects) Name() string        { return d.name }
func (d *deleteObjects) Description() string { return d.description }

// Resources returns the resource the task deletes.
func (d *deleteObjects) Resources() []schema.GroupResource { return []schema.GroupResource{d.gr} }

// Holds reports whether obj is an object of the resource: all of them go.
func (d *deleteObjects) Holds(obj runtime.Object) bool {
	return obj != nil && d.kind != nil && reflect.TypeOf(obj) == d.kind
}

// Validate returns the error of a resource catalog serves without a
// registry store, or whose objects are not of the declared type.
func (d *deleteObjects) Validate(catalog *storecatalog.Catalog) error {
	obj, err := catalog.NewObject(d.gr)
	if err != nil {
		return fmt.Errorf("task %s: %w", d.name, err)
	}
	if reflect.TypeOf(obj) != d.kind {
		return fmt.Errorf("task %s: declared with objects of type %v, but %s stores %T", d.name, d.kind, d.gr.String(), obj)
	}
	return nil
}

// Step lists one page and deletes its objects.
func (d *deleteObjects) Step(ctx context.Context, env Env, _ *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, _ time.Time) (Outcome, error) {
	logger := klog.FromContext(ctx).WithValues("task", d.name, "resource", d.gr.String())
	if env.Stores == nil {
		return Outcome{}, fmt.Errorf("task %s: this kube-apiserver lends no storage to tasks", d.name)
	}
	store, err := env.Stores.Store(d.gr)
	if migrator.IsNotServed(err) {
		return notServed(logger, err), nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("task %s: %w", d.name, err)
	}
	deleter, ok := store.(rest.GracefulDeleter)
	if !ok {
		return Outcome{}, fmt.Errorf("task %s: the store of %s cannot delete", d.name, d.gr.String())
	}
	cp := deleteCheckpoint{Pass: 1}
	if t.Checkpoint != "" {
		if err := json.Unmarshal([]byte(t.Checkpoint), &cp); err != nil || cp.Pass < 1 {
			cp = deleteCheckpoint{Pass: 1}
		}
	}
	pageSize := env.Migration.PageSize
	if pageSize <= 0 {
		pageSize = DefaultAbsencePageSize
	}
	list, err := store.List(ctx, &metainternalversion.ListOptions{Limit: pageSize, Continue: cp.Continue})
	if apierrors.IsResourceExpired(err) && cp.Continue != "" {
		cp.Continue = "" // deleted objects are gone: starting over is cheap
		list, err = store.List(ctx, &metainternalversion.ListOptions{Limit: pageSize})
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("task %s: listing %s: %w", d.name, d.gr.String(), err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return Outcome{}, err
	}
	for _, item := range items {
		a, err := meta.Accessor(item)
		if err != nil {
			return Outcome{}, err
		}
		key := a.GetName()
		if a.GetNamespace() != "" {
			key = a.GetNamespace() + "/" + key
		}
		uid := a.GetUID()
		background := metav1.DeletePropagationBackground
		_, _, err = deleter.Delete(migrator.RequestContext(ctx, migrator.ServedResource(d.gr, item), "delete", a.GetNamespace(), a.GetName()), a.GetName(), rest.ValidateAllObjectFunc,
			&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &background})
		switch {
		case err == nil:
			cp.Deleted++
			logger.V(2).Info("Deleted a stored object", "object", key)
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone, or replaced by a new object: not the one listed.
		default:
			cp.Failed++
			if len(cp.Failures) < maxSample {
				cp.Failures = append(cp.Failures, ellipsis.Shorten(fmt.Sprintf("%s: %v", key, err), 256, ellipsis.AtEnd))
			}
		}
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return Outcome{}, err
	}
	cp.Continue = migrator.AtLatestRevision(lm.GetContinue())
	progress := ellipsis.Shorten(fmt.Sprintf("pass %d: %d %s deleted, %d failed", cp.Pass, cp.Deleted, d.gr.String(), cp.Failed), maxProgressBytes, ellipsis.AtEnd)
	if cp.Continue != "" {
		return Outcome{Progress: progress, Checkpoint: encodeDelete(cp), RequeueAfter: absencePageInterval}, nil
	}
	if cp.Failed == 0 {
		return Outcome{Done: true, Progress: progress, Message: fmt.Sprintf("deleted %d %s", cp.Deleted, d.gr.String())}, nil
	}
	message := ellipsis.Shorten(fmt.Sprintf("%d %s could not be deleted; passing over them again: %s", cp.Failed, d.gr.String(), strings.Join(cp.Failures, "; ")), maxMessageBytes, ellipsis.AtEnd)
	return Outcome{Progress: progress, Message: message, Checkpoint: encodeDelete(deleteCheckpoint{Pass: cp.Pass + 1}), RequeueAfter: deleteRetryDelay}, nil
}

func encodeDelete(cp deleteCheckpoint) string {
	b, err := json.Marshal(cp)
	if err != nil {
		panic(err) // strings and integers always marshal
	}
	return string(b)
}
