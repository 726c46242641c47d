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
	"fmt"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// RewriteStorageTask is a task that rewrites every stored object of some
// resources at the apiserver's current storage version (and with its
// current encryption-at-rest key), one page per step, checkpointed and
// resumable exactly as ClearFieldsTask, whose machinery it runs with a
// function that changes nothing. It is what upstream's
// StorageVersionMigration does, run by the apiserver itself.
//
// Why writing an unchanged object is enough: the migrator writes through
// the resource's registry store, whose Update calls etcd3's
// store.GuaranteedUpdate (k8s.io/apiserver/pkg/storage/etcd3/store.go).
// GuaranteedUpdate encodes the updated object with the store's codec, i.e.
// at the current storage version, and skips the write only when
// `!origState.stale && bytes.Equal(data, origState.data)`. origState.data is
// what etcd holds, decrypted (getState, after TransformFromStorage); when
// the update started from the watch cache's copy instead (getStateFromObject,
// which re-encodes that object at the current version, so the bytes always
// compare equal), GuaranteedUpdate reads the key again (getCurrentState)
// and compares with the stored bytes before it skips, restarting the loop
// when they differ. So an object stored at an older version (other bytes:
// the apiVersion of the protobuf envelope differs) or with a stale
// encryption key (stale is set by the transformer) is written, at the
// current version, with a compare-and-put on its revision; an object
// already stored as the apiserver would store it costs a read and is not
// written (the migrator counts it as seen, not rewritten).
//
// It does not implement Inspector: it looks for no data of a feature.
type RewriteStorageTask struct {
	c *ClearFieldsTask
}

var _ Task = &RewriteStorageTask{}

// rewriteWords are the words of RewriteStorageTask.
var rewriteWords = taskWords{
	past: "rewritten",
	progress: func(label string, cp migrator.Checkpoint) string {
		total := cp.Seen
		if cp.Total > total && !cp.Done && cp.Continue != "" {
			total = cp.Total
		}
		s := fmt.Sprintf("rewrote %d of %d objects of %s at the current storage version", cp.Changed, total, label)
		if cp.Failed > 0 {
			s += fmt.Sprintf(", %d failed", cp.Failed)
		}
		if cp.Pass > 1 {
			s += fmt.Sprintf(" (pass %d)", cp.Pass)
		}
		return s
	},
	done: func(written, seen int64, names string) string {
		return fmt.Sprintf("rewrote %d of %d objects of %s at the current storage version", written, seen, names)
	},
}

// RewriteStorage declares a task that rewrites every stored object of each
// of resources, in order, at the apiserver's current storage version. An
// object that is already stored at that version is read but not written.
// A resource the apiserver serves without a registry store makes Validate
// and every Step fail, and one listed twice, or none, makes them fail,
// with an error saying so.
func RewriteStorage(name, description string, resources ...schema.GroupResource) *RewriteStorageTask {
	targets := make([]FieldClearer, 0, len(resources))
	for _, gr := range resources {
		targets = append(targets, FieldClearer{Resource: gr, Clear: rewrite})
	}
	c := ClearFieldsOf(name, description, targets)
	c.words = rewriteWords
	return &RewriteStorageTask{c: c}
}

// rewrite is the ClearFunc of RewriteStorageTask: every object is written
// back as it is, and etcd3's GuaranteedUpdate decides whether its bytes
// change.
func rewrite(runtime.Object) bool { return true }

// Name returns the task's name.
func (r *RewriteStorageTask) Name() string { return r.c.Name() }

// Description returns the task's description.
func (r *RewriteStorageTask) Description() string { return r.c.Description() }

// Validate returns the error of a bad declaration (a resource of catalog
// served without a registry store, one listed twice, none), or nil.
func (r *RewriteStorageTask) Validate(catalog *storecatalog.Catalog) error {
	return r.c.Validate(catalog)
}

// Resources returns the group-resources the task rewrites, in order.
func (r *RewriteStorageTask) Resources() []schema.GroupResource { return r.c.Resources() }

// Step opens the store of the resource the checkpoint is at, rewrites one
// page and records where it stands, as ClearFieldsTask.Step does: objects
// that fail are named and retried by a later pass, and the task is done when
// every resource had a pass without failures.
func (r *RewriteStorageTask) Step(ctx context.Context, env Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error) {
	return r.c.Step(ctx, env, f, t, now)
}
