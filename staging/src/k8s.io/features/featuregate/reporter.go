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

package featuregate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	featuresinformers "k8s.io/features/client/informers/externalversions"
	featureslisters "k8s.io/features/client/listers/api/v1alpha1"
	"k8s.io/features/gatename"
)

// APIServerComponent is the component name of kube-apiserver. Its uses list
// every apiserver identity; other components keep a sample of at most
// MaxSampledReporters reporters.
const (
	APIServerComponent  = featuresv1alpha1.APIServerComponent
	MaxSampledReporters = featuresv1alpha1.MaxSampledReporters
)

// ReporterOptions tune how Start reports uses. The zero value of a field
// means its default.
type ReporterOptions struct {
	// Namespace holds the Features to report to. Default kube-system.
	Namespace string
	// ReportAllKnown reports every gate the process knows, checked or not,
	// as kube-apiserver does. Default: true for kube-apiserver, else false.
	ReportAllKnown *bool
	// ResyncPeriod is how often every Feature is checked again even without
	// events. Default 5 minutes.
	ResyncPeriod time.Duration
	// FirstWriteDelay is the upper bound of the random delay before writing a
	// missing entry, so that many reporters of one component do not all write
	// after a reset: the first write reaches the others through their watch
	// and they find nothing to do. Default 2 s; none for kube-apiserver, whose
	// uses list every identity. Negative: no delay.
	FirstWriteDelay time.Duration
	// SampleDelay is how old an entry must be before a reporter adds itself to
	// its non-full sample of reporters. It keeps the writes right after a
	// reset at about one per (component, value) pair. Default 1 minute.
	SampleDelay time.Duration
	// QPS and Burst bound the rate of writes. Defaults 5 and 10; 50 and 100
	// for kube-apiserver, which reports every gate it knows when it starts.
	QPS   float32
	Burst int
	// Workers is the number of Features processed concurrently. Default 2.
	Workers int
}

func (o ReporterOptions) withDefaults(component string) ReporterOptions {
	apiserver := component == APIServerComponent
	if o.Namespace == "" {
		o.Namespace = metav1.NamespaceSystem
	}
	if o.ReportAllKnown == nil {
		o.ReportAllKnown = &apiserver
	}
	if o.ResyncPeriod == 0 {
		o.ResyncPeriod = 5 * time.Minute
	}
	if o.FirstWriteDelay == 0 && !apiserver {
		o.FirstWriteDelay = 2 * time.Second
	}
	if o.SampleDelay == 0 {
		o.SampleDelay = time.Minute
	}
	if o.QPS == 0 {
		o.QPS = 5
		if apiserver {
			o.QPS = 50
		}
	}
	if o.Burst == 0 {
		o.Burst = 10
		if apiserver {
			o.Burst = 100
		}
	}
	if o.Workers == 0 {
		o.Workers = 2
	}
	return o
}

// Start reports, until ctx ends, which gates this process checked and what it
// found: for every such gate it keeps an entry (component, enabled) in
// status.uses of the gate's Feature with identity among the reporters. It
// returns once the informer has synced; reporting goes on in the background.
func (g *Gate) Start(ctx context.Context, client featuresclient.Interface, identity string) error {
	return g.StartWithOptions(ctx, client, identity, ReporterOptions{})
}

// StartWithOptions is Start with options.
func (g *Gate) StartWithOptions(ctx context.Context, client featuresclient.Interface, identity string, opts ReporterOptions) error {
	r, err := newReporter(g, client, identity, opts)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

// reporter keeps this process's entries in the uses of Features.
type reporter struct {
	gate     *Gate
	client   featuresclient.Interface
	identity string
	opts     ReporterOptions
	sampled  bool

	informers featuresinformers.SharedInformerFactory
	lister    featureslisters.FeatureLister
	queue     workqueue.TypedRateLimitingInterface[string]
	limiter   flowcontrol.RateLimiter

	mu sync.Mutex
	// delayed holds, per Feature whose entry is missing, when to write it.
	delayed map[string]time.Time
	// writes and conflicts count write attempts, for tests and metrics.
	writes, conflicts int
	// absent counts, per Feature, the passes that found no Feature to
	// report to (it is reported when its add event arrives), for tests.
	absent map[string]int
}

func newReporter(g *Gate, client featuresclient.Interface, identity string, opts ReporterOptions) (*reporter, error) {
	if identity == "" {
		return nil, fmt.Errorf("a reporter needs an identity")
	}
	opts = opts.withDefaults(g.Component())
	r := &reporter{
		gate:     g,
		client:   client,
		identity: identity,
		opts:     opts,
		sampled:  g.Component() != APIServerComponent,
		delayed:  map[string]time.Time{},
		absent:   map[string]int{},
		limiter:  flowcontrol.NewTokenBucketRateLimiter(opts.QPS, opts.Burst),
	}
	r.informers = featuresinformers.NewSharedInformerFactoryWithOptions(client, opts.ResyncPeriod, featuresinformers.WithNamespace(opts.Namespace))
	informer := r.informers.Features().V1alpha1().Features()
	r.lister = informer.Lister()
	r.queue = workqueue.NewTypedRateLimitingQueueWithConfig(newRetryRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature-use-reporter"})
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    r.enqueue,
		UpdateFunc: func(_, obj any) { r.enqueue(obj) },
	})
	return r, err
}

