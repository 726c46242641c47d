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
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
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
	// Namespace holds the reports, next to the Features they report to.
	// Default kube-system.
	Namespace string
	// ReportAllKnown reports every gate the process knows, checked or not,
	// as kube-apiserver does. Default: true for kube-apiserver, else false.
	ReportAllKnown *bool
	// HolderLease names a Lease this process already renews (a kubelet's
	// node lease, kube-apiserver's identity lease). While it is renewed the
	// report counts as live, so the report is written only when its values
	// change. Without it the report is renewed every LeaseDuration/4.
	HolderLease *featuresv1alpha1.FeatureReportLease
	// LeaseDuration is how long the report counts as live after it was
	// written or renewed, when no HolderLease says so. Default 40 s, as a
	// node lease.
	LeaseDuration time.Duration
	// Coalesce is how long to wait after a first check of a gate before
	// writing, so that the checks a process makes while it starts are
	// written together. Default 1 s.
	Coalesce time.Duration
	// VerifyInterval is how often a report that is not renewed is read
	// back (its metadata only) and written again if it is gone or was
	// changed by someone else. Default 5 minutes.
	VerifyInterval time.Duration
	// QPS and Burst bound the rate of writes. Defaults 5 and 10.
	QPS   float32
	Burst int
	// Annotations are written on the report (kube-apiserver: its
	// emulation version, featuresv1alpha1.EmulationVersionAnnotation).
	Annotations map[string]string
}

func (o ReporterOptions) withDefaults(component string) ReporterOptions {
	apiserver := component == APIServerComponent
	if o.Namespace == "" {
		o.Namespace = metav1.NamespaceSystem
	}
	if o.ReportAllKnown == nil {
		o.ReportAllKnown = &apiserver
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = 40 * time.Second
	}
	if o.Coalesce == 0 {
		o.Coalesce = time.Second
	}
	if o.VerifyInterval == 0 {
		o.VerifyInterval = 5 * time.Minute
	}
	if o.QPS == 0 {
		o.QPS = 5
	}
	if o.Burst == 0 {
		o.Burst = 10
	}
	return o
}

// Start reports, until ctx ends, which gates this process checked and what it
// found, in its own FeatureReport <component>.<identity>, which
// kube-apiserver aggregates into the uses of the gates' Features. It writes
// the report when the values change and, unless opts.HolderLease says the
// process is alive, renews it; it reads no Feature. It returns at once;
// reporting goes on in the background, and failures are retried with backoff.
func (g *Gate) Start(ctx context.Context, client featuresclient.Interface, identity string) error {
	return g.StartWithOptions(ctx, client, identity, ReporterOptions{})
}

// StartWithOptions is Start with options.
func (g *Gate) StartWithOptions(ctx context.Context, client featuresclient.Interface, identity string, opts ReporterOptions) error {
	r, err := newReporter(g, client, identity, opts)
	if err != nil {
		return err
	}
	r.run(ctx)
	return nil
}

// reportKey is the only key of the reporter's queue: there is one report.
const reportKey = "report"

// reporter keeps this process's FeatureReport.
type reporter struct {
	gate     *Gate
	client   featuresclient.Interface
	identity string
	name     string
	opts     ReporterOptions
	queue    workqueue.TypedRateLimitingInterface[string]
	limiter  flowcontrol.RateLimiter
	// write stores a report; tests replace it.
	write func(ctx context.Context, report *featuresv1alpha1.FeatureReport) (generation int64, err error)
	// read returns the generation of the stored report; tests replace it.
	read func(ctx context.Context) (generation int64, err error)
	now  func() time.Time

	mu sync.Mutex
	// written is what was last stored, and when.
	written           []featuresv1alpha1.FeatureReportGate
	writtenGeneration int64
	writtenAt         time.Time
	verifiedAt        time.Time
	// writes counts successful writes, for tests.
	writes int
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
		name:     featuresv1alpha1.FeatureReportName(g.Component(), identity),
		opts:     opts,
		limiter:  flowcontrol.NewTokenBucketRateLimiter(opts.QPS, opts.Burst),
		now:      time.Now,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(newRetryRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature-use-reporter"}),
	}
	r.write, r.read = r.apply, r.readGeneration
	return r, nil
}

// reported returns the gates to report and the value of each.
func (r *reporter) reported() map[featuregate.Feature]bool {
	if *r.opts.ReportAllKnown {
		return r.gate.Known()
	}
	return r.gate.Uses()
}

// switches are component-base's AllAlpha and AllBeta pseudo-gates, which
// set other gates and are not features of their own.
var switches = map[featuregate.Feature]bool{"AllAlpha": true, "AllBeta": true}

// gates returns the report's gates, sorted by name.
func (r *reporter) gates() []featuresv1alpha1.FeatureReportGate {
	reported := r.reported()
	out := make([]featuresv1alpha1.FeatureReportGate, 0, len(reported))
	for name, enabled := range reported {
		if !switches[name] {
			mode, cached := r.gate.Management(name)
			out = append(out, featuresv1alpha1.FeatureReportGate{Name: string(name), Enabled: enabled, Management: mode, Cached: cached})
		}
	}
	slices.SortFunc(out, func(a, b featuresv1alpha1.FeatureReportGate) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (r *reporter) run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("component", r.gate.Component(), "identity", r.identity, "report", r.opts.Namespace+"/"+r.name)
	ctx = klog.NewContext(ctx, logger)
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
	}()
	// New checks and mutations of the gate: write the new values after a
	// short pause, together with the checks that follow.
	go func() {
		r.queue.Add(reportKey)
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.gate.Changed():
				r.queue.AddAfter(reportKey, r.opts.Coalesce)
			}
		}
	}()
	go func() {
		for r.processNext(ctx) {
		}
	}()
	logger.V(2).Info("Reporting feature gate uses")
}

