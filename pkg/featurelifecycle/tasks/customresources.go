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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

// maxTaskName bounds task names (DNS labels).
const maxTaskName = 63

// customConflictRetries is how many times a rewrite of one custom resource
// reads it again after a conflict before the pass leaves it to the next.
const customConflictRetries = 3

// crdResource is the resource of CustomResourceDefinitions.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CustomResources is a task of a third party's Disabling for one CRD whose
// CustomResourceFeatureBinding binds fields, values or its kind to the
// Feature (pkg/api/customresourcefeaturebinding). Each CRD gets up to two,
// in this order:
//
//   - clear-<crd>, for the fields and values bound with whenStored Clear:
//     every stored custom resource that holds one is rewritten without it
//     through the API (its CRD's REST storage: conversion, validation,
//     optimistic concurrency; the FeatureCustomFields admission plugin
//     drops the fields of concurrent writes meanwhile). A custom resource
//     is pruned on read by its schema, and the field is still in the
//     schema, so a stored field would come back: every object holding one
//     is rewritten. The task is done after a pass that found nothing left
//     to clear.
//   - wait-for-no-<crd>, for the fields and values bound with whenStored
//     Hold and for the kind: the task holds the transition until a pass
//     finds no object that holds one (of the kind: no object at all), and
//     names up to ten of them, as WaitForAbsence does for built-in gates'
//     refused values. It changes and deletes nothing: the owners change or
//     delete the objects, and no new one can be written with what is bound
//     while the Feature is off.
//
// Each step reads the CRD (its served version, kind and status
// subresource) and one page (Env.Migration.PageSize) of its objects with
// Env.Dynamic, and checkpoints the continue token, so a new leader resumes
// mid-pass; a clearing page's rewrites run Env.Migration.Workers at a time
// and share the apiserver's migration rate limit (Env.Limiter). A CRD that
// no longer exists stores nothing: the task is done.
type CustomResources struct {
	// CRD is the CRD's name, <plural>.<group>, as its binding's.
	CRD string
	// Bindings are the bindings of the CRD to the Feature that the task
	// clears, or holds.
	Bindings []featuresv1alpha1.CustomResourceFieldBinding
	// Hold says that the task holds instead of clearing.
	Hold bool
}

var _ Task = CustomResources{}