func (r *reporter) enqueue(obj any) {
	if f, ok := obj.(*featuresv1alpha1.Feature); ok {
		r.queue.Add(f.Name)
	}
}

// reported returns the gates to report and the value of each.
func (r *reporter) reported() map[featuregate.Feature]bool {
	if *r.opts.ReportAllKnown {
		return r.gate.Known()
	}
	return r.gate.Uses()
}

func (r *reporter) run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("component", r.gate.Component(), "identity", r.identity)
	r.informers.Start(ctx.Done())
	for t, ok := range r.informers.WaitForCacheSync(ctx.Done()) {
		if !ok {
			r.queue.ShutDown()
			return fmt.Errorf("feature informer %v did not sync", t)
		}
	}
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
		r.informers.Shutdown()
	}()
	// New checks and mutations of the gate: look at every reported gate again.
	go func() {
		r.enqueueAll()
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.gate.Changed():
				r.enqueueAll()
			}
		}
	}()
	for range r.opts.Workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for r.processNext(klog.NewContext(ctx, logger)) {
			}
		}, time.Second)
	}
	logger.V(2).Info("Reporting feature gate uses", "namespace", r.opts.Namespace)
	return nil
}

func (r *reporter) enqueueAll() {
	for gate := range r.reported() {
		r.queue.Add(gatename.ObjectName(string(gate)))
	}
}

func (r *reporter) processNext(ctx context.Context) bool {
	name, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(name)
	retryAfter, err := r.sync(ctx, name)
	switch {
	case err != nil:
		retries := r.queue.NumRequeues(name)
		if apierrors.IsConflict(err) {
			klog.FromContext(ctx).V(4).Info("Conflict reporting a feature use, will retry", "feature", name, "retries", retries)
		} else {
			klog.FromContext(ctx).Error(err, "Reporting a feature use failed, will retry", "feature", name, "retries", retries)
		}
		r.queue.AddRateLimited(name)
	case retryAfter > 0:
		// A planned delay, not a failure: the backoff is neither raised nor
		// reset.
		r.queue.AddAfter(name, retryAfter)
	default:
		r.queue.Forget(name)
	}
	return true
}

// Retry backoff of failed writes: exponential from retryBase, capped at
// retryCap, with up to 100% jitter so that reporters that failed together
// (a conflict storm, an apiserver restart) do not retry together.
const (
	retryBase = 200 * time.Millisecond
	retryCap  = 30 * time.Second
)

// newRetryRateLimiter returns the rate limiter of the reporter's queue: after
// the n-th consecutive failure of an item (n >= 1) it waits
// min(retryBase*2^(n-1), retryCap), plus up to 100% jitter.
func newRetryRateLimiter[T comparable]() workqueue.TypedRateLimiter[T] {
	return jitteredRateLimiter[T]{workqueue.NewTypedItemExponentialFailureRateLimiter[T](retryBase, retryCap)}
}

// jitteredRateLimiter adds up to 100% jitter to the delays of another rate
// limiter: When returns a delay in [d, 2d) where d is the inner delay.
type jitteredRateLimiter[T comparable] struct {
	inner workqueue.TypedRateLimiter[T]
}

func (l jitteredRateLimiter[T]) When(item T) time.Duration {
	return wait.Jitter(l.inner.When(item), 1.0)
}

func (l jitteredRateLimiter[T]) Forget(item T) { l.inner.Forget(item) }

func (l jitteredRateLimiter[T]) NumRequeues(item T) int { return l.inner.NumRequeues(item) }

