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
	"reflect"
	"slices"
	"strings"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"

	"k8s.io/kubernetes/pkg/featurelifecycle/internal/ellipsis"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// clearFieldsRetryDelay is how long a ClearFields task waits after a pass
// over a resource that left objects it could not clear.
const clearFieldsRetryDelay = 30 * time.Second

// ClearFieldsTask is the ClearFields task kind: it runs the storage migrator
// over one resource, or over every resource that embeds a pod template, one
// page per step, until a full pass over each has cleared every object. It
// implements Inspector: a test harness asks it which resources it clears and
// whether a stored object still holds what the feature added.
type ClearFieldsTask struct {
	name, description string
	targets           []clearTarget
	err               error
	// words says what a write does in progress and messages: clearing
	// fields, or (for RewriteStorageTask) rewriting whole objects.
	words taskWords
}

// taskWords are the words a ClearFieldsTask reports its writes with.
type taskWords struct {
	// past is the past participle of the write ("cleared").
	past string
	// progress describes where the migration of a resource stands; label
	// names the resource, with its position when the task has several
	// ("statefulsets.apps (5/8)").
	progress func(label string, cp migrator.Checkpoint) string
	// done describes the finished task: written of seen objects of names.
	done func(written, seen int64, names string) string
}

// clearWords are the words of the ClearFields task kind.
var clearWords = taskWords{
	past: "cleared",
	progress: func(label string, cp migrator.Checkpoint) string {
		return fmt.Sprintf("%s: %s", label, cp.Progress())
	},
	done: func(written, seen int64, names string) string {
		return fmt.Sprintf("cleared %d of %d stored objects of %s", written, seen, names)
	},
}

var (
	_ Task      = &ClearFieldsTask{}
	_ Inspector = &ClearFieldsTask{}
)

// clearTarget is one resource a ClearFieldsTask clears.
type clearTarget struct {
	resource schema.GroupResource
	// subresource is "status" when the target writes through the
	// resource's status subresource, else "".
	subresource string
	// kind is the internal type of resource's objects, when known.
	kind reflect.Type
	// clear clears an internal object of resource in place.
	clear migrator.ClearFunc
	// holds, when set, reports without changing it whether clear would
	// change an internal object of resource.
	holds migrator.HoldsFunc
	// accepts reports whether obj is of the type clear takes.
	accepts func(obj runtime.Object) bool
}

// key names the target in checkpoints and messages: the group-resource,
// and "/status" when it writes status.
func (t clearTarget) key() string {
	if t.subresource != "" {
		return t.resource.String() + "/" + t.subresource
	}
	return t.resource.String()
}

// ClearFields declares a task that clears, from every stored object of
// resource, what a feature added: clear takes the resource's internal type
// (e.g. *apps.StatefulSet for apps.Resource("statefulsets")), clears the
// fields in place and reports whether it changed anything. A resource the
// apiserver serves without a registry store, or a T that is not the
// resource's internal type, makes Validate fail, and every Step, with an
// error saying so.
func ClearFields[T runtime.Object](name, description string, resource schema.GroupResource, clear func(T) bool) *ClearFieldsTask {
	c := &ClearFieldsTask{name: name, description: description, words: clearWords}
	if clear == nil {
		c.err = fmt.Errorf("task %s: no clear function", name)
	}
	c.targets = []clearTarget{{
		resource: resource,
		kind:     reflect.TypeFor[T](),
		accepts:  func(obj runtime.Object) bool { _, ok := obj.(T); return ok },
		clear: func(obj runtime.Object) bool {
			t, ok := obj.(T)
			return ok && clear(t)
		},
	}}
	return c
}

// ClearPodTemplateFields declares a task that clears, from the pod template
// of every stored object of migrator.PodTemplateResources (in that order),
// what a feature added to pod specs. Clearing a template changes it: the
// workload's controller may roll out new pods. Pods themselves are not
// covered (their spec is mostly immutable).
func ClearPodTemplateFields(name, description string, clear func(*api.PodSpec) bool) *ClearFieldsTask {
	c := &ClearFieldsTask{name: name, description: description, words: clearWords}
	if clear == nil {
		c.err = fmt.Errorf("task %s: no clear function", name)
	}
	for _, gr := range migrator.PodTemplateResources() {
		kind := migrator.PodTemplateType(gr)
		c.targets = append(c.targets, clearTarget{
			resource: gr,
			kind:     kind,
			accepts:  func(obj runtime.Object) bool { return reflect.TypeOf(obj) == kind },
			clear: func(obj runtime.Object) bool {
				spec, ok := migrator.PodTemplateSpec(obj)
				return ok && clear(spec)
			},
		})
	}
	return c
}

