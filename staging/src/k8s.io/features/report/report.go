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

package report

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	featuresapply "k8s.io/client-go/applyconfigurations/features/v1alpha1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	"k8s.io/features/internal/backoff"
)

// Options say which report a Reporter keeps and how. The zero value of a
// field means its default.
type Options struct {
	// Component is the name of the reporting component, for example
	// kubelet or kube-scheduler. Required.
	Component string
	// Identity identifies the process among its component's (a kubelet's
	// node name, a kube-apiserver's identity lease name, a host name).
	// Required. The report is named <Component>.<Identity>.
	Identity string
	// Namespace holds the report, next to the Features it reports to.
	// Default kube-system.
	Namespace string
	// ReportAllKnown reports every gate the process knows, queried or not,
	// as kube-apiserver does. Otherwise only the gates the process queried
	// are reported, which needs a gate that implements
	// featuregate.QueryObserver.
	ReportAllKnown bool
	// HolderLease names a Lease this process already renews (a kubelet's
	// node lease, kube-apiserver's identity lease). While it is renewed the
	// report counts as live, so the report is written only when its values
	// change, and read back every VerifyInterval. Without it the report is
	// renewed every LeaseDuration/4.
	HolderLease *featuresv1alpha1.FeatureReportLease
	// LeaseDuration is how long the report counts as live after it was
	// written or renewed, when no HolderLease says so. Default 40 s, as a
	// node lease.
	LeaseDuration time.Duration
	// Coalesce is how long to wait after a first query of a gate, or a
	// call of Changed, before writing, so that the queries a process makes
	// while it starts are written together. Default 1 s.
	Coalesce time.Duration
	// VerifyInterval is how often a report that is not renewed is read
	// back (its metadata only) and written again if it is gone or was
	// changed by someone else. Default 5 minutes.
	VerifyInterval time.Duration
	// QPS and Burst bound the rate of writes. Defaults 5 and 10.
	QPS   float32
	Burst int
	// Annotations are written on the report (kube-apiserver: its emulation
	// version, featuresv1alpha1.EmulationVersionAnnotation).
	Annotations map[string]string
	// Management says where a gate's value comes from, for the management
	// and cached fields of the report's gates. nil: every value comes from
	// the process's own configuration.
	Management func(featuregate.Feature) (featuresv1alpha1.FeatureManagement, bool)
	// Followed returns the gates whose value comes from a Feature: they are
	// reported even before the process checks them, so that a rollout in
	// steps sees each member of its cohort state the value it took. nil:
	// only the checked gates are reported.
	Followed func() []featuregate.Feature
	// StartTime is when the process started, which the report states so
	// that a restart shows (a rollout in steps counts its cohort's
	// restarts from it). Default: when this package was initialized,
	// which is when a process that links it started.
	StartTime time.Time
}

// processStart is when this package was initialized: the start of the
// process, to the second that matters.
var processStart = time.Now()

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = metav1.NamespaceSystem
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
	if o.StartTime.IsZero() {
		o.StartTime = processStart
	}
	return o
}

// reportKey is the only key of the reporter's queue: there is one report.
const reportKey = "report"

// Reporter keeps the FeatureReport of a process: which gates it queried and
// the values it uses. Create it with NewReporter; it is safe for concurrent
// use.
type Reporter struct {
	gate     featuregate.FeatureGate
	client   kubernetes.Interface
	name     string
	opts     Options
	observes bool
	queue    workqueue.TypedRateLimitingInterface[string]
	limiter  flowcontrol.RateLimiter
	// changed receives (non-blocking, capacity 1) when the report may have
	// to be written again.
	changed chan struct{}
	// write stores a report; tests replace it.
	write func(ctx context.Context, report *featuresv1alpha1.FeatureReport) (generation int64, err error)
	// read returns the generation of the stored report; tests replace it.
	read func(ctx context.Context) (generation int64, err error)
	now  func() time.Time

	mu sync.Mutex
	// queried holds the gates the process queried, as the gate's observer
	// told them.
	queried map[featuregate.Feature]bool
	// written is what was last stored, and when.
	written           []featuresv1alpha1.FeatureReportGate
	writtenGeneration int64
	writtenAt         time.Time
	verifiedAt        time.Time
	// writes counts successful writes, for tests.
	writes int
}

