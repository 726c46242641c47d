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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
	"k8s.io/kubernetes/pkg/featurelifecycle/internal/ellipsis"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

// maxTaskName bounds task names (DNS labels).
const maxTaskName = 63

// customConflictRetries is how many times a rewrite of one custom resource
// reads it again after a conflict before the pass leaves it to the next.
const customConflictRetries = 3

// CustomResources is the task of a third party's Disabling for one CRD
// that binds fields, values or its kind to the Feature (annotation
// features.k8s.io/gated-fields, pkg/featurelifecycle/crdbindings):
//
//   - fields and values: every stored custom resource that holds one is
//     rewritten without it through the API (its CRD's REST storage:
//     conversion, validation, optimistic concurrency; the FeatureCustomFields
//     admission plugin drops the fields of concurrent writes meanwhile). A
//     custom resource is pruned on read by its schema, and the field is
//     still in the schema, so a stored field would come back: every object
//     holding one is rewritten. The task is done after a pass that found
//     nothing left to clear.
//   - the kind: the task holds the transition until a pass finds no object
//     of the kind, and names them (as WaitForAbsence does). It deletes
//     nothing: the objects stay readable and deletable, and new ones cannot
//     be created.
//
// Each step reads one page (Env.Migration.PageSize) with Env.Dynamic and
// checkpoints the continue token, so a new leader resumes mid-pass; the
// page's rewrites run Env.Migration.Workers at a time and share the
// apiserver's migration rate limit (Env.Limiter).
type CustomResources struct {
	// CRD is the CRD.
	CRD crdbindings.CRD
	// Bindings are its bindings to the Feature.
	Bindings []crdbindings.Binding
}

var _ Task = CustomResources{}