// FieldClearer is one resource a ClearFieldsOf task clears, and how.
type FieldClearer struct {
	// Resource is the group-resource cleared.
	Resource schema.GroupResource
	// Type is the internal type of Resource's objects (e.g.
	// *apps.Deployment): Clear and Holds are given only objects of it. Nil
	// gives them objects of any type (a task that rewrites whole objects).
	Type reflect.Type
	// Status makes the task write through the resource's status
	// subresource (storecatalog.Catalog.HasStatus), whose strategy keeps the spec and
	// writes the status: for fields under status, which the resource's own
	// strategy keeps as stored. A resource may be listed twice, once with
	// Status.
	Status bool
	// Clear clears an internal object of Resource in place and reports
	// whether it changed anything.
	Clear migrator.ClearFunc
	// Holds, optional, reports whether Clear would change an internal
	// object of Resource, without changing it: objects it says no to are
	// neither copied nor cleared (by the migrator and by the task's Holds).
	Holds migrator.HoldsFunc
}

// ClearFieldsOf declares a task that clears several resources, in order,
// each with its own function on the resource's internal type (see
// ClearFields): the tasks the lifecycle registry derives from the gate
// inventory. An unsupported resource, one listed twice or a missing
// function makes Validate and every Step fail with an error saying so.
func ClearFieldsOf(name, description string, targets []FieldClearer) *ClearFieldsTask {
	c := &ClearFieldsTask{name: name, description: description, words: clearWords}
	if len(targets) == 0 {
		c.err = fmt.Errorf("task %s: no resource to clear", name)
	}
	seen := map[string]bool{}
	for _, t := range targets {
		target := clearTarget{resource: t.Resource}
		if t.Status {
			target.subresource = "status"
		}
		switch {
		case t.Clear == nil:
			c.err = fmt.Errorf("task %s: no clear function for %s", name, target.key())
			continue
		case seen[target.key()]:
			c.err = fmt.Errorf("task %s: %s is listed twice", name, target.key())
			continue
		}
		seen[target.key()] = true
		kind := t.Type
		target.kind = kind
		clear := t.Clear
		accepts := func(obj runtime.Object) bool { return kind == nil || reflect.TypeOf(obj) == kind }
		target.accepts = accepts
		target.clear = func(obj runtime.Object) bool {
			return accepts(obj) && clear(obj)
		}
		if holds := t.Holds; holds != nil {
			target.holds = func(obj runtime.Object) bool {
				return accepts(obj) && holds(obj)
			}
		}
		c.targets = append(c.targets, target)
	}
	return c
}

// Name returns the task's name.
func (c *ClearFieldsTask) Name() string { return c.name }

// Description returns the task's description.
func (c *ClearFieldsTask) Description() string { return c.description }

// Validate returns the error of a bad declaration (no function, a
// resource listed twice), or of one the resources of catalog do not fit (a
// resource served without a registry store, a function of another type, a
// status cleared without a status subresource), or nil.
func (c *ClearFieldsTask) Validate(catalog *storecatalog.Catalog) error {
	if c.err != nil {
		return c.err
	}
	for _, t := range c.targets {
		obj, err := catalog.NewObject(t.resource)
		switch {
		case err != nil:
			return fmt.Errorf("task %s: %w", c.name, err)
		case t.kind != nil && reflect.TypeOf(obj) != t.kind:
			return fmt.Errorf("task %s: the clear function takes %s, but %s stores %T", c.name, t.kind, t.resource.String(), obj)
		case t.subresource != "" && !catalog.HasStatus(t.resource):
			return fmt.Errorf("task %s: %s has no status subresource to clear status through", c.name, t.resource.String())
		}
	}
	return nil
}

// Resources returns the group-resources the task clears, in order, each
// once.
func (c *ClearFieldsTask) Resources() []schema.GroupResource {
	grs := make([]schema.GroupResource, 0, len(c.targets))
	for _, t := range c.targets {
		if !slices.Contains(grs, t.resource) {
			grs = append(grs, t.resource)
		}
	}
	return grs
}

// Holds reports whether obj still holds what the feature added: whether the
// clear functions would change a copy of it. obj is an internal object of
// one of Resources, or a versioned one, which is converted first. An object
// of any other type holds nothing.
func (c *ClearFieldsTask) Holds(obj runtime.Object) bool {
	if obj == nil {
		return false
	}
	for _, t := range c.targets {
		if t.accepts(obj) {
			return c.holds(obj)
		}
	}
	for _, t := range c.targets {
		internal, err := legacyscheme.Scheme.ConvertToVersion(obj, schema.GroupVersion{Group: t.resource.Group, Version: runtime.APIVersionInternal})
		if err == nil && t.accepts(internal) {
			return c.Clear(internal) // a new object: the conversion copies
		}
	}
	return false
}

