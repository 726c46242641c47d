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

package migrator_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

var statefulSets = apps.Resource("statefulsets")

// clearMaxUnavailable clears what MaxUnavailableStatefulSet adds.
func clearMaxUnavailable(obj runtime.Object) bool {
	s := obj.(*apps.StatefulSet)
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return false
	}
	ru.MaxUnavailable = nil
	return true
}

func holdsMaxUnavailable(s *apps.StatefulSet) bool {
	return s.Spec.UpdateStrategy.RollingUpdate != nil && s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil
}

// fixture is a set of StatefulSets in one etcd.
type fixture struct {
	etcd   *migratortest.Etcd
	stores *standalone.Stores
	store  *genericregistry.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	migratortest.TurnOff(t, features.MaxUnavailableStatefulSet)
	e := migratortest.StartEtcd(t)
	stores := e.NewStores(t)
	return &fixture{etcd: e, stores: stores, store: migratortest.RegistryStore(t, stores, statefulSets)}
}

// create creates n StatefulSets named sts-0000... in namespace and returns
// them by name. Those for which with(i) are created while the feature is on
// and hold maxUnavailable (the feature's defaulting gives them one if they
// have none); the feature is off again when create returns, as when the
// migration runs.
func (f *fixture) create(t *testing.T, namespace string, n int, with func(i int) bool) map[string]*apps.StatefulSet {
	t.Helper()
	created := map[string]*apps.StatefulSet{}
	var mu sync.Mutex
	createSome := func(t *testing.T, holding bool) {
		var wg sync.WaitGroup
		var next atomic.Int64
		for range 8 {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					if with(i) != holding {
						continue
					}
					var maxUnavailable *int32
					if holding && i%4 == 0 {
						maxUnavailable = ptr.To[int32](2)
					}
					name := fmt.Sprintf("sts-%04d", i)
					obj := migratortest.Internal(t, migratortest.StatefulSet(namespace, name, maxUnavailable))
					out, err := migratortest.Create(t.Context(), f.store, obj)
					if err != nil {
						t.Errorf("creating %s/%s: %v", namespace, name, err)
						return
					}
					if holdsMaxUnavailable(out.(*apps.StatefulSet)) != holding {
						t.Errorf("%s/%s: holds maxUnavailable: %t, want %t", namespace, name, !holding, holding)
					}
					mu.Lock()
					created[name] = out.(*apps.StatefulSet)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	// The watch cache decodes (and defaults) the objects of its events as
	// they come: let it catch up before the gate flips, or it would give
	// the objects created with the gate off the feature's default.
	f.listAll(t)
	withFeature(t, features.MaxUnavailableStatefulSet, func(t *testing.T) { createSome(t, true) })
	createSome(t, false)
	if t.Failed() {
		t.FailNow()
	}
	return created
}

// withFeature runs f in a subtest with the gate on.
func withFeature(t *testing.T, gate featuregate.Feature, f func(t *testing.T)) {
	t.Helper()
	t.Run("with-"+string(gate), func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, gate, true)
		f(t)
	})
}

func (f *fixture) get(t *testing.T, namespace, name string) (*apps.StatefulSet, error) {
	t.Helper()
	obj, err := f.store.Get(genericapirequest.WithNamespace(t.Context(), namespace), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*apps.StatefulSet), nil
}

// update applies mutate to the fresh object, retrying conflicts.
func (f *fixture) update(ctx context.Context, namespace, name string, mutate func(*apps.StatefulSet)) error {
	_, _, err := f.store.Update(migrator.RequestContext(ctx, statefulSets.WithVersion("v1"), "update", namespace, name), name, mutation(mutate),
		rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	return err
}

type mutation func(*apps.StatefulSet)

func (mutation) Preconditions() *metav1.Preconditions { return nil }

func (m mutation) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	s := old.DeepCopyObject().(*apps.StatefulSet)
	m(s)
	return s, nil
}

func (f *fixture) delete(ctx context.Context, namespace, name string) error {
	_, _, err := f.store.Delete(migrator.RequestContext(ctx, statefulSets.WithVersion("v1"), "delete", namespace, name), name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{})
	return err
}

