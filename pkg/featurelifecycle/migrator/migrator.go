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

package migrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"k8s.io/kubernetes/pkg/featurelifecycle/internal/ellipsis"
)

const (
	// listTimeout bounds the read of one page.
	listTimeout = time.Minute
	// writeTimeout bounds the write of one object, with its retries.
	writeTimeout = 30 * time.Second
	// maxFailureDetails bounds the failures a FailedObjectsError describes.
	maxFailureDetails = 3
	// maxFailureDetailLength bounds the description of one failure.
	maxFailureDetailLength = 240
	// listChunk bounds the objects one list reads: a larger page is read in
	// several lists, each while the objects of the previous one are being
	// written, so that writing does not stop while a page is read.
	listChunk = 100
)

// ClearFunc clears, in place, what a feature added to an internal object of
// the migrated resource and reports whether it changed anything. It must be
// idempotent and must not fail: it runs on a copy of the listed object, and
// again on a copy of the current stored object in every write attempt after
// a conflict.
type ClearFunc func(obj runtime.Object) (changed bool)

// HoldsFunc reports, without changing it, whether the ClearFunc of the same
// migration would change an internal object of the migrated resource.
type HoldsFunc func(obj runtime.Object) bool

// Migrator clears fields from every stored object of one resource, a page at
// a time, through the resource's registry store.
type Migrator struct {
	store    Store
	resource schema.GroupResource
	// version is the version of resource its writes are made in
	// (ServedResource).
	version string
	clear   ClearFunc
	// holds, when set, picks the listed objects worth a copy and a clear.
	holds   HoldsFunc
	opts    Options
	limiter flowcontrol.RateLimiter
	// subresource is the subresource store writes through ("status" for
	// a StatusStores store), named in each write's request info.
	subresource string
}

// New returns a Migrator of resource over store. Options are defaulted with
// WithDefaults; limiter bounds the writes and is usually shared by all the
// migrations of an apiserver (nil: SharedLimiter(opts)).
func New(store Store, resource schema.GroupResource, clear ClearFunc, opts Options, limiter flowcontrol.RateLimiter) *Migrator {
	RegisterMetrics()
	if limiter == nil {
		limiter = SharedLimiter(opts)
	}
	m := &Migrator{store: store, resource: resource, clear: clear, opts: opts.WithDefaults(), limiter: limiter}
	if sub, ok := store.(interface{ Subresource() string }); ok {
		m.subresource = sub.Subresource()
	}
	var example runtime.Object
	if n, ok := store.(interface{ New() runtime.Object }); ok {
		example = n.New()
	}
	m.version = ServedResource(resource, example).Version
	return m
}

// WithHolds makes m skip, without copying them, the listed objects holds
// says clear would not change (nil: every listed object is cleared in a
// copy to find out). It returns m.
func (m *Migrator) WithHolds(holds HoldsFunc) *Migrator {
	m.holds = holds
	return m
}

// FailedObjectsError reports the objects of a page that could not be
// rewritten. Step returns it with an advanced checkpoint: the other objects
// of the page are done, and a later pass retries the failed ones.
type FailedObjectsError struct {
	// Resource is the migrated group-resource.
	Resource schema.GroupResource
	// Count is how many objects of the page failed.
	Count int
	// Details describe the first few failures, "namespace/name: error".
	Details []string
}

// Error names the first few failed objects and why they failed.
func (e *FailedObjectsError) Error() string {
	more := ""
	if n := e.Count - len(e.Details); n > 0 {
		more = fmt.Sprintf("; and %d more", n)
	}
	return fmt.Sprintf("%d %s could not be rewritten (a later pass retries them): %s%s",
		e.Count, e.Resource.String(), strings.Join(e.Details, "; "), more)
}