// CustomResourcesTaskName returns the name of the task of crd: "clear-" or
// "wait-for-no-" and the CRD's name with dashes for dots.
func CustomResourcesTaskName(crdName string, kind bool) string {
	prefix := "clear-"
	if kind {
		prefix = "wait-for-no-"
	}
	name := prefix + strings.ReplaceAll(crdName, ".", "-")
	if len(name) > maxTaskName {
		name = strings.TrimRight(name[:maxTaskName], "-")
	}
	return name
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

// Name returns the task's name.
func (c CustomResources) Name() string { return CustomResourcesTaskName(c.CRD.Name, c.kind()) }

// Description says what the task does.
func (c CustomResources) Description() string {
	if c.kind() {
		return fmt.Sprintf("Waits until no %s (%s) is left: the kind belongs to the feature, and none can be created while it is off.", c.CRD.Kind, c.CRD.Name)
	}
	var what []string
	for _, b := range c.Bindings {
		what = append(what, b.Describe(c.CRD.Kind))
	}
	return fmt.Sprintf("Rewrites every stored %s (%s) that holds %s without it.", c.CRD.Kind, c.CRD.Name, strings.Join(what, ", "))
}

// customCheckpoint is the state of a pass of CustomResources.
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

// Step reads one page and clears it, or counts what is left of the kind.
func (c CustomResources) Step(ctx context.Context, env Env, _ *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, _ time.Time) (Outcome, error) {
	if env.Dynamic == nil {
		return Outcome{}, fmt.Errorf("no client to read %s with", c.CRD.Name)
	}
	if c.kind() {
		return c.waitForNone(ctx, env, t)
	}
	logger := klog.FromContext(ctx).WithValues("task", c.Name(), "resource", c.CRD.Resource.String())
	cp := customCheckpoint{Pass: 1}
	if t.Checkpoint != "" {
		if err := json.Unmarshal([]byte(t.Checkpoint), &cp); err != nil || cp.Pass < 1 {
			logger.Info("Unreadable checkpoint; starting a new pass", "err", err)
			cp = customCheckpoint{Pass: 1}
		}
	}
	resource := env.Dynamic.Resource(c.CRD.Resource)
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
				if err := c.clear(ctx, resource, held[i], limiter); err != nil {
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
	progress := fmt.Sprintf("pass %d: %d %s read, %d cleared", cp.Pass, cp.Read, c.CRD.Name, cp.Cleared)
	if cp.Failed > 0 {
		progress += fmt.Sprintf(", %d left to the next pass", cp.Failed)
	}
	if cp.Continue != "" {
		return Outcome{Progress: progress, Message: fmt.Sprintf("clearing %s", c.Description()), Checkpoint: encodeCustom(cp), RequeueAfter: time.Millisecond}, nil
	}
	if cp.Cleared == 0 && cp.Failed == 0 {
		logger.V(2).Info("Nothing left to clear", "pass", cp.Pass, "read", cp.Read, "cleared", cp.Total)
		return Outcome{Done: true, Progress: progress,
			Message: fmt.Sprintf("%d %s cleared; a last pass over %d found nothing left", cp.Total, c.CRD.Name, cp.Read)}, nil
	}
	// A pass that cleared something is checked by another: a write
	// admitted before this apiserver saw the Feature off may have set a
	// field again.
	next := customCheckpoint{Pass: cp.Pass + 1, Total: cp.Total}
	return Outcome{Progress: progress, Message: fmt.Sprintf("%d %s cleared so far; checking again", cp.Total, c.CRD.Name), Checkpoint: encodeCustom(next), RequeueAfter: time.Millisecond}, nil
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
		return nil, fmt.Errorf("listing %s: %w", c.CRD.Name, err)
	}
	*cont = list.GetContinue()
	return list, nil
}

// holds says whether obj holds a bound field or value.
func (c CustomResources) holds(obj *unstructured.Unstructured) bool {
	for _, b := range c.Bindings {
		if b.Holds(obj.Object) {
			return true
		}
	}
	return false
}

// clear rewrites obj without the bound fields and values it holds: the
// resource without spec's, the status subresource (when the CRD has one)
// without status's. On a conflict it reads the object again.
func (c CustomResources) clear(ctx context.Context, resource dynamic.NamespaceableResourceInterface, obj *unstructured.Unstructured, limiter flowcontrol.RateLimiter) error {
	client, name := resource.Namespace(obj.GetNamespace()), obj.GetName()
	for attempt := 0; ; attempt++ {
		var main, status bool
		for _, b := range c.Bindings {
			if !b.Holds(obj.Object) {
				continue
			}
			unstructured.RemoveNestedField(obj.Object, b.Fields()...)
			if b.Fields()[0] == "status" && c.CRD.Status {
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

// waitForNone reads a page of the kind and, at the end of a pass, is done
// if the pass found none, or names what is left and checks again later.
func (c CustomResources) waitForNone(ctx context.Context, env Env, t featuresv1alpha1.FeatureTask) (Outcome, error) {
	cp := absenceCheckpoint{Pass: 1}
	if t.Checkpoint != "" {
		if err := json.Unmarshal([]byte(t.Checkpoint), &cp); err != nil || cp.Pass < 1 {
			cp = absenceCheckpoint{Pass: 1}
		}
	}
	list, err := c.list(ctx, env, env.Dynamic.Resource(c.CRD.Resource), &cp.Continue)
	if err != nil {
		return Outcome{}, err
	}
	for i := range list.Items {
		cp.Read++
		cp.note(list.Items[i].GetNamespace(), list.Items[i].GetName())
	}
	progress := fmt.Sprintf("pass %d: %d %s read", cp.Pass, cp.Read, c.CRD.Name)
	if cp.Continue != "" {
		return Outcome{Progress: progress, Message: fmt.Sprintf("counting %s", c.CRD.Name), Checkpoint: cp.encode(), RequeueAfter: absencePageInterval}, nil
	}
	if cp.Matched == 0 {
		return Outcome{Done: true, Progress: progress, Message: fmt.Sprintf("no %s is left", c.CRD.Name)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s left: delete them to turn the feature off: %s", cp.Matched, c.CRD.Name, strings.Join(cp.Sample, ", "))
	if int64(len(cp.Sample)) < cp.Matched {
		b.WriteString(", …")
	}
	next := absenceCheckpoint{Pass: cp.Pass + 1}
	return Outcome{Progress: progress, Message: ellipsis.Shorten(b.String(), maxMessageBytes, ellipsis.AtEnd), Checkpoint: next.encode(), RequeueAfter: AbsenceRecheckInterval}, nil
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