// listAll returns every stored StatefulSet.
func (f *fixture) listAll(t *testing.T) []apps.StatefulSet {
	t.Helper()
	list, err := f.store.List(t.Context(), &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.(*apps.StatefulSetList).Items
}

// run steps m from cp until done, at most limit steps.
func run(t *testing.T, m *migrator.Migrator, cp migrator.Checkpoint, limit int) migrator.Checkpoint {
	t.Helper()
	for range limit {
		next, err := m.Step(t.Context(), cp)
		if err != nil {
			t.Fatalf("Step from %+v: %v", cp, err)
		}
		cp = roundTrip(t, next)
		if cp.Done {
			return cp
		}
	}
	t.Fatalf("not done after %d steps: %+v", limit, cp)
	return cp
}

// roundTrip encodes and decodes cp, as the task's status does.
func roundTrip(t *testing.T, cp migrator.Checkpoint) migrator.Checkpoint {
	t.Helper()
	out, err := migrator.DecodeCheckpoint(cp.Encode())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func unlimited() flowcontrol.RateLimiter { return flowcontrol.NewFakeAlwaysRateLimiter() }

func opts(pageSize int64, workers int) migrator.Options {
	return migrator.Options{PageSize: pageSize, Workers: workers, QPS: -1}
}

func TestStores(t *testing.T) {
	e := migratortest.StartEtcd(t)
	stores := e.NewStores(t)
	for _, gr := range stores.Catalog().GroupResources() {
		store := migratortest.RegistryStore(t, stores, gr)
		// As kube-apiserver's: the watch cache in front of etcd.
		storage := reflect.ValueOf(standalone.OpenedStorage(store))
		if got := storage.Type().String(); got != "*cacher.CacheDelegator" && got != "*cacher.Cacher" {
			t.Fatalf("%s: storage is %s, want the watch cache", gr, got)
		}
		again, err := stores.Store(gr)
		if err != nil || again != migrator.Store(store) {
			t.Errorf("%s: a second Store call returned %p, %v; want the same store", gr, again, err)
		}
		obj, err := stores.Catalog().NewObject(gr)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprintf("%T", store.New()), fmt.Sprintf("%T", obj); got != want {
			t.Errorf("%s: NewObject is %s, the store stores %s", gr, want, got)
		}
	}
	for _, gr := range migrator.PodTemplateResources() {
		if _, err := stores.Store(gr); err != nil {
			t.Errorf("pod template resource %s: %v", gr, err)
		}
	}
	_, err := stores.Store(apps.Resource("frobnicators"))
	if err == nil || !strings.Contains(err.Error(), "frobnicators.apps") {
		t.Errorf("unknown resource: got %v, want an error naming frobnicators.apps", err)
	}
	stores.Destroy()
	if _, err := stores.Store(statefulSets); err == nil {
		t.Errorf("Store after Destroy succeeded")
	}
}

// TestPagingAndResume migrates with one "leader" for two pages, then with
// another, from the stored checkpoint, to the end.
func TestPagingAndResume(t *testing.T) {
	f := newFixture(t)
	created := map[string]*apps.StatefulSet{}
	for _, ns := range []string{"a", "b", "c"} {
		for name, s := range f.create(t, ns, 70, func(i int) bool { return i%2 == 0 }) {
			created[ns+"/"+name] = s
		}
	}
	first := migrator.New(f.store, statefulSets, clearMaxUnavailable, opts(50, 4), unlimited())
	cp := migrator.Checkpoint{}
	for range 2 {
		next, err := first.Step(t.Context(), cp)
		if err != nil {
			t.Fatal(err)
		}
		cp = next
	}
	if cp.Pages != 2 || cp.Seen != 100 || cp.Continue == "" || cp.Done {
		t.Fatalf("after two pages: %+v", cp)
	}
	if cp.Total != 210 {
		t.Errorf("total = %d, want 210", cp.Total)
	}
	if !strings.HasPrefix(cp.Progress(), "100/210 seen, ") {
		t.Errorf("progress %q", cp.Progress())
	}
	stored := cp.Encode()
	if len(stored) > 1024 {
		t.Errorf("checkpoint is %d bytes: %s", len(stored), stored)
	}

	// A new leader: another apiserver's stores on the same etcd.
	resumed, err := migrator.DecodeCheckpoint(stored)
	if err != nil {
		t.Fatal(err)
	}
	other := f.etcd.NewStores(t)
	second := migrator.New(migratortest.RegistryStore(t, other, statefulSets), statefulSets, clearMaxUnavailable, opts(50, 4), unlimited())
	cp = run(t, second, resumed, 10)
	if cp.Pages != 5 || cp.Seen != 210 || cp.Changed != 105 || cp.Failed != 0 || cp.Pass != 1 {
		t.Errorf("final checkpoint %+v, want 5 pages, 210 seen, 105 changed, one pass", cp)
	}
	for _, s := range f.listAll(t) {
		before := created[s.Namespace+"/"+s.Name]
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s/%s still holds maxUnavailable", s.Namespace, s.Name)
		}
		switch {
		case holdsMaxUnavailable(before) && s.Generation != before.Generation+1:
			t.Errorf("%s/%s: generation %d, want %d (written once, through the strategy)", s.Namespace, s.Name, s.Generation, before.Generation+1)
		case !holdsMaxUnavailable(before) && s.ResourceVersion != before.ResourceVersion:
			t.Errorf("%s/%s needed no clearing but was written", s.Namespace, s.Name)
		}
	}
	// Done is done.
	again, err := second.Step(t.Context(), cp)
	if err != nil || !again.Done || again.Pages != cp.Pages {
		t.Errorf("Step on a done checkpoint: %+v, %v", again, err)
	}
	if seen := counter(t, "apiserver_feature_migration_objects_seen_total", "statefulsets.apps"); seen < 210 {
		t.Errorf("objects seen metric = %v, want at least 210", seen)
	}
	if changed := counter(t, "apiserver_feature_migration_objects_changed_total", "statefulsets.apps"); changed < 105 {
		t.Errorf("objects changed metric = %v, want at least 105", changed)
	}
}

// counter returns the value of a migration counter for resource.
func counter(t *testing.T, name, resource string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "resource" && l.GetValue() == resource {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestConcurrentWriter updates every object again and again while the
// migration runs: every update survives and no cleared field remains.
func TestConcurrentWriter(t *testing.T) {
	f := newFixture(t)
	const n, rounds = 60, 6
	f.create(t, "ns", n, func(int) bool { return true })

	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := range 3 {
		wg.Go(func() {
			for range rounds {
				for i := w; i < n; i += 3 {
					err := f.update(ctx, "ns", fmt.Sprintf("sts-%04d", i), func(s *apps.StatefulSet) {
						if s.Annotations == nil {
							s.Annotations = map[string]string{}
						}
						c, _ := strconv.Atoi(s.Annotations["writes"])
						s.Annotations["writes"] = strconv.Itoa(c + 1)
						s.Spec.Replicas++
					})
					if err != nil {
						t.Errorf("concurrent update: %v", err)
						return
					}
					writes.Add(1)
				}
			}
		})
	}
	m := migrator.New(f.store, statefulSets, clearMaxUnavailable, opts(7, 8), unlimited())
	cp := migrator.Checkpoint{}
	for !cp.Done {
		next, err := m.Step(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		cp = roundTrip(t, next)
	}
	wg.Wait()
	if writes.Load() != n*rounds {
		t.Fatalf("%d concurrent writes succeeded, want %d", writes.Load(), n*rounds)
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
		if s.Annotations["writes"] != strconv.Itoa(rounds) || s.Spec.Replicas != 1+rounds {
			t.Errorf("%s: writes=%q replicas=%d, want %d of each: a concurrent write was lost", s.Name, s.Annotations["writes"], s.Spec.Replicas, rounds)
		}
	}
	t.Logf("checkpoint %+v", cp)
}

// hookStore runs hooks around the migrator's writes.
type hookStore struct {
	migrator.Store
	// before runs before an update of name.
	before func(ctx context.Context, name string)
	// during runs in each attempt of an update of name, before the
	// migrator's transform sees the fresh object.
	during func(ctx context.Context, name string, attempt int)
}

func (h *hookStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if h.before != nil {
		h.before(ctx, name)
	}
	if h.during != nil {
		objInfo = &hookInfo{UpdatedObjectInfo: objInfo, name: name, during: h.during}
	}
	return h.Store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

type hookInfo struct {
	rest.UpdatedObjectInfo
	name     string
	attempts int
	during   func(ctx context.Context, name string, attempt int)
}

func (h *hookInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	h.attempts++
	h.during(ctx, h.name, h.attempts)
	return h.UpdatedObjectInfo.UpdatedObject(ctx, old)
}

// TestConflicts writes every other object between the migrator's read of the
// fresh object and its write: each such write is a conflict, retried against
// the fresh object, and survives.
func TestConflicts(t *testing.T) {
	f := newFixture(t)
	const n = 20
	f.create(t, "ns", n, func(int) bool { return true })
	hooked := &hookStore{Store: f.store, during: func(ctx context.Context, name string, attempt int) {
		i, _ := strconv.Atoi(strings.TrimPrefix(name, "sts-"))
		if attempt != 1 || i%2 != 0 {
			return
		}
		if err := f.update(ctx, "ns", name, func(s *apps.StatefulSet) { s.Spec.MinReadySeconds = 42 }); err != nil {
			t.Errorf("interfering write: %v", err)
		}
	}}
	cp := run(t, migrator.New(hooked, statefulSets, clearMaxUnavailable, opts(100, 4), unlimited()), migrator.Checkpoint{}, 3)
	if cp.Conflicts != n/2 || cp.Changed != n {
		t.Errorf("checkpoint %+v, want %d conflicts and %d changed", cp, n/2, n)
	}
	for _, s := range f.listAll(t) {
		i, _ := strconv.Atoi(strings.TrimPrefix(s.Name, "sts-"))
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
		if want := int32(42 * (1 - i%2)); s.Spec.MinReadySeconds != want {
			t.Errorf("%s: minReadySeconds %d, want %d", s.Name, s.Spec.MinReadySeconds, want)
		}
	}
	if c := counter(t, "apiserver_feature_migration_objects_conflicts_total", "statefulsets.apps"); c < n/2 {
		t.Errorf("conflicts metric = %v, want at least %d", c, n/2)
	}
}

// TestDeletedMeanwhile deletes objects after the migrator listed them, before
// or during its write: they are skipped, not failed, and never re-created.
// An object cleared by someone else meanwhile is not written again.
func TestDeletedMeanwhile(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 12, func(int) bool { return true })
	deleted := map[string]bool{"sts-0001": true, "sts-0005": true, "sts-0007": true, "sts-0010": true}
	clearedElsewhere := "sts-0003"
	var rvBefore string
	hooked := &hookStore{Store: f.store,
		before: func(ctx context.Context, name string) {
			switch name {
			case "sts-0001", "sts-0005":
				if err := f.delete(ctx, "ns", name); err != nil {
					t.Errorf("deleting %s: %v", name, err)
				}
			case clearedElsewhere:
				if err := f.update(ctx, "ns", name, func(s *apps.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil }); err != nil {
					t.Errorf("clearing %s: %v", name, err)
				}
				s, err := f.get(t, "ns", name)
				if err != nil {
					t.Error(err)
					return
				}
				rvBefore = s.ResourceVersion
			}
		},
		during: func(ctx context.Context, name string, attempt int) {
			if (name == "sts-0007" || name == "sts-0010") && attempt == 1 {
				if err := f.delete(ctx, "ns", name); err != nil {
					t.Errorf("deleting %s: %v", name, err)
				}
			}
		},
	}
	cp := run(t, migrator.New(hooked, statefulSets, clearMaxUnavailable, opts(5, 3), unlimited()), migrator.Checkpoint{}, 5)
	if cp.Failed != 0 || cp.Seen != 12 || cp.Changed != 12-int64(len(deleted))-1 {
		t.Errorf("checkpoint %+v, want 12 seen, %d changed, none failed", cp, 12-len(deleted)-1)
	}
	for name := range deleted {
		if _, err := f.get(t, "ns", name); !apierrors.IsNotFound(err) {
			t.Errorf("%s: got %v, want NotFound: a deleted object was re-created", name, err)
		}
	}
	if s, err := f.get(t, "ns", clearedElsewhere); err != nil || s.ResourceVersion != rvBefore {
		t.Errorf("%s was written again although someone else had cleared it: %v", clearedElsewhere, err)
	}
	if got := len(f.listAll(t)); got != 12-len(deleted) {
		t.Errorf("%d objects remain, want %d", got, 12-len(deleted))
	}
}

// countingLimiter counts the tokens taken.
type countingLimiter struct {
	flowcontrol.RateLimiter
	taken atomic.Int64
}

func (c *countingLimiter) Wait(ctx context.Context) error {
	if err := c.RateLimiter.Wait(ctx); err != nil {
		return err
	}
	c.taken.Add(1)
	return nil
}

// writeCounter counts the writes that reach the store.
type writeCounter struct {
	migrator.Store
	writes atomic.Int64
}

func (w *writeCounter) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	w.writes.Add(1)
	return w.Store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// TestRateLimit checks that every write takes a token and that a bucket that
// runs dry stops the page without losing it.
func TestRateLimit(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 30, func(i int) bool { return i%3 != 0 }) // 20 to clear

	// A bucket of 8 tokens that does not refill within the test.
	dry := &countingLimiter{RateLimiter: flowcontrol.NewTokenBucketRateLimiter(0.0001, 8)}
	counted := &writeCounter{Store: f.store}
	m := migrator.New(counted, statefulSets, clearMaxUnavailable, opts(100, 4), dry)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cp, err := m.Step(ctx, migrator.Checkpoint{})
	if err == nil || !strings.Contains(err.Error(), "rate limiter") {
		t.Fatalf("Step with a dry bucket: %v, want a rate limiter error", err)
	}
	if cp.Pages != 0 || cp.Continue != "" {
		t.Errorf("the checkpoint advanced past an unfinished page: %+v", cp)
	}
	if dry.taken.Load() != 8 || counted.writes.Load() != 8 {
		t.Errorf("%d tokens taken, %d writes; want 8 of each", dry.taken.Load(), counted.writes.Load())
	}
	cleared := 0
	for _, s := range f.listAll(t) {
		if !holdsMaxUnavailable(&s) {
			cleared++
		}
	}
	if cleared != 10+8 {
		t.Errorf("%d objects without the field, want 18 (10 never had it, 8 written)", cleared)
	}

	// With a bucket that refills the page completes, and writes only what is left.
	counted.writes.Store(0)
	counting := &countingLimiter{RateLimiter: flowcontrol.NewTokenBucketRateLimiter(1000, 5)}
	cp = run(t, migrator.New(counted, statefulSets, clearMaxUnavailable, opts(100, 4), counting), cp, 2)
	if counting.taken.Load() != 12 || counted.writes.Load() != 12 || cp.Changed != 12 {
		t.Errorf("%d tokens, %d writes, checkpoint %+v; want 12 of each", counting.taken.Load(), counted.writes.Load(), cp)
	}
}

// TestValidationFailure makes the clear function produce invalid objects for
// some: they are named, the other objects are done, the checkpoint advances,
// and the pass is not done until a later pass clears them all.
func TestValidationFailure(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 20, func(int) bool { return true })
	broken := map[string]bool{"sts-0003": true, "sts-0016": true}
	for name := range broken {
		if err := f.update(t.Context(), "ns", name, func(s *apps.StatefulSet) { s.Labels = map[string]string{"break": "true"} }); err != nil {
			t.Fatal(err)
		}
	}
	clear := func(obj runtime.Object) bool {
		s := obj.(*apps.StatefulSet)
		if !clearMaxUnavailable(obj) {
			return false
		}
		if s.Labels["break"] == "true" {
			s.Spec.Replicas = -1
		}
		return true
	}
	m := migrator.New(f.store, statefulSets, clear, opts(10, 2), unlimited())
	var failures []*migrator.FailedObjectsError
	cp := migrator.Checkpoint{}
	for i := 0; i < 2; i++ {
		next, err := m.Step(t.Context(), cp)
		var failed *migrator.FailedObjectsError
		if !errors.As(err, &failed) {
			t.Fatalf("page %d: got %v, want a FailedObjectsError", i+1, err)
		}
		failures = append(failures, failed)
		cp = roundTrip(t, next)
	}
	if cp.Done || cp.Continue != "" || cp.Pages != 2 || cp.Failed != 2 || cp.Changed != 18 {
		t.Fatalf("after the first pass: %+v, want not done, 2 pages, 2 failed, 18 changed", cp)
	}
	if len(cp.Failures) != 2 || cp.Failures[0] != "ns/sts-0003" || cp.Failures[1] != "ns/sts-0016" {
		t.Errorf("failures %v", cp.Failures)
	}
	if msg := failures[0].Error(); !strings.Contains(msg, "ns/sts-0003") || !strings.Contains(msg, "replicas") {
		t.Errorf("failure message %q does not name the object and the invalid field", msg)
	}
	if !strings.Contains(cp.Progress(), "2 failed") {
		t.Errorf("progress %q", cp.Progress())
	}

	// A later pass fails the same way, until the objects are fixed.
	next, err := m.Step(t.Context(), cp)
	if !errors.As(err, new(*migrator.FailedObjectsError)) || next.Pass != 2 {
		t.Fatalf("second pass: %+v, %v", next, err)
	}
	for name := range broken {
		if err := f.update(t.Context(), "ns", name, func(s *apps.StatefulSet) { s.Labels = nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Pass 2 ends with sts-0003's failure on its first page; pass 3 is clean.
	cp = run(t, m, next, 3)
	if cp.Pass != 3 || cp.Failed != 0 || cp.Changed != 1 {
		t.Errorf("checkpoint %+v, want done in pass 3 with the one object left changed", cp)
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
	}
	if c := counter(t, "apiserver_feature_migration_objects_failures_total", "statefulsets.apps"); c < 3 {
		t.Errorf("failures metric = %v, want at least 3", c)
	}
}

// TestExpiredContinueToken: the migrator's checkpoints continue at the
// latest revision, so compaction never expires them; a token pinned to a
// compacted revision (as an older checkpoint may hold) continues with the
// token the storage offers in its 410 instead of starting over.
func TestExpiredContinueToken(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 30, func(int) bool { return true })
	m := migrator.New(f.store, statefulSets, clearMaxUnavailable, opts(10, 2), unlimited())
	cp, err := m.Step(t.Context(), migrator.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	key, rv, err := storage.DecodeContinue(cp.Continue, "/")
	if err != nil || rv != -1 {
		t.Fatalf("checkpoint token at revision %d (%v), want -1, the latest", rv, err)
	}
	// The same token pinned to the revision of the first page.
	resp, err := f.etcd.Client.Get(t.Context(), "/")
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := storage.EncodeContinue(key, "/", resp.Header.Revision)
	if err != nil {
		t.Fatal(err)
	}
	// Another write, then a compaction at the newest revision.
	if err := f.update(t.Context(), "ns", "sts-0029", func(s *apps.StatefulSet) { s.Spec.MinReadySeconds = 7 }); err != nil {
		t.Fatal(err)
	}
	if resp, err = f.etcd.Client.Get(t.Context(), "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.etcd.Client.Compact(t.Context(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	// The migrator's token is served after the compaction. The pinned one
	// may be served from the watch cache's snapshot of its revision while
	// the cache keeps it; etcd3 storage refuses it, as compactedStore does.
	if _, err := f.store.List(t.Context(), &metainternalversion.ListOptions{Limit: 10, Continue: cp.Continue}); err != nil {
		t.Fatalf("listing with the migrator's token after compaction: %v", err)
	}
	expired := &compactedStore{Store: f.store, pinned: pinned, fresh: cp.Continue}
	// The migrator continues where it was from either.
	for _, token := range []string{pinned, cp.Continue} {
		from := cp
		from.Continue = token
		m := migrator.New(expired, statefulSets, clearMaxUnavailable, opts(10, 2), unlimited())
		got := run(t, m, from, 5)
		if got.Pass != 1 || got.Seen != 30 || got.Pages != 3 {
			t.Errorf("checkpoint %+v, want one pass of 3 pages, 30 seen", got)
		}
	}
	if expired.refused.Load() != 1 {
		t.Errorf("the pinned token was refused %d times, want once", expired.refused.Load())
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
	}
}

// compactedStore refuses the continue token pinned, as etcd3 storage
// refuses a token of a compacted revision: with a 410 that offers the
// fresh token, after the same key at the latest revision.
type compactedStore struct {
	migrator.Store
	pinned, fresh string
	refused       atomic.Int32
}

func (c *compactedStore) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	if options.Continue == c.pinned {
		c.refused.Add(1)
		err := apierrors.NewResourceExpired("the continue token is too old")
		err.ErrStatus.ListMeta.Continue = c.fresh
		return nil, err
	}
	return c.Store.List(ctx, options)
}

// expiringStore refuses the first continue token with a 410 that offers no
// fresh token.
type expiringStore struct {
	migrator.Store
	expired atomic.Bool
}

func (e *expiringStore) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	if options.Continue != "" && !e.expired.Swap(true) {
		return nil, apierrors.NewResourceExpired("the continue token is too old")
	}
	return e.Store.List(ctx, options)
}

// TestExpiredContinueTokenWithoutFreshToken restarts the pass.
func TestExpiredContinueTokenWithoutFreshToken(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 25, func(i int) bool { return i < 20 })
	m := migrator.New(&expiringStore{Store: f.store}, statefulSets, clearMaxUnavailable, opts(10, 2), unlimited())
	cp, err := m.Step(t.Context(), migrator.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	cp, err = m.Step(t.Context(), cp)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Pass != 2 || cp.Pages != 1 || cp.Seen != 10 || cp.Changed != 0 {
		t.Errorf("after the expired token: %+v, want pass 2 restarted with its first page (already cleared)", cp)
	}
	cp = run(t, m, cp, 5)
	if cp.Pass != 2 || cp.Seen != 25 || cp.Changed != 10 {
		t.Errorf("checkpoint %+v, want pass 2 with 25 seen and the 10 left changed", cp)
	}
}

// TestEncryptionAtRest gives the apiserver's getter an encrypting
// transformer: the migrator's writes go through it.
func TestEncryptionAtRest(t *testing.T) {
	migratortest.TurnOff(t, features.MaxUnavailableStatefulSet)
	e := migratortest.StartEtcd(t)
	block, err := aes.NewCipher([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	gcm, err := aestransformer.NewGCMTransformer(block)
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "k8s:enc:aesgcm:v1:test:"
	transformer := value.NewPrefixTransformers(nil, value.PrefixTransformer{Prefix: []byte(prefix), Transformer: gcm})
	e.Getter = encrypting{RESTOptionsGetter: e.Getter, transformer: transformer}
	stores := e.NewStores(t)
	f := &fixture{etcd: e, stores: stores, store: migratortest.RegistryStore(t, stores, statefulSets)}
	f.create(t, "ns", 5, func(int) bool { return true })

	cp := run(t, migrator.New(f.store, statefulSets, clearMaxUnavailable, opts(10, 2), unlimited()), migrator.Checkpoint{}, 2)
	if cp.Changed != 5 {
		t.Fatalf("checkpoint %+v, want 5 changed", cp)
	}
	resp, err := e.Client.Get(t.Context(), e.Prefix+"/statefulsets/ns/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 5 {
		t.Fatalf("%d keys in etcd, want 5", len(resp.Kvs))
	}
	for _, kv := range resp.Kvs {
		if !bytes.HasPrefix(kv.Value, []byte(prefix)) {
			t.Errorf("%s is stored unencrypted after the migration", kv.Key)
		}
		if kv.Version != 2 {
			t.Errorf("%s has version %d, want 2 (created, then migrated)", kv.Key, kv.Version)
		}
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
	}
}

// encrypting sets a transformer on the options of a getter, as the
// apiserver's encryption configuration does.
type encrypting struct {
	generic.RESTOptionsGetter
	transformer value.Transformer
}

func (e encrypting) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := e.RESTOptionsGetter.GetRESTOptions(gr, example)
	if err == nil {
		config := *opts.StorageConfig
		config.Transformer = e.transformer
		opts.StorageConfig = &config
	}
	return opts, err
}

func TestCheckpointEncoding(t *testing.T) {
	token, err := storage.EncodeContinue("/registry/statefulsets/"+strings.Repeat("n", 63)+"/"+strings.Repeat("x", 253)+"\x00", "/registry/statefulsets/", math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("n", 63) + "/" + strings.Repeat("x", 253)
	worst := migrator.Checkpoint{Continue: token, Pass: math.MaxInt64, Pages: math.MaxInt64, Seen: math.MaxInt64, Total: math.MaxInt64,
		Changed: math.MaxInt64, Conflicts: math.MaxInt64, Failed: math.MaxInt64, Failures: []string{name, name, name}}
	encoded := worst.Encode()
	if len(encoded) > 2048 {
		t.Errorf("the largest checkpoint is %d bytes, want at most 2 KiB", len(encoded))
	}
	decoded, err := migrator.DecodeCheckpoint(encoded)
	if err != nil || !reflect.DeepEqual(decoded, worst) {
		t.Errorf("round trip: %+v, %v", decoded, err)
	}
	if cp, err := migrator.DecodeCheckpoint(""); err != nil || !reflect.DeepEqual(cp, migrator.Checkpoint{}) {
		t.Errorf(`DecodeCheckpoint(""): %+v, %v`, cp, err)
	}
	if _, err := migrator.DecodeCheckpoint("2026-01-01T00:00:00Z"); err == nil {
		t.Errorf("DecodeCheckpoint of garbage succeeded")
	}
	t.Logf("largest checkpoint: %d bytes", len(encoded))
}

// countingStore counts lists and the limits they asked for. The continue
// token of list number expireList (from 1) has expired: that list and the
// next with the same token get a 410 that offers no fresh token.
type countingStore struct {
	migrator.Store
	expireList int64
	lists      atomic.Int64
	mu         sync.Mutex
	limits     []int64
	expired    string
	refusals   int
}

func (c *countingStore) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	n := c.lists.Add(1)
	c.mu.Lock()
	c.limits = append(c.limits, options.Limit)
	if n == c.expireList {
		c.expired = options.Continue
	}
	refuse := options.Continue != "" && options.Continue == c.expired && c.refusals < 2
	if refuse {
		c.refusals++
	}
	c.mu.Unlock()
	if refuse {
		return nil, apierrors.NewResourceExpired("the continue token is too old")
	}
	return c.Store.List(ctx, options)
}

// TestLargePagesAreReadInChunks: a page of more than 100 objects is read in
// lists of at most 100, the next read while the previous is written, and is
// still one page of the checkpoint. Each object is cleared once when nothing
// conflicts: the write reuses the copy cleared to decide that it needs one.
func TestLargePagesAreReadInChunks(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 260, func(i int) bool { return i%2 == 0 })
	store := &countingStore{Store: f.store}
	var clears atomic.Int64
	clear := func(obj runtime.Object) bool {
		clears.Add(1)
		return clearMaxUnavailable(obj)
	}
	m := migrator.New(store, statefulSets, clear, opts(250, 4), unlimited())
	cp, err := m.Step(t.Context(), migrator.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Pages != 1 || cp.Seen != 250 || cp.Changed != 125 || cp.Continue == "" || cp.Done {
		t.Errorf("after the first step: %+v, want one page of 250 seen, 125 changed, more to come", cp)
	}
	if got := store.limits; !slices.Equal(got, []int64{100, 100, 50}) {
		t.Errorf("the first page was read with limits %v, want [100 100 50]", got)
	}
	if got := clears.Load(); got != 250 {
		t.Errorf("clear ran %d times for 250 objects and no conflict, want 250", got)
	}
	cp = run(t, m, cp, 2)
	if cp.Pages != 2 || cp.Seen != 260 || cp.Changed != 130 {
		t.Errorf("checkpoint %+v, want two pages, 260 seen, 130 changed", cp)
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
	}
}

// TestExpiredContinueTokenMidPage: when the token of a page's second list
// expires and the storage offers no fresh one, the page ends after its
// first list, and the next step restarts the pass.
func TestExpiredContinueTokenMidPage(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 150, func(int) bool { return true })
	store := &countingStore{Store: f.store, expireList: 2}
	m := migrator.New(store, statefulSets, clearMaxUnavailable, opts(200, 4), unlimited())
	cp, err := m.Step(t.Context(), migrator.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Pass != 1 || cp.Pages != 1 || cp.Seen != 100 || cp.Changed != 100 || cp.Continue == "" {
		t.Fatalf("after the expired token: %+v, want a page of the first 100 objects", cp)
	}
	cp = run(t, m, cp, 3)
	if cp.Pass != 2 || cp.Seen != 150 || cp.Changed != 50 {
		t.Errorf("checkpoint %+v, want pass 2 over all 150 with the 50 left changed", cp)
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
	}
}

// TestHoldsSkipsObjectsWithoutTheField: with a holds function, the listed
// objects it says no to are neither copied nor cleared, and the outcome is
// the same as without it.
func TestHoldsSkipsObjectsWithoutTheField(t *testing.T) {
	f := newFixture(t)
	f.create(t, "ns", 120, func(i int) bool { return i%3 == 0 })
	var clears, holds atomic.Int64
	clear := func(obj runtime.Object) bool {
		clears.Add(1)
		return clearMaxUnavailable(obj)
	}
	m := migrator.New(f.store, statefulSets, clear, opts(500, 4), unlimited()).WithHolds(func(obj runtime.Object) bool {
		holds.Add(1)
		return holdsMaxUnavailable(obj.(*apps.StatefulSet))
	})
	cp := run(t, m, migrator.Checkpoint{}, 1)
	if !cp.Done || cp.Seen != 120 || cp.Changed != 40 {
		t.Errorf("checkpoint %+v, want done, 120 seen, 40 changed", cp)
	}
	if got := holds.Load(); got != 120 {
		t.Errorf("holds ran %d times for 120 objects, want 120", got)
	}
	if got := clears.Load(); got != 40 {
		t.Errorf("clear ran %d times, want 40: only on the objects holds names", got)
	}
	for _, s := range f.listAll(t) {
		if holdsMaxUnavailable(&s) {
			t.Errorf("%s still holds maxUnavailable", s.Name)
		}
	}
}