// NewReporter returns a Reporter of gate's values, which Run writes with
// client. Unless opts.ReportAllKnown, it registers itself as gate's query
// observer (featuregate.QueryObserver, replacing any other), so that it
// knows every gate the process queries from then on and every gate it
// queried before, including before any client existed; a gate that does not
// implement QueryObserver has nothing to report.
func NewReporter(gate featuregate.FeatureGate, client kubernetes.Interface, opts Options) (*Reporter, error) {
	var errs []error
	if gate == nil {
		errs = append(errs, errors.New("a reporter needs a feature gate"))
	}
	if opts.Component == "" {
		errs = append(errs, errors.New("a reporter needs a component name"))
	}
	if opts.Identity == "" {
		errs = append(errs, errors.New("a reporter needs an identity"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	opts = opts.withDefaults()
	r := &Reporter{
		gate:    gate,
		client:  client,
		name:    featuresv1alpha1.FeatureReportName(opts.Component, opts.Identity),
		opts:    opts,
		limiter: flowcontrol.NewTokenBucketRateLimiter(opts.QPS, opts.Burst),
		changed: make(chan struct{}, 1),
		now:     time.Now,
		queried: map[featuregate.Feature]bool{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(backoff.NewRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature-use-reporter"}),
	}
	r.write, r.read = r.apply, r.readGeneration
	if observer, ok := gate.(featuregate.QueryObserver); ok && !opts.ReportAllKnown {
		r.observes = true
		observer.ObserveQueries(r.observe)
	}
	return r, nil
}

// observe is the gate's query observer: it runs on the querying goroutine,
// on the first query of a feature only, and must not block.
func (r *Reporter) observe(name featuregate.Feature) {
	r.mu.Lock()
	known := r.queried[name]
	r.queried[name] = true
	r.mu.Unlock()
	if !known {
		r.Changed()
	}
}

// Changed tells the reporter that values may have changed (the process
// mutated its gate): it writes the report soon if they did, together with
// other changes within Options.Coalesce. It never blocks.
func (r *Reporter) Changed() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// Run writes the report, and writes it again when values change, until ctx
// ends. It writes the report when its values change and, unless
// Options.HolderLease says the process is alive, renews it; it reads no
// Feature. Failures are logged and retried with a jittered exponential
// backoff.
func (r *Reporter) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("component", r.opts.Component, "identity", r.opts.Identity, "report", klog.KRef(r.opts.Namespace, r.name))
	ctx = klog.NewContext(ctx, logger)
	if !r.observes && !r.opts.ReportAllKnown {
		logger.Info("Warning: the feature gate does not tell which gates this process queries; reporting none")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer r.queue.ShutDown()
	// Gates queried for the first time, and changes: write after a short
	// pause, together with the changes that follow.
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				r.queue.ShutDown()
				return
			case <-r.changed:
				r.queue.AddAfter(reportKey, r.opts.Coalesce)
			}
		}
	})
	r.queue.Add(reportKey)
	logger.V(2).Info("Reporting feature gate uses")
	for r.processNext(ctx) {
	}
}

func (r *Reporter) processNext(ctx context.Context) bool {
	key, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(key)
	next, err := r.sync(ctx)
	if err != nil {
		if ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Reporting feature gate uses failed, will retry", "retries", r.queue.NumRequeues(key))
		}
		r.queue.AddRateLimited(key)
		return true
	}
	r.queue.Forget(key)
	r.queue.AddAfter(key, next)
	return true
}

// switches are component-base's AllAlpha and AllBeta pseudo-gates, which
// set other gates and are not features of their own.
var switches = map[featuregate.Feature]bool{"AllAlpha": true, "AllBeta": true}