// CustomResourceTasks returns the tasks of a Feature's Disabling for the
// bindings of the CRD crd to it: clear-<crd> for those that clear, then
// wait-for-no-<crd> for those that hold and the kind.
func CustomResourceTasks(crd string, bindings []featuresv1alpha1.CustomResourceFieldBinding) []Task {
	clear, hold := CustomResources{CRD: crd}, CustomResources{CRD: crd, Hold: true}
	for _, b := range bindings {
		if b.Path != "" && b.WhenStored != featuresv1alpha1.CustomResourceWhenStoredHold {
			clear.Bindings = append(clear.Bindings, b)
		} else {
			hold.Bindings = append(hold.Bindings, b)
		}
	}
	var out []Task
	for _, t := range []CustomResources{clear, hold} {
		if len(t.Bindings) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// CustomResourcesTaskName returns the name of the task of crd: "clear-" or
// "wait-for-no-" and the CRD's name with dashes for dots.
func CustomResourcesTaskName(crdName string, hold bool) string {
	prefix := "clear-"
	if hold {
		prefix = "wait-for-no-"
	}
	name := prefix + strings.ReplaceAll(crdName, ".", "-")
	if len(name) > maxTaskName {
		name = strings.TrimRight(name[:maxTaskName], "-")
	}
	return name
}

// IsCustomResourcesTaskName says whether name is the name of a
// CustomResources task.
func IsCustomResourcesTaskName(name string) bool {
	return strings.HasPrefix(name, "clear-") || strings.HasPrefix(name, "wait-for-no-")
}

// kind says whether the kind itself is bound.
func (c CustomResources) kind() bool {
	for _, b := range c.Bindings {
		if b.Path == "" {
			return true
		}
	}
	return false
}

// what names the fields and values the task clears or holds, e.g.
// `spec.color or spec.size "Huge"`.
func (c CustomResources) what() string {
	var what []string
	for i := range c.Bindings {
		if c.Bindings[i].Path != "" {
			what = append(what, crbinding.Describe(&c.Bindings[i], ""))
		}
	}
	return strings.Join(what, " or ")
}

// Name returns the task's name.
func (c CustomResources) Name() string { return CustomResourcesTaskName(c.CRD, c.Hold) }

// Description says what the task does.
func (c CustomResources) Description() string {
	switch {
	case !c.Hold:
		return fmt.Sprintf("Rewrites every stored %s that holds %s without it.", c.CRD, c.what())
	case c.kind():
		return fmt.Sprintf("Waits until no %s is left: the kind belongs to the feature, and none can be created while it is off.", c.CRD)
	}
	return fmt.Sprintf("Waits until no stored %s holds %s: its owner changes or deletes it.", c.CRD, c.what())
}

// holds says whether obj holds a bound field or value (any object, when
// the kind is bound).
func (c CustomResources) holds(obj *unstructured.Unstructured) bool {
	for i := range c.Bindings {
		if c.Bindings[i].Path == "" || crbinding.Holds(&c.Bindings[i], obj.Object) {
			return true
		}
	}
	return false
}

// Step reads the CRD, then one page of its objects: it clears the page, or
// counts what the page holds.
func (c CustomResources) Step(ctx context.Context, env Env, _ *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, _ time.Time) (Outcome, error) {
	if env.Dynamic == nil {
		return Outcome{}, fmt.Errorf("no client to read %s with", c.CRD)
	}
	u, err := env.Dynamic.Resource(crdResource).Get(ctx, c.CRD, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Outcome{Done: true, Message: fmt.Sprintf("the custom resource definition %s does not exist: nothing is stored", c.CRD)}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("reading the custom resource definition %s: %w", c.CRD, err)
	}
	crd := crbinding.FromUnstructured(u)
	if c.Hold {
		return c.waitForNone(ctx, env, crd, t)
	}
	return c.clearPage(ctx, env, crd, t)
}

// customCheckpoint is the state of a pass of a clearing task.
type customCheckpoint struct {
	// Pass numbers the passes, from 1.
	Pass int64 `json:"pass"`
	// Continue is the continue token of the next page.
	Continue string `json:"continue,omitempty"`
	// Read, Cleared and Failed count the objects of the pass: read,
	// rewritten without the fields, left after repeated conflicts.
	Read    int64 `json:"read"`
	Cleared int64 `json:"cleared"`
	Failed  int64 `json:"failed"`
	// Total counts the objects cleared in every pass.
	Total int64 `json:"total"`
}

// clearPage reads one page and rewrites what it holds without it.
func (c CustomResources) clearPage(ctx context.Context, env Env, crd crbinding.CRD, t featuresv1alpha1.FeatureTask) (Outcome, error) {
	logger := klog.FromContext(ctx).WithValues("task", c.Name(), "resource", crd.Resource.String())
	cp := customCheckpoint{Pass: 1}
	if t.Checkpoint != "" {
		if err := json.Unmarshal([]byte(t.Checkpoint), &cp); err != nil || cp.Pass < 1 {
			logger.Info("Unreadable checkpoint; starting a new pass", "err", err)
			cp = customCheckpoint{Pass: 1}
		}
	}
	resource := env.Dynamic.Resource(crd.Resource)
	list, err := c.list(ctx, env, resource, &cp.Continue)
	if err != nil {
		return Outcome{}, err
	}
	limiter := env.Limiter
	if limiter == nil {
		limiter = migrator.SharedLimiter(env.Migration)
	}
	var held []*unstructured.Unstructured
	for i := range list.Items {
		cp.Read++
		if c.holds(&list.Items[i]) {
			held = append(held, &list.Items[i])
		}
	}
	// The page's rewrites are independent round trips through the API:
	// Env.Migration.Workers of them at once, as the built-in migrator.
	var nextObject, cleared, failed atomic.Int64
	var wg sync.WaitGroup
	for range min(env.Migration.WithDefaults().Workers, len(held)) {
		wg.Go(func() {
			for i := nextObject.Add(1) - 1; i < int64(len(held)) && ctx.Err() == nil; i = nextObject.Add(1) - 1 {
				if err := c.clear(ctx, crd, resource, held[i], limiter); err != nil {
					logger.V(2).Info("Not cleared in this pass", "object", klog.KObj(held[i]), "err", err)
					failed.Add(1)
					continue
				}
				cleared.Add(1)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	cp.Cleared += cleared.Load()
	cp.Total += cleared.Load()
	cp.Failed += failed.Load()
	progress := fmt.Sprintf("pass %d: %d %s read, %d cleared", cp.Pass, cp.Read, c.CRD, cp.Cleared)
	if cp.Failed > 0 {
		progress += fmt.Sprintf(", %d left to the next pass", cp.Failed)
	}
	if cp.Continue != "" {
		return Outcome{Progress: progress, Message: fmt.Sprintf("clearing %s from every stored %s", c.what(), c.CRD), Checkpoint: encodeCustom(cp), RequeueAfter: time.Millisecond}, nil
	}
	if cp.Cleared == 0 && cp.Failed == 0 {
		logger.V(2).Info("Nothing left to clear", "pass", cp.Pass, "read", cp.Read, "cleared", cp.Total)
		return Outcome{Done: true, Progress: progress,
			Message: fmt.Sprintf("%d %s cleared; a last pass over %d found nothing left", cp.Total, c.CRD, cp.Read)}, nil
	}
	// A pass that cleared something is checked by another: a write
	// admitted before this apiserver saw the Feature off may have set a
	// field again.
	next := customCheckpoint{Pass: cp.Pass + 1, Total: cp.Total}
	return Outcome{Progress: progress, Message: fmt.Sprintf("%d %s cleared so far; checking again", cp.Total, c.CRD), Checkpoint: encodeCustom(next), RequeueAfter: time.Millisecond}, nil
}

// list reads the page at *cont and sets *cont to the next one; a continue
// token that expired starts the pass's reading over from the start.
func (c CustomResources) list(ctx context.Context, env Env, resource dynamic.NamespaceableResourceInterface, cont *string) (*unstructured.UnstructuredList, error) {
	pageSize := env.Migration.PageSize
	if pageSize <= 0 {
		pageSize = DefaultAbsencePageSize
	}
	list, err := resource.List(ctx, metav1.ListOptions{Limit: pageSize, Continue: *cont})
	if apierrors.IsResourceExpired(err) && *cont != "" {
		list, err = resource.List(ctx, metav1.ListOptions{Limit: pageSize})
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", c.CRD, err)
	}
	*cont = list.GetContinue()
	return list, nil
}

// clear rewrites obj without the bound fields and values it holds: the
// resource without spec's, the status subresource (when the CRD has one)
// without status's. On a conflict it reads the object again.
func (c CustomResources) clear(ctx context.Context, crd crbinding.CRD, resource dynamic.NamespaceableResourceInterface, obj *unstructured.Unstructured, limiter flowcontrol.RateLimiter) error {
	client, name := resource.Namespace(obj.GetNamespace()), obj.GetName()
	for attempt := 0; ; attempt++ {
		var main, status bool
		for i := range c.Bindings {
			b := &c.Bindings[i]
			if !crbinding.Holds(b, obj.Object) {
				continue
			}
			fields := crbinding.Fields(b)
			unstructured.RemoveNestedField(obj.Object, fields...)
			if fields[0] == "status" && crd.Status {
				status = true
			} else {
				main = true
			}
		}
		var err error
		if main {
			limiter.Accept()
			var updated *unstructured.Unstructured
			if updated, err = client.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "feature-lifecycle"}); err == nil {
				obj = updated
			}
		}
		if err == nil && status {
			limiter.Accept()
			_, err = client.UpdateStatus(ctx, obj, metav1.UpdateOptions{FieldManager: "feature-lifecycle"})
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) || attempt == customConflictRetries {
			return err
		}
		if obj, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
	}
}

// waitForNone reads a page and, at the end of a pass, is done if the pass
// found no object that holds what is bound (none at all, for the kind), or
// names up to ten and checks again later, as WaitForAbsence does.
func (c CustomResources) waitForNone(ctx context.Context, env Env, crd crbinding.CRD, t featuresv1alpha1.FeatureTask) (Outcome, error) {
	cp := absenceCheckpoint{Pass: 1}
	if t.Checkpoint != "" {
		if err := json.Unmarshal([]byte(t.Checkpoint), &cp); err != nil || cp.Pass < 1 {
			cp = absenceCheckpoint{Pass: 1}
		}
	}
	list, err := c.list(ctx, env, env.Dynamic.Resource(crd.Resource), &cp.Continue)
	if err != nil {
		return Outcome{}, err
	}
	for i := range list.Items {
		cp.Read++
		if c.holds(&list.Items[i]) {
			cp.note(list.Items[i].GetNamespace(), list.Items[i].GetName())
		}
	}
	progress := fmt.Sprintf("pass %d: %d %s read, %d hold what the feature gates", cp.Pass, cp.Read, c.CRD, cp.Matched)
	if c.kind() {
		progress = fmt.Sprintf("pass %d: %d %s read", cp.Pass, cp.Read, c.CRD)
	}
	if cp.Continue != "" {
		message := t.Message
		if cp.Pass == 1 {
			message = fmt.Sprintf("reading %s", c.CRD)
		}
		return Outcome{Progress: progress, Message: message, Checkpoint: cp.encode(), RequeueAfter: absencePageInterval}, nil
	}
	if cp.Matched == 0 {
		if c.kind() {
			return Outcome{Done: true, Progress: progress, Message: fmt.Sprintf("no %s is left", c.CRD)}, nil
		}
		return Outcome{Done: true, Progress: progress, Message: fmt.Sprintf("no stored %s holds %s", c.CRD, c.what())}, nil
	}
	var message string
	switch {
	case c.kind() && cp.Matched == 1:
		message = cp.message(c.CRD, "is left: delete it to turn the feature off")
	case c.kind():
		message = cp.message(c.CRD, "are left: delete them to turn the feature off")
	case cp.Matched == 1:
		message = cp.message(c.CRD, fmt.Sprintf("holds %s: change or delete it to turn the feature off", c.what()))
	default:
		message = cp.message(c.CRD, fmt.Sprintf("hold %s: change or delete them to turn the feature off", c.what()))
	}
	next := absenceCheckpoint{Pass: cp.Pass + 1}
	return Outcome{Progress: progress, Message: message, Checkpoint: next.encode(), RequeueAfter: AbsenceRecheckInterval}, nil
}

// encodeCustom returns a checkpoint as JSON.
func encodeCustom(cp customCheckpoint) string {
	b, err := json.Marshal(cp)
	if err != nil {
		// A struct of strings and integers always marshals.
		panic(err)
	}
	return string(b)
}