// holds reports whether the targets that accept obj, an internal object,
// would change it: through their holds functions when they all have one,
// else by clearing a copy.
func (c *ClearFieldsTask) holds(obj runtime.Object) bool {
	for _, t := range c.targets {
		if !t.accepts(obj) {
			continue
		}
		if t.holds == nil {
			return c.Clear(obj.DeepCopyObject())
		}
	}
	for _, t := range c.targets {
		if t.accepts(obj) && t.holds(obj) {
			return true
		}
	}
	return false
}

// Clear clears, in place, what the feature added from obj, an internal
// object of one of Resources, as the task's writes would (its status and
// the rest), and reports whether it changed anything. An object of any
// other type is left alone.
func (c *ClearFieldsTask) Clear(obj runtime.Object) bool {
	changed := false
	for _, t := range c.targets {
		if t.accepts(obj) && t.clear(obj) {
			changed = true
		}
	}
	return changed
}

// clearFieldsCheckpoint is the task's checkpoint.
type clearFieldsCheckpoint struct {
	// Remaining are the resources that still need a pass without failures,
	// the one being migrated first.
	Remaining []string `json:"remaining"`
	// Migration is the migrator's checkpoint of Remaining[0].
	Migration migrator.Checkpoint `json:"migration"`
	// Seen totals the objects of the resources done (their last pass);
	// Cleared the objects cleared by every finished pass.
	Seen    int64 `json:"seen,omitempty"`
	Cleared int64 `json:"cleared,omitempty"`
	// NotServed are the resources skipped because the apiserver does not
	// serve them (migrator.NotServedError): nothing reaches their objects.
	NotServed []string `json:"notServed,omitempty"`
	// Retries counts the passes that left objects uncleared.
	Retries int64 `json:"retries,omitempty"`
}

func (c *ClearFieldsTask) start() clearFieldsCheckpoint {
	st := clearFieldsCheckpoint{Remaining: []string{}}
	for _, t := range c.targets {
		st.Remaining = append(st.Remaining, t.key())
	}
	return st
}

func (c *ClearFieldsTask) target(resource string) (clearTarget, bool) {
	for _, t := range c.targets {
		if t.key() == resource {
			return t, true
		}
	}
	return clearTarget{}, false
}

// checkpoint reads the task's checkpoint; an empty or unreadable one starts
// over (re-clearing is cheap: objects already cleared are not written).
func (c *ClearFieldsTask) checkpoint(logger klog.Logger, s string) clearFieldsCheckpoint {
	if s == "" {
		return c.start()
	}
	var st clearFieldsCheckpoint
	if err := json.Unmarshal([]byte(s), &st); err != nil || st.Remaining == nil {
		logger.Info("Unreadable ClearFields checkpoint, starting over", "task", c.name, "err", err)
		return c.start()
	}
	// Resources this apiserver does not clear (declared by another
	// version) are dropped.
	known := st.Remaining[:0:0]
	for i, r := range st.Remaining {
		if _, ok := c.target(r); ok {
			known = append(known, r)
		} else if i == 0 {
			st.Migration = migrator.Checkpoint{}
		}
	}
	st.Remaining = known
	return st
}

func (st clearFieldsCheckpoint) encode() string {
	b, err := json.Marshal(st)
	if err != nil {
		panic(err) // strings, integers and a bool always marshal
	}
	return string(b)
}

