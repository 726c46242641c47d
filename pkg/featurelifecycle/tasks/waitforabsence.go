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
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/internal/ellipsis"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// Inspector is implemented by the tasks that look at stored objects of
// given resources (WaitForAbsence, ClearFields, ClearPodTemplateFields) so
// that a test harness can check the objects a feature stores without running
// the task: Holds reports whether an object (internal version) still holds
// what the task waits for or clears.
type Inspector interface {
	// Resources are the group-resources the task reads.
	Resources() []schema.GroupResource
	// Holds reports whether obj, an internal object of one of Resources,
	// uses the feature.
	Holds(obj runtime.Object) bool
}

const (
	// DefaultAbsencePageSize is how many objects one step of WaitForAbsence
	// reads when Env.Migration.PageSize is not set.
	DefaultAbsencePageSize = 500
	// AbsenceRecheckInterval is how long WaitForAbsence waits, after a pass
	// that found objects, before reading them all again.
	AbsenceRecheckInterval = 10 * time.Second
	// absencePageInterval is when to read the next page of a pass if no
	// event comes first (the status write of each page usually brings the
	// Feature back sooner).
	absencePageInterval = time.Second
	// maxSample is how many objects the message names.
	maxSample = 10
	// maxMessageBytes bounds the message (status.tasks[].message).
	maxMessageBytes = 1024
	// maxProgressBytes bounds the progress (status.tasks[].progress).
	maxProgressBytes = 256
	// sampleBytes bounds the names kept in the checkpoint and the message.
	sampleBytes = 768
)

// WaitForAbsence declares a task that holds the transition while stored
// objects of gr use the feature, and is done when a full pass over gr finds
// none. uses looks at one stored object in its internal version (for pods,
// *core.Pod). what names the use in a noun phrase for the message, e.g.
// "clusterTrustBundle volumes".
//
// The task never deletes or changes anything: deciding what to do with the
// objects is the cluster admin's job, and the message says which objects to
// delete or change, for example
//
//	3 pods in 2 namespaces use clusterTrustBundle volumes: ns-a/p1, ns-a/p2, ns-b/p3
//
// Each step reads one page (Env.Migration.PageSize objects, 500 by default)
// through the resource's registry store from storage (Env.Stores, no watch
// cache) and checkpoints the continue token with the counts so far, so the
// work of a step is bounded whatever the size of the cluster and a new leader
// resumes mid-pass. A pass is a scan in key order; if its snapshot is
// compacted between two steps it continues, inconsistently, at the latest
// revision: that is safe because, once every apiserver has the gate off,
// objects cannot start using the feature (the registry strategies drop
// disabled fields on create), so a use missed by the scan cannot appear.
//
// The returned Task also implements Inspector.
func WaitForAbsence[T runtime.Object](name, description string, gr schema.GroupResource, what string, uses func(T) bool) Task {
	return &waitForAbsence[T]{name: name, description: description, gr: gr, what: what, uses: uses}
}

type waitForAbsence[T runtime.Object] struct {
	name, description string
	gr                schema.GroupResource
	what              string
	uses              func(T) bool
}

// absenceCheckpoint is the state of a pass kept in the task's checkpoint.
// Storage lists in key order (namespace/name), so a namespace's objects are
// contiguous and counting namespaces only needs the last one that matched.
type absenceCheckpoint struct {
	// Pass numbers the passes, from 1.
	Pass int64 `json:"pass"`
	// Continue is the continue token of the next page ("" at the start).
	Continue string `json:"continue,omitempty"`
	// Read and Matched count the objects read and using the feature.
	Read    int64 `json:"read"`
	Matched int64 `json:"matched"`
	// Namespaces counts the namespaces with matches; LastNamespace is the
	// namespace of the last match.
	Namespaces    int64  `json:"namespaces"`
	LastNamespace string `json:"lastNamespace,omitempty"`
	// Sample names the first matches, ns/name (name when cluster-scoped).
	Sample []string `json:"sample,omitempty"`
}

// Name returns the task's name.
func (w *waitForAbsence[T]) Name() string { return w.name }

// Description returns the task's description.
func (w *waitForAbsence[T]) Description() string { return w.description }