// Step reads the page after cp, clears every listed object that needs it and
// returns the checkpoint after that page. A page whose continue token is too
// old (410 Expired) continues from the token the storage offers in the error,
// or restarts the pass when it offers none. Step on a done checkpoint does
// nothing; on the end of a pass that had failures it starts another pass.
//
// On a *FailedObjectsError the returned checkpoint has advanced past the
// page: store it. On any other error (listing failed, ctx was cancelled, the
// rate limiter gave up) the page is not done and Step returns cp unchanged.
func (m *Migrator) Step(ctx context.Context, cp Checkpoint) (Checkpoint, error) {
	if cp.Done {
		return cp, nil
	}
	in := cp
	if cp.Pass == 0 {
		cp.Pass = 1
	}
	if cp.passEnded() {
		cp = Checkpoint{Pass: cp.Pass + 1}
	}
	logger := klog.FromContext(ctx).WithValues("resource", m.resource.String())

	t := &tally{stop: make(chan struct{})}
	work := make(chan pending, listChunk)
	var wg sync.WaitGroup
	for range max(m.opts.Workers, 1) {
		wg.Go(func() { m.work(ctx, work, t) })
	}
	read, err := m.read(ctx, logger, &cp, work, t)
	close(work)
	wg.Wait()
	if err != nil {
		return in, err
	}
	resource := m.resource.String()
	objectsChanged.WithLabelValues(resource).Add(float64(t.changed.Load()))
	objectConflicts.WithLabelValues(resource).Add(float64(t.conflicts.Load()))
	if err := ctx.Err(); err != nil {
		return in, err
	}
	if t.interrupted != nil {
		return in, fmt.Errorf("rewriting %s: %w", resource, t.interrupted)
	}
	objectsSeen.WithLabelValues(resource).Add(float64(read.seen))
	objectFailures.WithLabelValues(resource).Add(float64(len(t.failures)))
	slices.SortFunc(t.failures, func(a, b failure) int { return strings.Compare(a.name, b.name) })

	cp.Pages++
	cp.Seen += int64(read.seen)
	cp.Total = cp.Seen
	if read.remaining != nil {
		cp.Total += *read.remaining
	}
	cp.Changed += t.changed.Load()
	cp.Conflicts += t.conflicts.Load()
	cp.Failed += int64(len(t.failures))
	for _, f := range t.failures {
		if len(cp.Failures) < maxFailureNames {
			cp.Failures = append(cp.Failures, f.name)
		}
	}
	cp.Done = cp.Continue == "" && cp.Failed == 0

	// One line per page at the default level: these writes skip admission
	// and the audit log (KEP-3920, Design Details, "Audit"), so the log says what was
	// rewritten, with the task's Events and metrics.
	logger.Info("Migrated a page of stored objects", "pass", cp.Pass, "page", cp.Pages,
		"listed", read.seen, "needClearing", read.dirty, "changed", t.changed.Load(), "unchanged", t.unchanged.Load(),
		"gone", t.gone.Load(), "conflicts", t.conflicts.Load(), "failed", len(t.failures), "passDone", cp.Continue == "")
	if cp.Done {
		logger.Info("Cleared a resource", "passes", cp.Pass, "seen", cp.Seen, "changed", cp.Changed, "conflicts", cp.Conflicts)
	}
	if len(t.failures) > 0 {
		e := &FailedObjectsError{Resource: m.resource, Count: len(t.failures)}
		for _, f := range t.failures[:min(len(t.failures), maxFailureDetails)] {
			e.Details = append(e.Details, ellipsis.Shorten(f.name+": "+f.err.Error(), maxFailureDetailLength, ellipsis.InMiddle))
		}
		return cp, e
	}
	return cp, nil
}

// pending is an object of a page that needs clearing: as listed, and a
// cleared copy of it.
type pending struct {
	listed, cleared runtime.Object
}

// pageRead says what a step read.
type pageRead struct {
	// seen and dirty count the objects listed and those that need clearing.
	seen, dirty int
	// remaining is the storage's estimate of the objects after the page.
	remaining *int64
}

// errExpiredMidPage ends a page early: the continue token of one of its
// lists after the first expired, and the storage offers no fresh one.
var errExpiredMidPage = errors.New("the continue token expired in the middle of a page")