// Step opens the store of the resource the checkpoint is at, migrates one
// page and records where it stands. Objects that fail are named in the
// message and retried by a later pass over their resource, after the other
// resources; the task is done when every resource had a pass without
// failures.
func (c *ClearFieldsTask) Step(ctx context.Context, env Env, _ *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, _ time.Time) (Outcome, error) {
	if c.err != nil {
		return Outcome{}, c.err
	}
	if env.Stores == nil {
		return Outcome{}, fmt.Errorf("task %s: this kube-apiserver lends no storage to tasks", c.name)
	}
	logger := klog.FromContext(ctx).WithValues("task", c.name)
	st := c.checkpoint(logger, t.Checkpoint)
	if len(st.Remaining) == 0 {
		return c.done(st), nil
	}
	target, _ := c.target(st.Remaining[0])
	var (
		store migrator.Store
		err   error
	)
	if target.subresource == "" {
		store, err = env.Stores.Store(target.resource)
	} else if ss, ok := env.Stores.(migrator.StatusStores); ok {
		store, err = ss.StatusStore(target.resource)
	} else {
		err = fmt.Errorf("this kube-apiserver lends no storage that writes status (%s)", target.key())
	}
	if migrator.IsNotServed(err) {
		// Nothing reaches its stored objects: the other resources go on.
		logger.Info("Skipping a resource this apiserver does not serve", "resource", target.key(), "err", err)
		st.NotServed = append(st.NotServed, target.key())
		st.Remaining, st.Migration = st.Remaining[1:], migrator.Checkpoint{}
		if len(st.Remaining) == 0 {
			return c.done(st), nil
		}
		return Outcome{Checkpoint: st.encode(), Progress: ellipsis.Shorten(c.progress(st, st.Remaining[0]), maxProgressBytes, ellipsis.AtEnd),
			Message: ellipsis.Shorten(err.Error(), maxMessageBytes, ellipsis.AtEnd)}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("task %s: %w", c.name, err)
	}
	if n, ok := store.(interface{ New() runtime.Object }); ok && !target.accepts(n.New()) {
		return Outcome{}, fmt.Errorf("task %s: the store of %s holds %T, which the clear function does not take",
			c.name, target.key(), n.New())
	}
	m := migrator.New(store, target.resource, target.clear, env.Migration, env.Limiter).WithHolds(target.holds)
	cp, err := m.Step(klog.NewContext(ctx, logger), st.Migration)
	var failed *migrator.FailedObjectsError
	if err != nil && !errors.As(err, &failed) {
		return Outcome{}, fmt.Errorf("task %s: %w", c.name, err)
	}
	st.Migration = cp
	progress := c.progress(st, target.key())
	out := Outcome{}
	switch {
	case cp.Done:
		st.Seen += cp.Seen
		st.Cleared += cp.Changed
		st.Remaining = st.Remaining[1:]
		st.Migration = migrator.Checkpoint{}
		if len(st.Remaining) == 0 {
			return c.done(st), nil
		}
		out.Message = fmt.Sprintf("%s %s: %s", target.key(), c.words.past, cp.Progress())
	case cp.Continue == "":
		// The pass is over and left objects uncleared: pass over the other
		// resources, then over this one again.
		st.Cleared += cp.Changed
		st.Retries++
		st.Remaining = append(st.Remaining[1:], st.Remaining[0])
		st.Migration = migrator.Checkpoint{}
		out.RequeueAfter = clearFieldsRetryDelay
		out.Message = fmt.Sprintf("%d %s could not be %s in this pass (%s); passing over it again",
			cp.Failed, target.key(), c.words.past, strings.Join(cp.Failures, ", "))
		if failed != nil {
			out.Message += ". Last: " + failed.Error()
		}
	case failed != nil:
		out.Message = failed.Error()
	case cp.Failed > 0:
		out.Message = fmt.Sprintf("%d %s could not be %s so far in this pass (%s); a later pass retries them",
			cp.Failed, target.key(), c.words.past, strings.Join(cp.Failures, ", "))
	}
	out.Checkpoint = st.encode()
	out.Progress = ellipsis.Shorten(progress, maxProgressBytes, ellipsis.AtEnd)
	out.Message = ellipsis.Shorten(out.Message, maxMessageBytes, ellipsis.AtEnd)
	return out, nil
}

// progress says where the task stands, e.g.
// "statefulsets.apps (5/8): 1500/10000 seen, 1200 cleared".
func (c *ClearFieldsTask) progress(st clearFieldsCheckpoint, key string) string {
	label := key
	if len(c.targets) > 1 {
		label = fmt.Sprintf("%s (%d/%d)", label, len(c.targets)-len(st.Remaining)+1, len(c.targets))
	}
	return c.words.progress(label, st.Migration)
}

func (c *ClearFieldsTask) done(st clearFieldsCheckpoint) Outcome {
	names := make([]string, 0, len(c.targets))
	for _, t := range c.targets {
		names = append(names, t.key())
	}
	slices.Sort(names)
	message := c.words.done(st.Cleared, st.Seen, strings.Join(names, ", "))
	if len(st.NotServed) > 0 {
		message += fmt.Sprintf("; %s not served by this apiserver: objects stored while served stay out of every request's reach", strings.Join(st.NotServed, ", "))
	}
	return Outcome{
		Done:       true,
		Checkpoint: st.encode(),
		Progress:   ellipsis.Shorten(fmt.Sprintf("done: %d seen, %d %s", st.Seen, st.Cleared, c.words.past), maxProgressBytes, ellipsis.AtEnd),
		Message:    ellipsis.Shorten(message, maxMessageBytes, ellipsis.AtEnd),
	}
}