// values returns the gates to report and the value of each. It evaluates
// them on a copy of the gate, so that reporting never counts as a query.
func (r *Reporter) values() map[featuregate.Feature]bool {
	cp := r.gate.DeepCopy()
	if cp == nil {
		return nil
	}
	known := cp.GetAllVersioned()
	var names []featuregate.Feature
	if r.opts.ReportAllKnown {
		for name := range known {
			names = append(names, name)
		}
	} else {
		r.mu.Lock()
		for name := range r.queried {
			names = append(names, name)
		}
		r.mu.Unlock()
		if r.opts.Followed != nil {
			names = append(names, r.opts.Followed()...)
		}
	}
	values := make(map[featuregate.Feature]bool, len(names))
	for _, name := range names {
		// A queried gate is registered: Enabled panics for the others.
		if _, ok := known[name]; ok && !switches[name] {
			values[name] = cp.Enabled(name)
		}
	}
	return values
}

// gates returns the report's gates, sorted by name.
func (r *Reporter) gates() []featuresv1alpha1.FeatureReportGate {
	values := r.values()
	out := make([]featuresv1alpha1.FeatureReportGate, 0, len(values))
	for name, enabled := range values {
		g := featuresv1alpha1.FeatureReportGate{Name: string(name), Enabled: enabled}
		if r.opts.Management != nil {
			g.Management, g.Cached = r.opts.Management(name)
		}
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b featuresv1alpha1.FeatureReportGate) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// sync writes the report when its values changed or its renewal is due, and
// verifies an unrenewed report now and then. It returns when to look again.
func (r *Reporter) sync(ctx context.Context) (time.Duration, error) {
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
		generation, err := r.write(ctx, r.report(gates, now))
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
func (r *Reporter) report(gates []featuresv1alpha1.FeatureReportGate, now time.Time) *featuresv1alpha1.FeatureReport {
	renew := metav1.NewMicroTime(now)
	started := metav1.NewMicroTime(r.opts.StartTime)
	report := &featuresv1alpha1.FeatureReport{
		TypeMeta:   metav1.TypeMeta{APIVersion: featuresv1alpha1.SchemeGroupVersion.String(), Kind: "FeatureReport"},
		ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: r.opts.Namespace, Annotations: r.opts.Annotations},
		Spec: featuresv1alpha1.FeatureReportSpec{
			Component:   r.opts.Component,
			Identity:    r.opts.Identity,
			Gates:       gates,
			RenewTime:   &renew,
			HolderLease: r.opts.HolderLease,
			StartTime:   &started,
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
func (r *Reporter) apply(ctx context.Context, report *featuresv1alpha1.FeatureReport) (int64, error) {
	body, err := json.Marshal(report)
	if err != nil {
		return 0, err
	}
	rc := r.client.FeaturesV1alpha1().RESTClient()
	if c, ok := rc.(*rest.RESTClient); ok && c == nil {
		// A fake clientset has no REST client: apply with the typed
		// client, which answers with the whole report.
		var config featuresapply.FeatureReportApplyConfiguration
		if err := json.Unmarshal(body, &config); err != nil {
			return 0, err
		}
		stored, err := r.client.FeaturesV1alpha1().FeatureReports(report.Namespace).Apply(ctx, &config, metav1.ApplyOptions{FieldManager: r.opts.Component, Force: true})
		if err != nil {
			return 0, err
		}
		return stored.Generation, nil
	}
	raw, err := rc.Patch(types.ApplyPatchType).
		Namespace(report.Namespace).Resource("featurereports").Name(report.Name).
		Param("fieldManager", r.opts.Component).Param("force", "true").
		SetHeader("Accept", partialObjectMetadata).
		Body(body).Do(ctx).Raw()
	if err != nil {
		return 0, err
	}
	return generationOf(raw)
}

// readGeneration returns the generation of the stored report, reading its
// metadata only.
func (r *Reporter) readGeneration(ctx context.Context) (int64, error) {
	rc := r.client.FeaturesV1alpha1().RESTClient()
	if c, ok := rc.(*rest.RESTClient); ok && c == nil {
		// A fake clientset has no REST client.
		stored, err := r.client.FeaturesV1alpha1().FeatureReports(r.opts.Namespace).Get(ctx, r.name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		return stored.Generation, nil
	}
	raw, err := rc.Get().
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