// read lists the page after cp.Continue, in lists of at most listChunk
// objects, and hands every object that needs clearing to the workers on
// work as soon as its list is read; the next list is read meanwhile. It
// leaves in cp the continue token after the last list it read. When the
// token of a list after the first has expired and the storage offers no
// fresh one, the page ends there: the next step restarts the pass.
func (m *Migrator) read(ctx context.Context, logger klog.Logger, cp *Checkpoint, work chan<- pending, t *tally) (pageRead, error) {
	var read pageRead
	for want, first := m.opts.PageSize, true; want > 0; first = false {
		list, err := m.list(ctx, logger, cp, min(want, listChunk), first)
		if errors.Is(err, errExpiredMidPage) {
			logger.V(2).Info("Continue token expired in the middle of a page; the next step restarts the pass", "pass", cp.Pass)
			return read, nil
		}
		if err != nil {
			return read, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return read, fmt.Errorf("reading the list of %s: %w", m.resource.String(), err)
		}
		listMeta, err := meta.ListAccessor(list)
		if err != nil {
			return read, fmt.Errorf("reading the list of %s: %w", m.resource.String(), err)
		}
		for _, item := range items {
			if m.holds != nil && !m.holds(item) {
				continue
			}
			// Clear a copy to find the objects that need a write; the
			// write uses that copy while the stored object is still the
			// listed revision.
			cleared := item.DeepCopyObject()
			if !m.clear(cleared) {
				continue
			}
			read.dirty++
			select {
			case work <- pending{listed: item, cleared: cleared}:
			case <-t.stop:
				return read, nil
			case <-ctx.Done():
				return read, ctx.Err()
			}
		}
		read.seen += len(items)
		read.remaining = listMeta.GetRemainingItemCount()
		cp.Continue = AtLatestRevision(listMeta.GetContinue())
		want -= int64(len(items))
		if cp.Continue == "" || len(items) == 0 {
			break
		}
	}
	return read, nil
}

// AtLatestRevision returns a continue token that goes on after the same key
// as token, but at the storage's latest revision instead of the revision of
// the pass's first list, as the etcd3 storage itself does when that revision
// has been compacted. Each list then reads current objects, so fewer writes
// conflict with those made since the pass began, and the token never
// expires. A pass is then not a snapshot, which neither clearing nor
// waiting for absence needs: it visits every key that exists when it passes
// it, objects deleted meanwhile are not seen again, and objects created
// behind it are created with the feature off. A token the storage did not
// encode, or one already at the latest revision, is returned unchanged.
func AtLatestRevision(token string) string {
	if token == "" {
		return ""
	}
	key, rv, err := storage.DecodeContinue(token, "/")
	if err != nil || rv < 0 {
		return token
	}
	latest, err := storage.EncodeContinue(key, "/", -1)
	if err != nil {
		return token
	}
	return latest
}

// list reads up to limit objects after cp.Continue. When the token has
// expired it continues from the storage's fresh token; when the storage
// offers none it restarts the pass in cp if mayRestart, and returns
// errExpiredMidPage otherwise.
func (m *Migrator) list(ctx context.Context, logger klog.Logger, cp *Checkpoint, limit int64, mayRestart bool) (runtime.Object, error) {
	for range 3 {
		listCtx, cancel := context.WithTimeout(ctx, listTimeout)
		list, err := m.store.List(listCtx, &metainternalversion.ListOptions{Limit: limit, Continue: cp.Continue})
		cancel()
		if err == nil {
			return list, nil
		}
		if !apierrors.IsResourceExpired(err) || cp.Continue == "" {
			return nil, fmt.Errorf("listing %s: %w", m.resource.String(), err)
		}
		var status apierrors.APIStatus
		if errors.As(err, &status) && status.Status().ListMeta.Continue != "" {
			// The storage compacted past the pass's snapshot: continue
			// after the same key at the latest revision.
			logger.V(2).Info("Continue token expired, continuing with the storage's fresh token", "pass", cp.Pass)
			cp.Continue = status.Status().ListMeta.Continue
			continue
		}
		if !mayRestart {
			return nil, errExpiredMidPage
		}
		logger.Info("Continue token expired and the storage offers none, restarting the pass", "pass", cp.Pass)
		*cp = Checkpoint{Pass: cp.Pass + 1}
	}
	return nil, fmt.Errorf("listing %s: the continue token kept expiring", m.resource.String())
}