// Resources returns the resource the task reads.
func (w *waitForAbsence[T]) Resources() []schema.GroupResource {
	return []schema.GroupResource{w.gr}
}

// Validate returns the error of a bad declaration: no predicate, a resource
// catalog serves without a registry store, or a T that is not the
// resource's internal type.
func (w *waitForAbsence[T]) Validate(catalog *storecatalog.Catalog) error {
	if w.uses == nil {
		return fmt.Errorf("task %s: no predicate", w.name)
	}
	obj, err := catalog.NewObject(w.gr)
	if err != nil {
		return fmt.Errorf("task %s: %w", w.name, err)
	}
	if _, ok := obj.(T); !ok {
		var want T
		return fmt.Errorf("task %s: the predicate takes %T, but %s stores %T", w.name, want, w.gr, obj)
	}
	return nil
}

// Holds reports whether obj is a T that uses the feature.
func (w *waitForAbsence[T]) Holds(obj runtime.Object) bool {
	o, ok := obj.(T)
	return ok && w.uses(o)
}

// Step reads one page and, at the end of a pass, is done if the pass found
// no object using the feature, or holds the task and starts a new pass.
func (w *waitForAbsence[T]) Step(ctx context.Context, env Env, _ *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, _ time.Time) (Outcome, error) {
	logger := klog.FromContext(ctx).WithValues("task", w.name, "resource", w.gr.String())
	if env.Stores == nil {
		return Outcome{}, fmt.Errorf("no storage to read %s from", w.gr)
	}
	store, err := env.Stores.Store(w.gr)
	if migrator.IsNotServed(err) {
		return notServed(logger, err), nil
	}
	if err != nil {
		return Outcome{}, err
	}

	cp := absenceCheckpoint{Pass: 1}
	if t.Checkpoint != "" {
		if err := json.Unmarshal([]byte(t.Checkpoint), &cp); err != nil || cp.Pass < 1 {
			logger.Info("Unreadable checkpoint; starting a new pass", "err", err)
			cp = absenceCheckpoint{Pass: 1}
		}
	}

	pageSize := env.Migration.PageSize
	if pageSize <= 0 {
		pageSize = DefaultAbsencePageSize
	}
	list, err := store.List(ctx, &metainternalversion.ListOptions{Limit: pageSize, Continue: cp.Continue})
	if apierrors.IsResourceExpired(err) && cp.Continue != "" {
		// The pass's snapshot was compacted: go on at the latest revision
		// from the same key if storage offers it, else start the pass over.
		var status apierrors.APIStatus
		next := ""
		if errors.As(err, &status) {
			next = status.Status().Continue
		}
		logger.V(2).Info("Continue token expired", "resume", next != "")
		if next == "" {
			cp = absenceCheckpoint{Pass: cp.Pass}
		}
		list, err = store.List(ctx, &metainternalversion.ListOptions{Limit: pageSize, Continue: next})
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("listing %s: %w", w.gr, err)
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return Outcome{}, fmt.Errorf("listing %s: %w", w.gr, err)
	}
	var read, matched int64
	err = meta.EachListItem(list, func(item runtime.Object) error {
		read++
		o, ok := item.(T)
		if !ok {
			var want T
			return fmt.Errorf("%s holds %T, the task expects %T", w.gr, item, want)
		}
		if !w.uses(o) {
			return nil
		}
		matched++
		objMeta, err := meta.Accessor(item)
		if err != nil {
			return err
		}
		cp.note(objMeta.GetNamespace(), objMeta.GetName())
		return nil
	})
	if err != nil {
		return Outcome{}, err
	}
	cp.Read += read
	cp.Continue = migrator.AtLatestRevision(listMeta.GetContinue())
	logger.V(4).Info("Read a page", "pass", cp.Pass, "read", read, "matched", matched, "more", cp.Continue != "")

	progress := ellipsis.Shorten(fmt.Sprintf("pass %d: %d %s read, %d use %s", cp.Pass, cp.Read, w.gr, cp.Matched, w.what), maxProgressBytes, ellipsis.AtEnd)
	if cp.Continue != "" {
		message := t.Message
		if cp.Pass == 1 {
			message = fmt.Sprintf("reading %s for objects that use %s", w.gr, w.what)
		}
		return Outcome{Progress: progress, Message: ellipsis.Shorten(message, maxMessageBytes, ellipsis.AtEnd), Checkpoint: cp.encode(), RequeueAfter: absencePageInterval}, nil
	}

	// The pass is complete.
	if cp.Matched == 0 {
		logger.V(2).Info("No object uses the feature", "pass", cp.Pass, "read", cp.Read)
		return Outcome{Done: true, Progress: progress, Message: ellipsis.Shorten(fmt.Sprintf("no %s use %s", w.gr, w.what), maxMessageBytes, ellipsis.AtEnd)}, nil
	}
	message := w.message(store, cp)
	logger.V(2).Info("Objects still use the feature", "pass", cp.Pass, "read", cp.Read, "matched", cp.Matched, "namespaces", cp.Namespaces)
	next := absenceCheckpoint{Pass: cp.Pass + 1}
	return Outcome{Progress: progress, Message: message, Checkpoint: next.encode(), RequeueAfter: AbsenceRecheckInterval}, nil
}