func (r *reporter) processNext(ctx context.Context) bool {
	key, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(key)
	next, err := r.sync(ctx)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reporting feature gate uses failed, will retry", "retries", r.queue.NumRequeues(key))
		r.queue.AddRateLimited(key)
		return true
	}
	r.queue.Forget(key)
	r.queue.AddAfter(key, next)
	return true
}

// Retry backoff of failed writes: exponential from retryBase, capped at
// retryCap, with up to 100% jitter so that reporters that failed together
// (an apiserver restart) do not retry together.
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

// sync writes the report when its values changed or its renewal is due, and
// verifies an unrenewed report now and then. It returns when to look again.
func (r *reporter) sync(ctx context.Context) (time.Duration, error) {
	gates := r.gates()
	now := r.now()
	r.mu.Lock()
	changed := r.writtenAt.IsZero() || !slices.Equal(gates, r.written)
	renew := r.opts.HolderLease == nil && now.Sub(r.writtenAt) >= r.opts.LeaseDuration/4
	verify := r.opts.HolderLease != nil && now.Sub(r.verifiedAt) >= r.opts.VerifyInterval
	generation := r.writtenGeneration
	r.mu.Unlock()
	if !changed && verify {
		// Nothing renews the report: make sure it is still there as
		// written (an administrator may have deleted it).
		stored, err := r.read(ctx)
		switch {
		case apierrors.IsNotFound(err):
			changed = true
		case err != nil:
			return 0, err
		case stored != generation:
			changed = true
		}
		r.mu.Lock()
		r.verifiedAt = now
		r.mu.Unlock()
	}
	if changed || renew {
		if err := r.limiter.Wait(ctx); err != nil {
			return 0, err
		}
		report := r.report(gates, now)
		generation, err := r.write(ctx, report)
		if err != nil {
			return 0, err
		}
		r.mu.Lock()
		r.written, r.writtenGeneration, r.writtenAt, r.verifiedAt = gates, generation, now, now
		r.writes++
		r.mu.Unlock()
		if changed {
			klog.FromContext(ctx).V(2).Info("Reported feature gate uses", "gates", len(gates), "generation", generation)
		}
	}
	if r.opts.HolderLease == nil {
		return wait.Jitter(r.opts.LeaseDuration/4, 0.1), nil
	}
	return wait.Jitter(r.opts.VerifyInterval, 0.2), nil
}

// report returns the report to store.
func (r *reporter) report(gates []featuresv1alpha1.FeatureReportGate, now time.Time) *featuresv1alpha1.FeatureReport {
	renew := metav1.NewMicroTime(now)
	report := &featuresv1alpha1.FeatureReport{
		TypeMeta:   metav1.TypeMeta{APIVersion: featuresv1alpha1.SchemeGroupVersion.String(), Kind: "FeatureReport"},
		ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: r.opts.Namespace, Annotations: r.opts.Annotations},
		Spec: featuresv1alpha1.FeatureReportSpec{
			Component:   r.gate.Component(),
			Identity:    r.identity,
			Gates:       gates,
			RenewTime:   &renew,
			HolderLease: r.opts.HolderLease,
		},
	}
	if r.opts.HolderLease == nil {
		seconds := int32(r.opts.LeaseDuration / time.Second)
		report.Spec.LeaseDurationSeconds = &seconds
	}
	return report
}

// partialObjectMetadata asks the apiserver to answer with the object's
// metadata only: a write's answer then costs the reporter a few hundred
// bytes whatever the report's size.
const partialObjectMetadata = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"

// apply stores the report with server-side apply (this process is its only
// field manager; it creates the report if it is missing) and returns its
// generation.
func (r *reporter) apply(ctx context.Context, report *featuresv1alpha1.FeatureReport) (int64, error) {
	body, err := json.Marshal(report)
	if err != nil {
		return 0, err
	}
	force := true
	raw, err := r.client.FeaturesV1alpha1().RESTClient().Patch(types.ApplyPatchType).
		Namespace(report.Namespace).Resource("featurereports").Name(report.Name).
		Param("fieldManager", r.gate.Component()).Param("force", fmt.Sprint(force)).
		SetHeader("Accept", partialObjectMetadata).
		Body(body).Do(ctx).Raw()
	if err != nil {
		return 0, err
	}
	return generationOf(raw)
}

// readGeneration returns the generation of the stored report, reading its
// metadata only.
func (r *reporter) readGeneration(ctx context.Context) (int64, error) {
	raw, err := r.client.FeaturesV1alpha1().RESTClient().Get().
		Namespace(r.opts.Namespace).Resource("featurereports").Name(r.name).
		SetHeader("Accept", partialObjectMetadata).
		Do(ctx).Raw()
	if err != nil {
		return 0, err
	}
	return generationOf(raw)
}

func generationOf(raw []byte) (int64, error) {
	var meta metav1.PartialObjectMetadata
	if err := json.Unmarshal(raw, &meta); err != nil {
		return 0, fmt.Errorf("reading the stored report's metadata: %w", err)
	}
	return meta.Generation, nil
}