// tally counts the outcomes of a page's writes.
type tally struct {
	changed, unchanged, gone, conflicts atomic.Int64

	// stop is closed when the rate limiter gives up: no further write
	// starts, and the page stops being read.
	stop     chan struct{}
	stopOnce sync.Once

	mu          sync.Mutex
	failures    []failure
	interrupted error
}

type failure struct {
	name string
	err  error
}

// work writes the objects from work under the rate limiter until work is
// closed. Once the limiter gives up, it drains work without writing.
func (m *Migrator) work(ctx context.Context, work <-chan pending, t *tally) {
	for p := range work {
		select {
		case <-t.stop:
			continue
		default:
		}
		if err := m.limiter.Wait(ctx); err != nil {
			t.mu.Lock()
			if t.interrupted == nil {
				t.interrupted = fmt.Errorf("waiting for the migration rate limiter: %w", err)
			}
			t.mu.Unlock()
			t.stopOnce.Do(func() { close(t.stop) })
			continue
		}
		m.writeOne(ctx, p, t)
	}
}

// errNothingToClear aborts an update whose fresh object needs no clearing.
var errNothingToClear = errors.New("nothing to clear")

// writeOne clears the fresh copy of p's object through the store's update
// path and records the outcome.
func (m *Migrator) writeOne(ctx context.Context, p pending, t *tally) {
	obj := p.listed
	accessor, err := meta.Accessor(obj)
	if err != nil {
		t.fail(fmt.Sprintf("%T", obj), err)
		return
	}
	namespace, name := accessor.GetNamespace(), accessor.GetName()
	ctx = RequestContext(ctx, m.resource.WithVersion(m.version), "update", namespace, name)
	if m.subresource != "" {
		if info, ok := genericapirequest.RequestInfoFrom(ctx); ok {
			info.Subresource = m.subresource
		}
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()

	info := &clearInfo{resource: m.resource, name: name, clear: m.clear, listed: p.listed, cleared: p.cleared}
	out, _, err := m.store.Update(ctx, name, info, forbidCreate(m.resource, name), rest.ValidateAllObjectUpdateFunc,
		false, &metav1.UpdateOptions{FieldManager: "kube-apiserver-feature-migrator"})
	t.conflicts.Add(int64(info.conflicts))
	switch {
	case err == nil:
		// The store skips a write whose bytes would not change.
		if a, aerr := meta.Accessor(out); aerr == nil && a.GetResourceVersion() == info.resourceVersion {
			t.unchanged.Add(1)
		} else {
			t.changed.Add(1)
		}
	case errors.Is(err, errNothingToClear):
		t.unchanged.Add(1) // someone else cleared it meanwhile
	case apierrors.IsNotFound(err):
		t.gone.Add(1) // deleted meanwhile; never re-created
	case errors.Is(ctx.Err(), context.Canceled):
		// The step is being cancelled; Step reports it.
	default:
		klog.FromContext(ctx).V(2).Info("Could not clear a stored object", "resource", m.resource.String(),
			"namespace", namespace, "name", name, "err", err)
		t.fail(namespacedName(namespace, name), err)
	}
}

// sameRevision reports whether a and b, objects of the same key, are the
// same revision of it: their resourceVersion, the storage's revision of
// their last write, is the same.
func sameRevision(a, b runtime.Object) bool {
	ma, err := meta.Accessor(a)
	if err != nil {
		return false
	}
	mb, err := meta.Accessor(b)
	return err == nil && ma.GetResourceVersion() != "" && ma.GetResourceVersion() == mb.GetResourceVersion()
}

// ServedResource returns resource at the version a call of its registry
// store is made in: the first version, in the group's priority order, that
// has the kind of example, an object of resource (nil: the group's first
// version). That is not the group's preferred version for a resource a
// newer version does not serve yet, such as scheduling.k8s.io's workloads
// or resource.k8s.io's resourcepoolstatusrequests.
func ServedResource(resource schema.GroupResource, example runtime.Object) schema.GroupVersionResource {
	versions := legacyscheme.Scheme.PrioritizedVersionsForGroup(resource.Group)
	if len(versions) == 0 {
		return resource.WithVersion("v1")
	}
	if example != nil {
		if kinds, _, err := legacyscheme.Scheme.ObjectKinds(example); err == nil && len(kinds) > 0 {
			for _, gv := range versions {
				if legacyscheme.Scheme.Recognizes(gv.WithKind(kinds[0].Kind)) {
					return resource.WithVersion(gv.Version)
				}
			}
		}
	}
	return resource.WithVersion(versions[0].Version)
}

// RequestContext returns ctx for a call of a registry store on an object of
// resource outside of an HTTP request: with the namespace, and with the
// request info the strategies expect (declarative validation reads the API
// version from it and converts the object to it; see ServedResource).
func RequestContext(ctx context.Context, resource schema.GroupVersionResource, verb, namespace, name string) context.Context {
	prefix := "apis"
	if resource.Group == "" {
		prefix = "api"
	}
	info := &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              verb,
		APIPrefix:         prefix,
		APIGroup:          resource.Group,
		APIVersion:        resource.Version,
		Namespace:         namespace,
		Resource:          resource.Resource,
		Name:              name,
	}
	return genericapirequest.WithRequestInfo(genericapirequest.WithNamespace(ctx, namespace), info)
}