// note records a match.
func (cp *absenceCheckpoint) note(namespace, name string) {
	cp.Matched++
	key := name
	if namespace != "" {
		key = namespace + "/" + name
		if namespace != cp.LastNamespace {
			cp.Namespaces++
			cp.LastNamespace = namespace
		}
	}
	if len(cp.Sample) >= maxSample {
		return
	}
	size := len(key)
	for _, s := range cp.Sample {
		size += len(s) + len(", ")
	}
	if size <= sampleBytes {
		cp.Sample = append(cp.Sample, key)
	}
}

func (cp absenceCheckpoint) encode() string {
	b, err := json.Marshal(cp)
	if err != nil {
		// A struct of strings and integers always marshals.
		panic(err)
	}
	return string(b)
}

// message says what to delete, e.g. "3 pods in 2 namespaces use
// clusterTrustBundle volumes: ns-a/p1, ns-a/p2, ns-b/p3".
func (w *waitForAbsence[T]) message(store migrator.Store, cp absenceCheckpoint) string {
	noun := w.gr.String()
	verb := "use"
	if cp.Matched == 1 {
		verb = "uses"
		if s, ok := store.(rest.SingularNameProvider); ok && s.GetSingularName() != "" {
			noun = schema.GroupResource{Group: w.gr.Group, Resource: s.GetSingularName()}.String()
		}
	}
	return cp.message(noun, verb+" "+w.what)
}

// message names the objects a pass found, e.g. "3 pods in 2 namespaces use
// clusterTrustBundle volumes: ns-a/p1, ns-a/p2, ns-b/p3": how many objects
// (noun), in how many namespaces, what they do, and the sample; bounded.
func (cp absenceCheckpoint) message(noun, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", cp.Matched, noun)
	if cp.Namespaces > 0 {
		namespaces := "namespaces"
		if cp.Namespaces == 1 {
			namespaces = "namespace"
		}
		fmt.Fprintf(&b, " in %d %s", cp.Namespaces, namespaces)
	}
	fmt.Fprintf(&b, " %s: %s", what, strings.Join(cp.Sample, ", "))
	if cp.Matched > int64(len(cp.Sample)) {
		b.WriteString(", ...")
	}
	return ellipsis.Shorten(b.String(), maxMessageBytes, ellipsis.AtEnd)
}

// notServed is the outcome of a task over a resource the apiserver does not
// serve (a migrator.NotServedError): done, its message saying that the
// resource's stored objects, if any, stay where no request reaches them,
// as the derived lifecycles leave such a resource out. The step of a
// Feature's transition that moved the apiserver there already warned about
// them: a Feature's DowngradeSafe condition names stored objects that a
// lower version would leave behind.
func notServed(logger klog.Logger, err error) Outcome {
	logger.Info("The apiserver does not serve the resource; the task has nothing to reach", "err", err)
	return Outcome{Done: true, Message: ellipsis.Shorten(err.Error(), maxMessageBytes, ellipsis.AtEnd)}
}
