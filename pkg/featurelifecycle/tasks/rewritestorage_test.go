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

package tasks_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/resource"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

var resourceClaims = resource.Resource("resourceclaims")

// The emulation versions of the tests: resourceclaims.resource.k8s.io is
// stored at v1beta2 at 1.34 and at v1 from 1.35
// (pkg/features/inventory/zz_generated.version-changes.yaml).
const (
	oldEmulation, oldStorageVersion = "1.34", "resource.k8s.io/v1beta2"
	newEmulation, newStorageVersion = "1.35", "resource.k8s.io/v1"
)

// protobufMagic prefixes the protobuf encoding of a stored object.
var protobufMagic = []byte("k8s\x00")

// storedVersions returns the apiVersion of every stored resource claim, by
// etcd key, and the keys' mod revisions, read from etcd's raw values.
func storedVersions(t *testing.T, e *migratortest.Etcd) (versions map[string]string, revisions map[string]int64) {
	t.Helper()
	resp, err := e.Client.Get(t.Context(), e.Prefix+"/resourceclaims/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	versions, revisions = map[string]string{}, map[string]int64{}
	for _, kv := range resp.Kvs {
		if !bytes.HasPrefix(kv.Value, protobufMagic) {
			t.Fatalf("%s is not stored as protobuf: %q", kv.Key, kv.Value[:min(len(kv.Value), 16)])
		}
		var u runtime.Unknown
		if err := u.Unmarshal(kv.Value[len(protobufMagic):]); err != nil {
			t.Fatalf("%s: %v", kv.Key, err)
		}
		if u.Kind != "ResourceClaim" {
			t.Fatalf("%s holds a %s", kv.Key, u.Kind)
		}
		versions[string(kv.Key)], revisions[string(kv.Key)] = u.APIVersion, kv.ModRevision
	}
	return versions, revisions
}

// countVersions returns how many of versions are each apiVersion.
func countVersions(versions map[string]string) map[string]int {
	n := map[string]int{}
	for _, v := range versions {
		n[v]++
	}
	return n
}

func resourceClaim(namespace, name string) *resource.ResourceClaim {
	return &resource.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

// createClaims creates n resource claims in namespace through stores.
func createClaims(t *testing.T, stores migrator.Stores, namespace string, n int) {
	t.Helper()
	objs := make([]runtime.Object, 0, n)
	for i := range n {
		objs = append(objs, resourceClaim(namespace, fmt.Sprintf("claim-%03d", i)))
	}
	create(t, stores, map[schema.GroupResource][]runtime.Object{resourceClaims: objs})
}

func TestRewriteStorage(t *testing.T) {
	const n = 45
	etcd := migratortest.StartEtcd(t)
	old, current := etcd.AtEmulationVersion(t, oldEmulation), etcd.AtEmulationVersion(t, newEmulation)
	createClaims(t, old.NewStores(t), "ns", n)
	versions, _ := storedVersions(t, etcd)
	if got := countVersions(versions); got[oldStorageVersion] != n || len(got) != 1 {
		t.Fatalf("written at %s: stored versions %v, want %d at %s", oldEmulation, got, n, oldStorageVersion)
	}

	task := tasks.RewriteStorage("rewrite-resourceclaims", "Rewrites resource claims.", resourceClaims)
	if err := task.Validate(tasks.TestingCatalog(t)); err != nil {
		t.Fatal(err)
	}
	if _, ok := any(task).(tasks.Inspector); ok {
		t.Error("RewriteStorageTask implements Inspector; it looks for no data of a feature")
	}
	if got := task.Resources(); len(got) != 1 || got[0] != resourceClaims {
		t.Errorf("Resources() = %v", got)
	}
	env := tasks.Env{Stores: current.NewStores(t), Migration: migration()}
	s := newStepper(task, env)
	first := s.step(t)
	if first.Done || !strings.Contains(first.Progress, "rewrote 10 of 45 objects of resourceclaims.resource.k8s.io at the current storage version") {
		t.Errorf("first step: %+v", first)
	}
	// Re-reading an object whose stored bytes differ is not a conflict.
	if strings.Contains(first.Checkpoint, `"conflicts"`) {
		t.Errorf("first step counted conflicts without a concurrent writer: %s", first.Checkpoint)
	}
	// A new leader resumes from the stored checkpoint.
	resumed := newStepper(tasks.RewriteStorage("rewrite-resourceclaims", "Rewrites resource claims.", resourceClaims), env)
	resumed.status = s.status
	out := resumed.run(t, 10)
	if len(resumed.outcomes) != 4 {
		t.Errorf("resumed after one page of 10, done in %d steps, want 4", len(resumed.outcomes))
	}
	if want := fmt.Sprintf("rewrote %d of %d objects of resourceclaims.resource.k8s.io at the current storage version", n, n); out.Message != want {
		t.Errorf("done with message %q, want %q", out.Message, want)
	}
	versions, revisions := storedVersions(t, etcd)
	if got := countVersions(versions); got[newStorageVersion] != n || len(got) != 1 {
		t.Fatalf("after the task: stored versions %v, want %d at %s", got, n, newStorageVersion)
	}

	// A second run finds every object at the current version: it writes
	// nothing.
	again := newStepper(task, tasks.Env{Stores: current.NewStores(t), Migration: migration()})
	out = again.run(t, 10)
	if want := fmt.Sprintf("rewrote 0 of %d objects", n); !strings.HasPrefix(out.Message, want) {
		t.Errorf("second run done with %q, want %q...", out.Message, want)
	}
	_, after := storedVersions(t, etcd)
	for k, rev := range revisions {
		if after[k] != rev {
			t.Errorf("the second run wrote %s (mod revision %d, then %d)", k, rev, after[k])
		}
	}
}

// TestRewriteStorageConcurrentWriter rewrites resource claims while two
// writers label them: an apiserver at the old version (still running during
// an upgrade) that labels every object between the migrator's read of it
// and its write, so that every rewrite races a write that stores the object
// at the old version again, and an apiserver at the new version that keeps
// labelling them all meanwhile. No label is lost, and every object ends at
// the new version.
func TestRewriteStorageConcurrentWriter(t *testing.T) {
	const n, rounds = 60, 5
	etcd := migratortest.StartEtcd(t)
	old, current := etcd.AtEmulationVersion(t, oldEmulation), etcd.AtEmulationVersion(t, newEmulation)
	oldStores := old.NewStores(t)
	createClaims(t, oldStores, "ns", n)

	label := func(ctx context.Context, store migrator.Store, name, key string) error {
		ctx = migrator.RequestContext(ctx, resourceClaims.WithVersion("v1"), "update", "ns", name)
		_, _, err := store.Update(ctx, name, rest.DefaultUpdatedObjectInfo(nil, func(_ context.Context, _, obj runtime.Object) (runtime.Object, error) {
			c := obj.(*resource.ResourceClaim).DeepCopy()
			if c.Labels == nil {
				c.Labels = map[string]string{}
			}
			c.Labels[key] = "done"
			return c, nil
		}), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		return err
	}
	oldWriter := migratortest.RegistryStore(t, oldStores, resourceClaims)
	newWriter := migratortest.RegistryStore(t, current.NewStores(t), resourceClaims)
	var raced atomic.Int64
	stores := racingStores{Stores: current.NewStores(t), during: func(ctx context.Context, name string, attempt int) {
		if attempt == 1 {
			if err := label(context.WithoutCancel(ctx), oldWriter, name, "old-apiserver"); err != nil {
				t.Errorf("labelling %s at the old version: %v", name, err)
			}
			raced.Add(1)
		}
	}}

	task := tasks.RewriteStorage("rewrite-resourceclaims", "Rewrites resource claims.", resourceClaims)
	s := newStepper(task, tasks.Env{Stores: stores, Migration: migrator.Options{PageSize: 5, Workers: 4, QPS: -1}})
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	wg.Go(func() {
		for round := range rounds {
			for i := range n {
				if err := label(context.Background(), newWriter, fmt.Sprintf("claim-%03d", i), fmt.Sprintf("round-%d", round)); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		}
	})
	out := s.run(t, 100)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatalf("the concurrent writer: %v", err)
	}
	if raced.Load() != n {
		t.Errorf("the old apiserver raced %d rewrites, want %d", raced.Load(), n)
	}
	// The writer at the new version may have rewritten an object after the
	// old one: then the task finds it current and does not write it.
	if want := fmt.Sprintf(" of %d objects of resourceclaims.resource.k8s.io", n); !strings.HasPrefix(out.Message, "rewrote ") || !strings.Contains(out.Message, want) {
		t.Errorf("done with %q, want rewrote ...%s", out.Message, want)
	}

	versions, _ := storedVersions(t, etcd)
	if got := countVersions(versions); got[newStorageVersion] != n || len(got) != 1 {
		t.Fatalf("after the task: stored versions %v, want %d at %s", got, n, newStorageVersion)
	}
	for _, obj := range listAll(t, current.NewStores(t), resourceClaims) {
		c := obj.(*resource.ResourceClaim)
		if c.Labels["old-apiserver"] != "done" {
			t.Errorf("%s lost the old apiserver's label: %v", c.Name, c.Labels)
		}
		for round := range rounds {
			if c.Labels[fmt.Sprintf("round-%d", round)] != "done" {
				t.Errorf("%s lost the label of round %d: %v", c.Name, round, c.Labels)
			}
		}
	}
}

// racingStores returns stores whose updates call during in each attempt,
// before the migrator's transform sees the fresh object.
type racingStores struct {
	migrator.Stores
	during func(ctx context.Context, name string, attempt int)
}

func (r racingStores) Store(gr schema.GroupResource) (migrator.Store, error) {
	s, err := r.Stores.Store(gr)
	if err != nil {
		return nil, err
	}
	return racingStore{Store: s, during: r.during}, nil
}

type racingStore struct {
	migrator.Store
	during func(ctx context.Context, name string, attempt int)
}

// New returns the wrapped store's new object, which the task checks.
func (r racingStore) New() runtime.Object {
	return r.Store.(interface{ New() runtime.Object }).New()
}

func (r racingStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.Store.Update(ctx, name, &racingInfo{UpdatedObjectInfo: objInfo, name: name, during: r.during}, createValidation, updateValidation, forceAllowCreate, options)
}

type racingInfo struct {
	rest.UpdatedObjectInfo
	name     string
	attempts int
	during   func(ctx context.Context, name string, attempt int)
}

func (r *racingInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	r.attempts++
	r.during(ctx, r.name, r.attempts)
	return r.UpdatedObjectInfo.UpdatedObject(ctx, old)
}