func (t *tally) fail(name string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failures = append(t.failures, failure{name: name, err: err})
}

func namespacedName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// forbidCreate refuses the creation of an object: a migration only rewrites.
func forbidCreate(resource schema.GroupResource, name string) rest.ValidateObjectFunc {
	return func(context.Context, runtime.Object) error {
		return apierrors.NewNotFound(resource, name)
	}
}

// clearInfo is the rest.UpdatedObjectInfo of a migration write: on every
// attempt it clears a copy of the fresh stored object, so that a write made
// by someone else meanwhile is kept, never overwritten with stale data.
type clearInfo struct {
	resource schema.GroupResource
	name     string
	clear    ClearFunc

	// listed is the object as listed; cleared is a cleared copy of it,
	// used once when the storage's guess of the current object (the watch
	// cache's copy) is still that revision.
	listed, cleared runtime.Object

	// attempts counts calls of UpdatedObject; conflicts those that got
	// another version of the object than the previous one: someone wrote
	// meanwhile. (An attempt may also follow a read of the same version:
	// when the cached object's new encoding equals its old one, etcd3's
	// GuaranteedUpdate reads the stored bytes before it skips the write,
	// and tries again when they differ, e.g. at an older storage version.)
	// resourceVersion is that of the last fresh object.
	attempts, conflicts int
	resourceVersion     string
}

var _ rest.UpdatedObjectInfo = &clearInfo{}

// Preconditions returns none: the fresh object is cleared whatever its
// version or UID.
func (*clearInfo) Preconditions() *metav1.Preconditions { return nil }

// UpdatedObject returns a cleared copy of old, NotFound when there is no old
// object, or errNothingToClear when old needs no clearing.
func (c *clearInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	c.attempts++
	if old == nil {
		return nil, apierrors.NewNotFound(c.resource, c.name)
	}
	accessor, err := meta.Accessor(old)
	if err != nil {
		return nil, err
	}
	if rv := accessor.GetResourceVersion(); rv == "" || rv == "0" {
		return nil, apierrors.NewNotFound(c.resource, c.name)
	}
	if c.attempts > 1 && accessor.GetResourceVersion() != c.resourceVersion {
		c.conflicts++
	}
	c.resourceVersion = accessor.GetResourceVersion()
	if c.cleared != nil && (old == c.listed || sameRevision(old, c.listed)) {
		// The listed object itself (in the watch cache's copy, or handed
		// back by the storage): its cleared copy is ready.
		obj := c.cleared
		c.cleared = nil
		return obj, nil
	}
	obj := old.DeepCopyObject()
	if !c.clear(obj) {
		return nil, errNothingToClear
	}
	return obj, nil
}