// sync makes sure this process's entry is in the Feature's uses. It returns
// a delay after which to look again, or an error to retry with backoff.
func (r *reporter) sync(ctx context.Context, name string) (time.Duration, error) {
	f, err := r.lister.Features(r.opts.Namespace).Get(name)
	if apierrors.IsNotFound(err) {
		r.mu.Lock()
		r.absent[name]++
		r.mu.Unlock()
		return 0, nil // reported once it appears: its add event enqueues it
	}
	if err != nil {
		return 0, err
	}
	enabled, ok := r.reported()[featuregate.Feature(f.Spec.Gate)]
	if !ok {
		return 0, nil
	}
	uses, wait := r.decide(f, enabled, time.Now())
	if uses == nil {
		return wait, nil
	}
	if err := r.limiter.Wait(ctx); err != nil {
		return 0, err
	}
	updated := f.DeepCopy()
	updated.Status.Uses = uses
	r.mu.Lock()
	r.writes++
	r.mu.Unlock()
	_, err = r.client.FeaturesV1alpha1().Features(r.opts.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: r.gate.Component()})
	if apierrors.IsConflict(err) {
		r.mu.Lock()
		r.conflicts++
		r.mu.Unlock()
	}
	return 0, err
}

// decide returns the uses to write, or nil and how long to wait before
// looking again (0: nothing to do until an event). Besides adding its own
// entry, a reporter removes itself from an entry of its component with the
// other value, left from before a restart with a different configuration.
func (r *reporter) decide(f *featuresv1alpha1.Feature, enabled bool, now time.Time) ([]featuresv1alpha1.FeatureUse, time.Duration) {
	component := r.gate.Component()
	uses, stale := r.withoutStaleSelf(f.Status.Uses, component, enabled)
	i := slices.IndexFunc(uses, func(u featuresv1alpha1.FeatureUse) bool {
		return u.Component == component && u.Enabled == enabled
	})
	if i < 0 {
		// Missing entry: wait until a random point within FirstWriteDelay,
		// then write unless someone else has written it meanwhile.
		if wait := r.firstWriteWait(f.Name, now); wait > 0 {
			return nil, wait
		}
		return append(uses, featuresv1alpha1.FeatureUse{
			Component:       component,
			Enabled:         enabled,
			Reporters:       []string{r.identity},
			FirstReportTime: metav1.NewTime(now),
		}), 0
	}
	r.clearDelayed(f.Name)
	use := uses[i]
	join := !slices.Contains(use.Reporters, r.identity)
	if join && r.sampled {
		if len(use.Reporters) >= MaxSampledReporters {
			join = false
		} else if age := now.Sub(use.FirstReportTime.Time); age < r.opts.SampleDelay {
			if !stale {
				return nil, wait.Jitter(r.opts.SampleDelay-age, 0.5)
			}
			join = false
		}
	}
	if !join && !stale {
		return nil, 0
	}
	if join {
		uses[i].Reporters = append(slices.Clone(use.Reporters), r.identity)
	}
	return uses, 0
}

// withoutStaleSelf returns a copy of uses without this reporter in the entry
// of its component with the other value (dropping the entry if it empties),
// and whether there was such a stale membership.
func (r *reporter) withoutStaleSelf(uses []featuresv1alpha1.FeatureUse, component string, enabled bool) ([]featuresv1alpha1.FeatureUse, bool) {
	out := make([]featuresv1alpha1.FeatureUse, 0, len(uses)+1)
	stale := false
	for _, u := range uses {
		if u.Component == component && u.Enabled != enabled && slices.Contains(u.Reporters, r.identity) {
			stale = true
			u.Reporters = slices.DeleteFunc(slices.Clone(u.Reporters), func(id string) bool { return id == r.identity })
			if len(u.Reporters) == 0 {
				continue
			}
		}
		out = append(out, u)
	}
	return out, stale
}

// firstWriteWait returns how long to wait before writing a missing entry of
// the Feature: the first time, a random point within FirstWriteDelay is
// chosen; 0 once it has passed.
func (r *reporter) firstWriteWait(name string, now time.Time) time.Duration {
	if r.opts.FirstWriteDelay <= 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	deadline, ok := r.delayed[name]
	if !ok {
		deadline = now.Add(time.Duration(rand.Int64N(int64(r.opts.FirstWriteDelay))) + time.Millisecond)
		r.delayed[name] = deadline
	}
	if wait := deadline.Sub(now); wait > 0 {
		return wait
	}
	delete(r.delayed, name)
	return 0
}

func (r *reporter) clearDelayed(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.delayed, name)
}
