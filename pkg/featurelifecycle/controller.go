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

package featurelifecycle

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	coordinationinformers "k8s.io/client-go/informers/coordination/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/spf13/pflag"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresinformers "k8s.io/client-go/informers"
	featuresclient "k8s.io/client-go/kubernetes"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/noderequests"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/featurelifecycle/transition"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/pkg/features/lifecycle"
	"k8s.io/kubernetes/pkg/features/lifecycle/canary"
)

// ControllerOptions tune the lifecycle controller.
type ControllerOptions struct {
	// LivenessWindow is how recently an identity lease must have been renewed
	// for its apiserver to count as live.
	LivenessWindow time.Duration
	// WaitForUsesPeriod is the longest a FeatureReport counts as live when
	// neither a lease it names nor a lease duration of its own says how
	// long: the upper bound of a transition's wait for components whose
	// liveness cannot be seen.
	WaitForUsesPeriod time.Duration
	// ReportRetention is how long a FeatureReport that stopped being live
	// is kept before the apiserver that leads it deletes it.
	ReportRetention time.Duration
	// Resync is how often every Feature is looked at again without events.
	Resync time.Duration
	// ForgetWindow is how long an apiserver that stopped renewing its
	// identity lease still holds its configured value of every gate: desired
	// state changes only when every apiserver seen within the window agrees,
	// so an outage of the apiservers configured one way cannot make the
	// others start a destructive transition.
	ForgetWindow time.Duration
	// RetainMinorVersions is for how many minor versions after its
	// status.version a Feature that no live apiserver knows is kept.
	RetainMinorVersions int
	// Workers is the number of Features processed concurrently.
	Workers int
	// ResidueScanInterval is the pause between two passes of the scan for
	// stored data of Disabled features (residue.go); 0 turns the scan off.
	ResidueScanInterval time.Duration
	// ResidueScanPageInterval is the pause between two reads of a residue
	// pass, each of at most 100 objects: it bounds the load of the scan.
	ResidueScanPageInterval time.Duration
	// CentralGates are the gates whose other components follow the
	// apiservers' configured value (KEP stage 2); DynamicGates those whose
	// desired state an authorized client sets (stage 3). Each must be
	// allowed by its entry in lifecycle.Managements (Validate).
	CentralGates, DynamicGates []string

	// Lifecycles is the registry transitions are planned from; nil means
	// lifecycle.Registry of the resources the tasks' stores serve (the
	// env's Stores, when a *storecatalog.Catalog): the lifecycles derived
	// from the gate inventory and the explicit registrations. Not a flag:
	// tests pass their own.
	Lifecycles map[featuregate.Feature]lifecycle.Lifecycle
	// Clock is the clock of the controller and of its elector; nil means the
	// real clock. Not a flag: tests pass a fake one.
	Clock clock.PassiveClock
	// NodeRequests counts the kubelets' requests this apiserver serves, for
	// the error rate in the analysis of a rollout in steps; nil: rollouts
	// do not judge error rates. Not a flag: kube-apiserver wraps its
	// handler chain with it (serverflow.CountNodeRequests).
	NodeRequests *noderequests.Counter
	// Canaries says which gates can roll out in steps, and on which
	// components; nil means canary.Gates, the lifecycle registry's entry.
	// Not a flag: tests pass their own.
	Canaries map[featuregate.Feature]canary.Scope
}

// DefaultControllerOptions are the defaults of the flags.
func DefaultControllerOptions() ControllerOptions {
	return ControllerOptions{
		LivenessWindow:      leader.DefaultLivenessWindow,
		WaitForUsesPeriod:   3 * time.Minute,
		ReportRetention:     time.Hour,
		Resync:              30 * time.Second,
		ForgetWindow:        5 * time.Minute,
		RetainMinorVersions: 3,
		Workers:             2,
		ResidueScanInterval: 30 * time.Minute,
		// 50 objects a second: a pass over 100,000 stored objects
		// takes about 33 minutes.
		ResidueScanPageInterval: 2 * time.Second,
	}
}

// AddFlags adds the controller's flags to fs.
func (o *ControllerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.LivenessWindow, "feature-lifecycle-liveness-window", o.LivenessWindow,
		"How recently a kube-apiserver must have renewed its identity lease to count as live for leading features and agreeing on their desired state. Identity leases renew every 10s.")
	fs.DurationVar(&o.WaitForUsesPeriod, "feature-lifecycle-wait-for-uses-period", o.WaitForUsesPeriod,
		"The longest a component's feature report counts as live when neither a lease it names (a kubelet's node lease) nor a lease duration of its own says how long: the upper bound of a transition's wait for a component whose liveness cannot be seen. A transition waits until no live component reports the value the feature is leaving.")
	fs.DurationVar(&o.ReportRetention, "feature-lifecycle-report-retention", o.ReportRetention,
		"How long a feature report (features.k8s.io FeatureReport) that stopped being live is kept before it is deleted.")
	fs.DurationVar(&o.ForgetWindow, "feature-lifecycle-forget-window", o.ForgetWindow,
		"How long a kube-apiserver that stopped renewing its identity lease still counts with its configured value of each gate. A feature's desired state changes only when every kube-apiserver seen within this window agrees, so an outage cannot start a transition the stopped apiservers disagree with; after removing an apiserver for good, a flag change waits this long.")
	fs.DurationVar(&o.ResidueScanInterval, "feature-lifecycle-residue-scan-interval", o.ResidueScanInterval,
		"The pause between two passes of the background scan that reads, 100 objects every --feature-lifecycle-residue-scan-page-interval, the stored objects the Disabling tasks of the Disabled features this kube-apiserver leads look at, and sends a feature back to Disabling when some still use what its gate guards (data restored from a backup, written by an older kube-apiserver). 0 turns the scan off.")
	fs.DurationVar(&o.ResidueScanPageInterval, "feature-lifecycle-residue-scan-page-interval", o.ResidueScanPageInterval,
		"The pause between two reads, of at most 100 stored objects each, of the scan for stored data of Disabled features: it bounds the load the scan puts on etcd and this kube-apiserver. 0 reads without a pause.")
	fs.StringSliceVar(&o.CentralGates, "feature-lifecycle-central-gates", o.CentralGates,
		"Feature gates whose Feature is managed Central: kube-controller-manager, kube-scheduler and kubelets take the gate's value from the Feature, whose desired state is this flag's kube-apiservers' configured value (--feature-gates), instead of their own command line. Only gates the lifecycle registry allows; every kube-apiserver must list the same gates.")
	fs.StringSliceVar(&o.DynamicGates, "feature-lifecycle-dynamic-gates", o.DynamicGates,
		"Feature gates whose Feature is managed Dynamic: a client RBAC allows to update Features sets spec.desiredState, and every component, this kube-apiserver included, applies it while running. Only gates the lifecycle registry allows (they take no configuration); every kube-apiserver must list the same gates.")
	fs.IntVar(&o.RetainMinorVersions, "feature-lifecycle-retain-minor-versions", o.RetainMinorVersions,
		"For how many minor versions after the version in its status a Feature whose gate no live kube-apiserver knows is kept (marked Known=False) before it is deleted.")
}

// Validate returns an error for each flag of o whose value cannot work.
func (o *ControllerOptions) Validate() []error {
	var errs []error
	positive := []struct {
		flag  string
		value time.Duration
	}{
		{"--feature-lifecycle-liveness-window", o.LivenessWindow},
		{"--feature-lifecycle-wait-for-uses-period", o.WaitForUsesPeriod},
		{"--feature-lifecycle-report-retention", o.ReportRetention},
		{"--feature-lifecycle-forget-window", o.ForgetWindow},
	}
	for _, d := range positive {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %v", d.flag, d.value))
		}
	}
	nonNegative := []struct {
		flag  string
		value time.Duration
	}{
		{"--feature-lifecycle-residue-scan-interval", o.ResidueScanInterval},
		{"--feature-lifecycle-residue-scan-page-interval", o.ResidueScanPageInterval},
	}
	for _, d := range nonNegative {
		if d.value < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %v", d.flag, d.value))
		}
	}
	if o.RetainMinorVersions < 0 {
		errs = append(errs, fmt.Errorf("--feature-lifecycle-retain-minor-versions must not be negative, got %d", o.RetainMinorVersions))
	}
	return errs
}

// OptIns returns the management the options opt each gate into, or an error
// naming every gate the lifecycle registry does not allow in its mode, or
// known (when not nil) does not know.
func (o *ControllerOptions) OptIns(known func(featuregate.Feature) bool) (map[featuregate.Feature]featuresv1alpha1.FeatureManagement, error) {
	return lifecycle.OptIns(o.CentralGates, o.DynamicGates, known)
}

// Controller drives the Features of kube-system that this apiserver leads:
// it keeps desired state equal to the live apiservers' configuration, moves
// the state through Enabling/Disabling, and runs the transitions' tasks one
// bounded step at a time, recording progress and checkpoints in status so
// that whichever apiserver leads next resumes.
type Controller struct {
	self     string
	gate     featuregate.MutableVersionedFeatureGate
	client   featuresclient.Interface
	opts     ControllerOptions
	env      tasks.Env
	clock    clock.PassiveClock
	elector  *leader.Elector
	leases   coordinationlisters.LeaseLister
	recorder record.EventRecorder

	leaseInformer cache.SharedIndexInformer
	// crds are the CustomResourceFeatureBindings of CRDs to third parties'
	// Features (nil without env.Dynamic, which their tasks use).
	crds *customResources
	// tombstones lists the departures of apiservers (departures.go).
	tombstones        coordinationlisters.LeaseLister
	tombstoneInformer cache.SharedIndexInformer
	kube              kubernetes.Interface
	broadcaster       record.EventBroadcaster
	eventSink         record.EventSink

	informers featuresinformers.SharedInformerFactory
	lister    featureslisters.FeatureLister
	queue     workqueue.TypedRateLimitingInterface[string]
	// reports indexes the components' FeatureReports (every namespace),
	// aggregated into the uses of the Features they report to.
	reports        *reports.Index
	reportInformer cache.SharedIndexInformer
	// reportsIndexed says whether the reports index has seen the
	// informer's initial list.
	reportsIndexed cache.InformerSynced
	// nodeLeases lists the kubelets' node leases, which say whether a
	// kubelet's report is live.
	nodeLeases        coordinationlisters.LeaseLister
	nodeLeaseInformer cache.SharedIndexInformer
	// residue is the scan for stored data of Disabled Features (residue.go).
	residue *residueScanner
	// rollouts runs the canary rollouts of Dynamic Features (rollouts.go).
	rollouts *rollouts
	// targets publishes the FeatureTargets that components follow
	// (targets.go).
	targets *targets
	// versionChanges are what changes between the versions this binary
	// emulates, for the UpgradeSafe and DowngradeSafe conditions
	// (versionsafety.go); nil sets none.
	versionChanges *inventory.VersionChanges

	mu sync.Mutex
	// taskStarts remembers when this apiserver first stepped a task, for
	// the task duration metric.
	taskStarts map[string]time.Time
	// notBefore holds, per feature/task, when this apiserver may step a
	// task again (its RequeueAfter or failure backoff) and the task's state
	// then: the status write of a step brings the Feature back at once
	// through the informer, and must not step the task again early.
	notBefore map[string]pendingStep
	// steppedFrom holds, per Feature, the resourceVersion this apiserver
	// last stepped from and then wrote over: while the informer still has
	// that version, the Feature is not stepped again from it.
	steppedFrom map[string]string
	// usesWritten holds, per Feature, when this apiserver last wrote a
	// change of its uses: a change of the samples of reporters alone waits
	// sampleRefresh after it, so that a rolling restart of many reporters
	// writes the Feature a bounded number of times.
	usesWritten map[string]time.Time
}

// sampleRefresh is how long a change of uses that only moves reporters in
// and out of a sample waits after the last written change of the uses.
const sampleRefresh = 10 * time.Second

// NewController returns the lifecycle controller of the apiserver whose
// identity lease is self, with its gate set. Leadership comes from one small
// watch: the apiserver identity leases in kube-system.
func NewController(self string, gate featuregate.MutableVersionedFeatureGate, client featuresclient.Interface,
	kubeClient kubernetes.Interface, env tasks.Env, opts ControllerOptions) (*Controller, error) {
	RegisterMetrics()
	leader.Register()
	leaseInformer := coordinationinformers.NewFilteredLeaseInformer(kubeClient, leader.IdentityLeaseNamespace, opts.Resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, func(o *metav1.ListOptions) {
			o.LabelSelector = leader.IdentityLeaseComponentLabelKey + "=" + leader.KubeAPIServer
		})
	leases := coordinationlisters.NewLeaseLister(leaseInformer.GetIndexer())
	// A kubelet's report is live while its node lease is renewed.
	nodeLeaseInformer := coordinationinformers.NewLeaseInformer(kubeClient, corev1.NamespaceNodeLease, opts.Resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	tombstoneInformer := coordinationinformers.NewFilteredLeaseInformer(kubeClient, leader.IdentityLeaseNamespace, opts.Resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, func(o *metav1.ListOptions) {
			o.LabelSelector = departedSelector.String()
		})
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Lifecycles == nil {
		catalog, _ := env.Stores.(*storecatalog.Catalog)
		opts.Lifecycles = lifecycle.Registry(catalog)
	}
	c := &Controller{
		self:              self,
		gate:              gate,
		env:               env,
		client:            client,
		opts:              opts,
		clock:             opts.Clock,
		leases:            leases,
		leaseInformer:     leaseInformer,
		tombstones:        coordinationlisters.NewLeaseLister(tombstoneInformer.GetIndexer()),
		tombstoneInformer: tombstoneInformer,
		kube:              kubeClient,
		elector:           leader.NewElector(self, leases, opts.LivenessWindow, opts.Clock.Now),
		informers:         featuresinformers.NewSharedInformerFactoryWithOptions(client, opts.Resync),
		reports:           reports.NewIndex(),
		nodeLeaseInformer: nodeLeaseInformer,
		nodeLeases:        coordinationlisters.NewLeaseLister(nodeLeaseInformer.GetIndexer()),
		taskStarts:        map[string]time.Time{},
		notBefore:         map[string]pendingStep{},
		steppedFrom:       map[string]string{},
		usesWritten:       map[string]time.Time{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature_lifecycle"}),
	}
	rollouts, err := newRollouts(kubeClient, opts.Resync, c.reports, opts.NodeRequests, opts.Canaries, c.rolloutAPIServers, c.enqueueRolling)
	if err != nil {
		return nil, err
	}
	c.rollouts = rollouts
	if c.targets, err = newTargets(client, c.informers, func(key string) { c.queue.Add(key) }); err != nil {
		return nil, err
	}
	c.residue = &residueScanner{c: c, pageInterval: opts.ResidueScanPageInterval, found: map[string]residueFound{}, uses: map[string]string{}}
	if vc, err := inventory.LoadVersionChanges(); err == nil {
		c.versionChanges = vc
	} else {
		// Checked by unit tests and make verify: a binary built from a
		// tree that passes them cannot get here.
		klog.Background().Error(err, "Reading the version changes; no UpgradeSafe or DowngradeSafe conditions")
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(featuresv1alpha1.AddToScheme(scheme))
	c.broadcaster = record.NewBroadcaster()
	c.eventSink = &typedcorev1.EventSinkImpl{Interface: kubeClient.CoreV1().Events("")}
	c.recorder = c.broadcaster.NewRecorder(scheme, corev1.EventSource{Component: "kube-apiserver", Host: self})

	if env.Dynamic != nil {
		crds, err := newCustomResources(c.informers.Features().V1alpha1().CustomResourceFeatureBindings(), func(key string) { c.queue.Add(key) })
		if err != nil {
			return nil, err
		}
		c.crds = crds
	}
	informer := c.informers.Features().V1alpha1().Features()
	c.lister = informer.Lister()
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		// A deleted Feature's target goes with it.
		DeleteFunc: c.enqueue,
	}); err != nil {
		return nil, err
	}
	// A report that changes a gate's values changes the uses of its Feature.
	c.reportInformer = c.informers.Features().V1alpha1().FeatureReports().Informer()
	reportHandler, err := c.reportInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.reportChanged,
		UpdateFunc: func(_, obj any) { c.reportChanged(obj) },
		DeleteFunc: c.reportDeleted,
	})
	if err != nil {
		return nil, err
	}
	// The index of reports is built by the handler, which runs behind the
	// informer's store: the index is complete only once the handler has
	// seen the initial list (with thousands of reports, passes that ran
	// on a partial index replaced sampled reporters they had not seen yet).
	c.reportsIndexed = reportHandler.HasSynced
	// Leadership moves when apiservers come and go.
	if _, err := leaseInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { c.enqueueAll() },
		DeleteFunc: func(obj any) {
			c.leaseDeleted(obj)
			c.enqueueAll()
		},
	}); err != nil {
		return nil, err
	}
	// Departures change who votes on desired state.
	if _, err := tombstoneInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.enqueueAll() },
		UpdateFunc: func(_, _ any) { c.enqueueAll() },
		DeleteFunc: func(any) { c.enqueueAll() },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueue(obj any) {
	if f, ok := obj.(*featuresv1alpha1.Feature); ok {
		c.queue.Add(leader.Key(f))
	}
}

func (c *Controller) enqueueAll() {
	features, err := c.lister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, f := range features {
		c.queue.Add(leader.Key(f))
	}
}

// enqueueRolling enqueues the Features whose rollout is not over.
func (c *Controller) enqueueRolling() {
	features, err := c.lister.Features(KubeNamespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, f := range features {
		if rolling(f) {
			c.queue.Add(leader.Key(f))
		}
	}
}

// reportChanged indexes a FeatureReport and enqueues the Features whose
// uses it changes.
func (c *Controller) reportChanged(obj any) {
	r, ok := obj.(*featuresv1alpha1.FeatureReport)
	if !ok {
		return
	}
	report := reports.NewReport(r)
	old := c.reports.Get(report.Key())
	for _, gate := range c.reports.Set(report) {
		c.queue.Add(r.Namespace + "/" + featuresv1alpha1.FeatureName(gate))
	}
	if old != nil && !old.StartTime.Equal(report.StartTime) && (report.Component == kubelet || report.Component == featuresv1alpha1.APIServerComponent) {
		// A kubelet or an apiserver restarted: the rollouts' analyses
		// count it.
		c.enqueueRolling()
	}
}

// reportDeleted drops a FeatureReport from the index and enqueues the
// Features it reported to.
func (c *Controller) reportDeleted(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	r, ok := obj.(*featuresv1alpha1.FeatureReport)
	if !ok {
		return
	}
	for _, gate := range c.reports.Delete(r.Namespace + "/" + r.Name) {
		c.queue.Add(r.Namespace + "/" + featuresv1alpha1.FeatureName(gate))
	}
}

// Run runs the controller until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithName("feature-lifecycle")
	c.broadcaster.StartRecordingToSink(c.eventSink)
	defer c.broadcaster.Shutdown()
	c.informers.Start(ctx.Done())
	go c.leaseInformer.RunWithContext(ctx)
	go c.tombstoneInformer.RunWithContext(ctx)
	go c.nodeLeaseInformer.RunWithContext(ctx)
	go c.rollouts.informer.RunWithContext(ctx)
	synced := []cache.InformerSynced{c.informers.Features().V1alpha1().Features().Informer().HasSynced,
		c.reportInformer.HasSynced, c.reportsIndexed, c.leaseInformer.HasSynced, c.tombstoneInformer.HasSynced, c.nodeLeaseInformer.HasSynced, c.rollouts.informer.HasSynced, c.targets.informer.HasSynced}
	if c.crds != nil {
		synced = append(synced, c.crds.informer.HasSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return
	}
	// Liveness changes without lease events when a lease stops being
	// renewed: look at every Feature again every half window.
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		c.forgetDepartures(ctx)
		c.deleteExpiredReports(ctx)
		c.enqueueAll()
	}, c.opts.LivenessWindow/2)
	for range c.opts.Workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for c.processNext(klog.NewContext(ctx, logger)) {
			}
		}, time.Second)
	}
	if c.opts.ResidueScanInterval > 0 && c.env.Stores != nil {
		go c.residue.run(klog.NewContext(ctx, logger), c.opts.ResidueScanInterval)
	}
	logger.Info("Started the feature lifecycle controller", "identity", c.self)
	<-ctx.Done()
	c.informers.Shutdown()
}

func (c *Controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	requeue, err := c.sync(ctx, name)
	switch {
	case err != nil:
		if !apierrors.IsConflict(err) {
			klog.FromContext(ctx).Error(err, "Syncing a Feature failed, will retry", "feature", name)
		}
		c.queue.AddRateLimited(name)
	case requeue > 0:
		c.queue.Forget(name)
		c.queue.AddAfter(name, requeue)
	default:
		c.queue.Forget(name)
	}
	return true
}

// spec returns the gate's spec at this apiserver's emulation version and
// whether this apiserver knows the gate there.
func (c *Controller) spec(gate string) (featuregate.FeatureSpec, bool) {
	spec, ok := c.gate.GetAll()[featuregate.Feature(gate)]
	return spec, ok && spec.PreRelease != featuregate.PreAlpha
}

// syncUnknown marks a Feature whose gate this apiserver does not know, when
// it leads the Feature among all live apiservers because no live apiserver
// reports the gate: the Feature is kept with Known=False, and deleted once
// this apiserver's version is more than RetainMinorVersions minor versions
// past the version in its status. A Feature announced by a newer apiserver
// (a downgrade) is only marked.
func (c *Controller) syncUnknown(ctx context.Context, f *featuresv1alpha1.Feature) (time.Duration, error) {
	now := c.clock.Now()
	key := leader.Key(f)
	leaderName, ok := c.elector.Leader(f)
	live, err := c.apiservers(now, c.opts.LivenessWindow)
	if err != nil {
		return 0, err
	}
	config := transition.ConfigurationOf(f, live)
	reported := len(config.Enabled)+len(config.Disabled) > 0
	// Right after a Feature is created, or its uses are reset, nobody
	// reports a gate that some apiserver knows either: the announcer
	// creates a Feature before its reporter writes uses. Give the
	// apiservers that know it a liveness window to report.
	quietSince := f.CreationTimestamp.Time
	if f.Status.UsesResetTime != nil && f.Status.UsesResetTime.After(quietSince) {
		quietSince = f.Status.UsesResetTime.Time
	}
	settling := c.opts.LivenessWindow - now.Sub(quietSince)
	leads := ok && leaderName == c.self && !reported && settling <= 0
	c.elector.Observe(key, leads)
	if !leads {
		if ok && leaderName == c.self && !reported {
			return settling, nil
		}
		return 0, nil
	}
	own := c.gate.EmulationVersion()
	status := f.Status.DeepCopy()
	var message string
	announced, perr := version.Parse(f.Status.Version)
	switch {
	case perr != nil:
		message = fmt.Sprintf("no live kube-apiserver knows gate %s; kept, since status.version %q is not a version", f.Spec.Gate, f.Status.Version)
	case announced.Major() != own.Major() || announced.Minor() >= own.Minor():
		message = fmt.Sprintf("no live kube-apiserver knows gate %s, announced at %s by a newer kube-apiserver than this %d.%d; kept", f.Spec.Gate, f.Status.Version, own.Major(), own.Minor())
	case own.Minor()-announced.Minor() > uint(c.opts.RetainMinorVersions):
		err := c.client.FeaturesV1alpha1().Features(f.Namespace).Delete(ctx, f.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &f.UID, ResourceVersion: &f.ResourceVersion}})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		if err == nil {
			c.recorder.Eventf(f, corev1.EventTypeNormal, "FeatureDeleted", "no live kube-apiserver knows gate %s, last announced at %s, %d minor versions ago (more than %d): deleted the Feature",
				f.Spec.Gate, f.Status.Version, own.Minor()-announced.Minor(), c.opts.RetainMinorVersions)
			klog.FromContext(ctx).Info("Deleted a Feature no live kube-apiserver knows", "feature", key, "version", f.Status.Version)
			c.elector.Forget(key)
		}
		return 0, err
	default:
		message = fmt.Sprintf("no live kube-apiserver knows gate %s, last announced at %s; kept until %d.%d, deleted from %d.%d on",
			f.Spec.Gate, f.Status.Version, own.Major(), announced.Minor()+uint(c.opts.RetainMinorVersions), own.Major(), announced.Minor()+uint(c.opts.RetainMinorVersions)+1)
	}
	transition.SetKnown(status, f.Generation, false, "NoLiveAPIServerKnowsGate", message, metav1.NewTime(now))
	if apiequality.Semantic.DeepEqual(status, &f.Status) {
		return 0, nil
	}
	updated := f.DeepCopy()
	updated.Status = *status
	if _, err := c.client.FeaturesV1alpha1().Features(f.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"}); err != nil {
		return 0, err
	}
	if !meta.IsStatusConditionFalse(f.Status.Conditions, featuresv1alpha1.FeatureConditionKnown) {
		c.recorder.Eventf(f, corev1.EventTypeWarning, "GateUnknown", "%s", message)
	}
	return 0, nil
}

// sync does one pass over a Feature and returns when to look again. Its
// steps: skip a copy older than this apiserver's last write; hand gates this
// apiserver does not know to syncUnknown; go on only as the Feature's
// leader; retire a Feature under an old name; make desired state follow the
// voters' configuration (a spec write, which brings the Feature back);
// compute the next status (nextStatus); write it if it changed.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	stored, err := c.lister.Features(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.rollouts.drop(key)
		return 0, c.targets.forget(ctx, namespace, name)
	}
	if err != nil {
		return 0, err
	}
	if c.steppedFromCopy(stored) {
		// Our own write of this Feature has not reached the informer yet;
		// its event brings the Feature back. Stepping from the old copy
		// would redo the last step and fail to write.
		return time.Second, nil
	}
	now := c.clock.Now()
	// Every pass decides from the uses the live reports make now.
	f, usesChange, err := c.withLiveUses(stored, now)
	if err != nil {
		return 0, err
	}
	if namespace != KubeNamespace {
		// Features of third parties: the uses, and the transitions of
		// those a third party declared or whose desired state a client
		// sets (Central, Dynamic).
		if ledThirdParty(f) {
			return c.syncThirdParty(ctx, stored, f, usesChange, now)
		}
		return c.syncUses(ctx, stored, f, usesChange)
	}
	spec, knows := c.spec(f.Spec.Gate)
	if !knows {
		return c.syncUnknown(ctx, f)
	}
	leads := c.elector.Leads(f, true)
	c.elector.Observe(leader.Key(f), leads)
	if !leads {
		c.rollouts.drop(leader.Key(f))
		return 0, nil
	}
	if current := featuresv1alpha1.FeatureName(f.Spec.Gate); f.Name != current {
		return c.retireRenamed(ctx, f, current)
	}
	vote, err := c.desiredState(ctx, f, now)
	if err != nil || vote.specWritten {
		return 0, err // the spec's update event brings the Feature back
	}
	var after outbox
	status, requeue := c.nextStatus(ctx, f, spec, vote, now, &after)
	wait, event, err := c.rollouts.sync(f, status, now)
	if err != nil {
		return 0, err
	}
	if event != nil {
		after.add(func() { c.recorder.Event(f, event.eventType, event.reason, event.message) })
	}
	if wait > 0 && (requeue == 0 || wait < requeue) {
		requeue = wait
	}
	if wait := c.holdSampleChange(stored, status, now); wait > 0 && (requeue == 0 || wait < requeue) {
		requeue = wait
	}
	if err := c.writeStatus(ctx, stored, status, &after); err != nil {
		return 0, err
	}
	if err := c.targets.publish(ctx, f, status); err != nil {
		return 0, err
	}
	if d := usesChange.Sub(now); !usesChange.IsZero() && (requeue == 0 || d < requeue) {
		requeue = max(d, 0) + time.Second
	}
	return requeue, nil
}

// syncUses keeps the uses of a Feature outside kube-system, which no
// transition drives, equal to what the live reports make, as its leader.
func (c *Controller) syncUses(ctx context.Context, stored, f *featuresv1alpha1.Feature, usesChange time.Time) (time.Duration, error) {
	leads := c.elector.Leads(f, true)
	c.elector.Observe(leader.Key(f), leads)
	if !leads {
		return 0, nil
	}
	now := c.clock.Now()
	status := f.Status.DeepCopy()
	requeue := c.holdSampleChange(stored, status, now)
	var after outbox
	if err := c.writeStatus(ctx, stored, status, &after); err != nil {
		return 0, err
	}
	if err := c.targets.publish(ctx, f, status); err != nil {
		return 0, err
	}
	if d := usesChange.Sub(now); !usesChange.IsZero() && (requeue == 0 || d < requeue) {
		requeue = max(d, 0) + time.Second
	}
	return requeue, nil
}

// ThirdPartyMetricFeature is the feature label of the metrics of every
// Feature outside kube-system: tenants create those, and a label value per
// Feature would let them grow the metrics without bound. It is no Feature's
// name (names are DNS subdomains).
const ThirdPartyMetricFeature = "_third_party"

// metricFeature is f's feature label in metrics.
func metricFeature(f *featuresv1alpha1.Feature) string {
	if f.Namespace == KubeNamespace {
		return f.Name
	}
	return ThirdPartyMetricFeature
}

// ledThirdParty says whether kube-apiserver leads a Feature outside
// kube-system through its transitions: one its third party declared
// (spec.declaration), or one whose desired state a client sets (Central or
// Dynamic, with spec.desiredState).
func ledThirdParty(f *featuresv1alpha1.Feature) bool {
	if f.Spec.Declaration != nil {
		return true
	}
	m := f.Spec.Management
	return f.Spec.DesiredState != "" && (m == featuresv1alpha1.FeatureManagementDynamic || m == featuresv1alpha1.FeatureManagementCentral)
}

// thirdPartyDesired is the desired state of a third party's Feature: its
// spec's, else its declared default.
func thirdPartyDesired(f *featuresv1alpha1.Feature) featuresv1alpha1.FeatureDesiredState {
	switch {
	case f.Spec.DesiredState != "":
		return f.Spec.DesiredState
	case f.Spec.Declaration != nil && f.Spec.Declaration.Default:
		return featuresv1alpha1.FeatureDesiredStateEnabled
	default:
		return featuresv1alpha1.FeatureDesiredStateDisabled
	}
}

// thirdPartyTasks are the tasks of a third party's transition into target:
// wait until the declared components' live reports (every reporter's in
// the namespace, when none are declared) leave the old value, then the
// tasks of Disabling for the CRDs that bind fields, values or kinds to the
// Feature (tasks.CustomResources), then the declared tasks of that
// transition, which their owners complete. The gate is not one of this
// apiserver's, so none of the lifecycle registry's tasks apply, whatever its
// name.
func (c *Controller) thirdPartyTasks(f *featuresv1alpha1.Feature, target featuresv1alpha1.FeatureState) []tasks.Task {
	d := f.Spec.Declaration
	list := []tasks.Task{tasks.WaitForUses{}}
	if d != nil {
		list[0] = tasks.WaitForUses{Components: d.Components}
	}
	if target == featuresv1alpha1.FeatureStateDisabling {
		list = append(list, c.crds.tasks(f)...)
	}
	if d == nil {
		return list
	}
	for _, t := range d.Tasks {
		if t.Transition == target {
			list = append(list, tasks.Owned{TaskName: t.Name, TaskDescription: t.Description, Owner: t.Owner})
		}
	}
	return list
}

// thirdPartyPlan is the Plan of a third party's transitions.
func (c *Controller) thirdPartyPlan(f *featuresv1alpha1.Feature) transition.Plan {
	return func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
		var out []featuresv1alpha1.FeatureTask
		for _, t := range c.thirdPartyTasks(f, target) {
			out = append(out, tasks.Status(t))
		}
		return out
	}
}

// syncThirdParty leads a Feature outside kube-system through its
// transitions, as its leader (ledThirdParty): the desired state is the
// spec's, set by a client of that namespace, or the declared default; the
// components that follow it are the namespace's reporters
// (k8s.io/features), whose reports make the uses WaitForUses waits on; the
// declared tasks wait for their owners. No apiserver configures the gate,
// so nothing votes and the configuration always agrees.
func (c *Controller) syncThirdParty(ctx context.Context, stored, f *featuresv1alpha1.Feature, usesChange, now time.Time) (time.Duration, error) {
	leads := c.elector.Leads(f, true)
	c.elector.Observe(leader.Key(f), leads)
	if !leads {
		return 0, nil
	}
	var after outbox
	status := f.Status.DeepCopy()
	if by, ok := desiredStateSetBy(f); ok && f.Status.ObservedGeneration < f.Generation {
		after.add(func() {
			c.recorder.Eventf(f, corev1.EventTypeNormal, "DesiredStateSet", "%s set spec.desiredState to %s", by, f.Spec.DesiredState)
		})
	}
	if d := f.Spec.Declaration; d != nil {
		status.PreRelease, status.Default = d.PreRelease, ptr.To(d.Default)
	}
	desired, plan := thirdPartyDesired(f), c.thirdPartyPlan(f)
	c.step(f, status, desired, plan, &after)
	requeue := time.Duration(0)
	if len(status.Tasks) > 0 {
		requeue = c.runTask(ctx, f, status, now, &after)
		// A finished last task completes the transition in the same write.
		c.step(f, status, desired, plan, &after)
	}
	transition.SetConditions(status, f.Generation, desired, transition.Configuration{}, true, "", metav1.NewTime(now))
	// No apiserver configures a third party's gate.
	meta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed)
	status.ObservedGeneration = f.Generation
	if wait := c.holdSampleChange(stored, status, now); wait > 0 && (requeue == 0 || wait < requeue) {
		requeue = wait
	}
	if err := c.writeStatus(ctx, stored, status, &after); err != nil {
		return 0, err
	}
	if err := c.targets.publish(ctx, f, status); err != nil {
		return 0, err
	}
	if d := usesChange.Sub(now); !usesChange.IsZero() && (requeue == 0 || d < requeue) {
		requeue = max(d, 0) + time.Second
	}
	return requeue, nil
}

// steppedFromCopy says whether f is the copy this apiserver last stepped
// from and wrote over.
func (c *Controller) steppedFromCopy(f *featuresv1alpha1.Feature) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f.ResourceVersion != "" && c.steppedFrom[leader.Key(f)] == f.ResourceVersion
}

// vote is the outcome of the voters' configuration for one Feature.
type vote struct {
	config  transition.Configuration
	desired featuresv1alpha1.FeatureDesiredState
	// agreed is false while the voters disagree (a rollout).
	agreed bool
	// specWritten says that spec.desiredState was updated to desired.
	specWritten bool
}

// desiredState computes desired state from the configuration of the
// voters: the apiservers seen within the forget window, so that an outage
// cannot start a transition. A Dynamic Feature's desired state is its spec's.
// When it changes, it is written to the spec.
func (c *Controller) desiredState(ctx context.Context, f *featuresv1alpha1.Feature, now time.Time) (vote, error) {
	voters, err := c.voters(now)
	if err != nil {
		return vote{}, err
	}
	v := vote{config: transition.ConfigurationOf(f, voters), desired: f.Spec.DesiredState, agreed: true}
	v.config.Modes = c.modesOf(f.Spec.Gate, voters)
	v.config.Versions = c.apiserverVersions(voters)
	management := f.Spec.Management
	mode, modesAgreed := v.config.Management()
	switch {
	case !modesAgreed:
		// A rolling change of the apiservers' --feature-lifecycle-*-gates:
		// management and desired state hold until they agree.
		v.agreed = false
	case mode != "" && mode != management:
		management = mode
	}
	switch {
	case !modesAgreed:
	case management == featuresv1alpha1.FeatureManagementDynamic:
		// A client sets desired state; the apiservers' values follow it
		// and do not vote. A Feature just made Dynamic keeps the desired
		// state it had (the apiservers' configured value).
		v.config.Enabled, v.config.Disabled = nil, nil
		if v.desired == "" {
			v.desired, _ = transition.Desired(transition.ConfigurationOf(f, voters), "")
		}
	default:
		v.desired, v.agreed = transition.Desired(v.config, f.Spec.DesiredState)
	}
	if v.desired == f.Spec.DesiredState && management == f.Spec.Management {
		return v, nil
	}
	updated := f.DeepCopy()
	updated.Spec.DesiredState, updated.Spec.Management = v.desired, management
	_, err = c.client.FeaturesV1alpha1().Features(KubeNamespace).Update(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"})
	v.specWritten = err == nil
	if err == nil && management != f.Spec.Management {
		c.recorder.Eventf(f, corev1.EventTypeNormal, "ManagementChanged", "every voting kube-apiserver opts the gate into %s (was %s)", management, f.Spec.Management)
	}
	return v, err
}

// modesOf returns the voters by the management their reports state for
// gate (CommandLine when they state none); voters without a report, or
// whose report does not list the gate, are left out.
func (c *Controller) modesOf(gate string, voters []string) map[featuresv1alpha1.FeatureManagement][]string {
	modes := map[featuresv1alpha1.FeatureManagement][]string{}
	for _, id := range voters {
		r := c.reports.Get(KubeNamespace + "/" + featuresv1alpha1.FeatureReportName(featuresv1alpha1.APIServerComponent, id))
		if r == nil {
			continue
		}
		if _, ok := r.Gates[gate]; !ok {
			continue
		}
		mode := r.Modes[gate]
		if mode == "" {
			mode = featuresv1alpha1.FeatureManagementCommandLine
		}
		modes[mode] = append(modes[mode], id)
	}
	return modes
}

// nextStatus computes the Feature's next status: the gate's description,
// the state machine, the cleanup of a drift, one bounded step of the active
// task, and the conditions. Events and metrics of what it changes go to
// after, recorded once the change is stored (a failed write is redone by the
// next pass).
func (c *Controller) nextStatus(ctx context.Context, f *featuresv1alpha1.Feature, spec featuregate.FeatureSpec, v vote, now time.Time, after *outbox) (*featuresv1alpha1.FeatureStatus, time.Duration) {
	status := f.Status.DeepCopy()
	from := status.Version
	// The leader keeps the description current, at the lowest emulation
	// version among the live apiservers: after an upgrade the leaders run
	// the new version, and while the apiservers move from one emulation
	// version to another the description is the version they can still
	// fall back to.
	described, at := c.description(f.Spec.Gate, spec, v.config.Versions)
	Describe(status, described, at)
	c.moveVersion(f, status, from, at, after)
	status.AppliesWhileRunning = lifecycle.AppliesWhileRunning(featuregate.Feature(f.Spec.Gate))
	transition.SetKnown(status, f.Generation, true, "Known", "the leader, "+c.self+", knows the gate", metav1.NewTime(now))
	if by, ok := desiredStateSetBy(f); ok && f.Status.ObservedGeneration < f.Generation {
		after.add(func() {
			c.recorder.Eventf(f, corev1.EventTypeNormal, "DesiredStateSet", "%s set spec.desiredState to %s", by, f.Spec.DesiredState)
		})
	}
	plan := c.plan(f.Spec.Gate, status)
	c.step(f, status, v.desired, plan, after)
	held := c.cleanUpDrift(f, status, v.agreed, plan, after)
	c.reenterOnResidue(f, status, v, plan, now, after)

	requeue := time.Duration(0)
	if len(status.Tasks) > 0 {
		// The tasks of a transition, then the version-keyed ones, which
		// may also be pending in a final state (versiontasks.go).
		if c.versionTaskWaits(f.Spec.Gate, status, v.config.Versions) {
			requeue = c.opts.Resync
		} else {
			requeue = c.runTask(ctx, f, status, now, after)
		}
		// A finished last task completes the transition in the same write.
		c.step(f, status, v.desired, plan, after)
	}
	if status.State == featuresv1alpha1.FeatureStateDisabled && meta.IsStatusConditionTrue(status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains) {
		transition.SetCondition(&status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains, false, f.Generation,
			"TasksRanAgain", "the Disabling tasks ran again after stored data was found", metav1.NewTime(now))
	}
	transition.SetConditions(status, f.Generation, v.desired, v.config, v.agreed, held, metav1.NewTime(now))
	setVersionSafety(f.Spec.Gate, status, f.Generation, c.versionChanges, c.residue.usesOf(f.Name), metav1.NewTime(now))
	status.ObservedGeneration = f.Generation
	return status, requeue
}

// desiredStateSetBy returns who set the Feature's current spec.desiredState
// through the API, as the FeatureStatus admission plugin recorded it for
// this generation.
func desiredStateSetBy(f *featuresv1alpha1.Feature) (string, bool) {
	value, ok := f.Annotations[featuresv1alpha1.DesiredStateSetByAnnotation]
	if !ok {
		return "", false
	}
	by, generation, ok := strings.Cut(value, " (generation ")
	if !ok || strings.TrimSuffix(generation, ")") != strconv.FormatInt(f.Generation, 10) {
		return "", false
	}
	return by, true
}

// cleanUpDrift handles a component reporting the feature on while it is Disabled:
// it may have written data the feature adds, so the Disabling tasks run
// again. While the apiservers disagree (an admin is rolling a flag change
// through them) the cleanup is held, so the rollout does not flap the state;
// it is remembered in UsesAgree and runs if the apiservers settle on Disabled.
// It returns the message of a held cleanup, or "".
func (c *Controller) cleanUpDrift(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, agreed bool, plan transition.Plan, after *outbox) string {
	drift := transition.Drift(status.State, status.Uses)
	if status.State != featuresv1alpha1.FeatureStateDisabled || (len(drift) == 0 && !transition.CleanupHeld(&f.Status)) {
		return ""
	}
	if !agreed {
		if len(drift) == 0 {
			return "the feature was reported enabled while it is Disabled and the apiservers disagree (a rollout); the Disabling tasks run again if they settle on Disabled"
		}
		return fmt.Sprintf("%s reported the feature enabled while it is Disabled and the apiservers disagree (a rollout); the Disabling tasks run again if they settle on Disabled", strings.Join(drift, ", "))
	}
	status.State, status.Tasks = featuresv1alpha1.FeatureStateDisabling, plan(featuresv1alpha1.FeatureStateDisabling)
	after.add(func() {
		c.recorder.Eventf(f, corev1.EventTypeWarning, "UsesDrifted", "%v reported the feature enabled while it is Disabled; running the Disabling tasks again", drift)
		transitionsTotal.WithLabelValues(metricFeature(f), string(featuresv1alpha1.FeatureStateDisabled), string(featuresv1alpha1.FeatureStateDisabling)).Inc()
	})
	return ""
}

// reenterOnResidue sends an Disabled Feature back to Disabling when the
// residue scan found stored objects that still use what its gate guards,
// with the StoredDataRemains condition naming them (nextStatus turns it
// False once the Feature is Disabled again). While the apiservers disagree the
// finding is kept for later.
func (c *Controller) reenterOnResidue(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, v vote, plan transition.Plan, now time.Time, after *outbox) {
	if status.State != featuresv1alpha1.FeatureStateDisabled || v.desired != featuresv1alpha1.FeatureDesiredStateDisabled {
		// A transition runs the tasks anyway (or the feature turns on):
		// what was found is stale.
		if _, forget := c.residue.take(f.Name); forget != nil {
			forget()
		}
		return
	}
	message, forget := c.residue.take(f.Name)
	if message == "" || !v.agreed {
		return
	}
	status.State, status.Tasks = featuresv1alpha1.FeatureStateDisabling, plan(featuresv1alpha1.FeatureStateDisabling)
	transition.SetCondition(&status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains, true, f.Generation,
		"Found", message, metav1.NewTime(now))
	after.add(func() {
		forget()
		c.recorder.Eventf(f, corev1.EventTypeWarning, "StoredDataRemains", "The feature is Disabled but %s; running the Disabling tasks again", message)
		transitionsTotal.WithLabelValues(metricFeature(f), string(featuresv1alpha1.FeatureStateDisabled), string(featuresv1alpha1.FeatureStateDisabling)).Inc()
	})
}

// writeStatus stores status unless it is unchanged, then records what after
// holds; the state gauge follows status either way.
func (c *Controller) writeStatus(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, after *outbox) error {
	if f.Namespace == KubeNamespace {
		c.observeState(f.Name, status.State)
	}
	if apiequality.Semantic.DeepEqual(status, &f.Status) {
		after.flush()
		return nil
	}
	updated := f.DeepCopy()
	updated.Status = *status
	if _, err := c.client.FeaturesV1alpha1().Features(f.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"}); err != nil {
		return err
	}
	after.flush()
	key := leader.Key(f)
	c.mu.Lock()
	c.steppedFrom[key] = f.ResourceVersion
	if !apiequality.Semantic.DeepEqual(status.Uses, f.Status.Uses) {
		c.usesWritten[key] = c.clock.Now()
	}
	c.mu.Unlock()
	return nil
}

// retireRenamed deletes a Feature named after an older rule of the gate
// name mapping (a release renamed it, see docs/release-notes.md) once the
// announcer has created the Feature under the current name, which takes
// over: nothing announces or reports under the old name any more.
func (c *Controller) retireRenamed(ctx context.Context, f *featuresv1alpha1.Feature, current string) (time.Duration, error) {
	if _, err := c.lister.Features(f.Namespace).Get(current); apierrors.IsNotFound(err) {
		return c.opts.Resync, nil // not announced yet
	} else if err != nil {
		return 0, err
	}
	err := c.client.FeaturesV1alpha1().Features(f.Namespace).Delete(ctx, f.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &f.UID, ResourceVersion: &f.ResourceVersion}})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	c.recorder.Eventf(f, corev1.EventTypeNormal, "FeatureRenamed", "gate %s is announced as Feature %s now: deleted this Feature", f.Spec.Gate, current)
	klog.FromContext(ctx).Info("Deleted a Feature under the old name of its gate", "feature", leader.Key(f), "gate", f.Spec.Gate, "current", current)
	c.elector.Forget(leader.Key(f))
	return 0, nil
}

// outbox holds what a pass records once its status write succeeded: the
// events and metrics of transitions and completed tasks.
type outbox []func()

func (o *outbox) add(record func()) { *o = append(*o, record) }

// flush records everything added, in order.
func (o *outbox) flush() {
	for _, record := range *o {
		record()
	}
	*o = nil
}

// step applies the state machine to status; its events and metrics go to
// after.
func (c *Controller) step(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, desired featuresv1alpha1.FeatureDesiredState, plan transition.Plan, after *outbox) {
	r := transition.Step(status.State, desired, status.Tasks, plan)
	if !r.Changed {
		return
	}
	status.State, status.Tasks = r.State, r.Tasks
	if r.From == r.To {
		return
	}
	after.add(func() {
		transitionsTotal.WithLabelValues(metricFeature(f), string(r.From), string(r.To)).Inc()
		switch r.To {
		case featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling:
			c.recorder.Eventf(f, corev1.EventTypeNormal, "TransitionStarted", "%s -> %s (desired %s): %d tasks", r.From, r.To, desired, len(r.Tasks))
		default:
			c.recorder.Eventf(f, corev1.EventTypeNormal, "TransitionCompleted", "%s -> %s", r.From, r.To)
		}
	})
}

// pendingStep is a task that asked not to be stepped before a time.
type pendingStep struct {
	until      time.Time
	state      featuresv1alpha1.FeatureState
	checkpoint string
	attempts   int32
	uses       []featuresv1alpha1.FeatureUse
}

// wait returns how long the task must still wait, or 0 when it may step:
// its time has come, the (component, value) pairs of the uses changed (what
// WaitForUses waits for; a sample that moves does not count, so many
// reporters switching one after the other do not step the task each time),
// or the task is not the one that asked (a reversal started a new list,
// another leader moved it on).
func (p pendingStep) wait(status *featuresv1alpha1.FeatureStatus, now time.Time) time.Duration {
	t := status.Tasks[0]
	if p.state != status.State || p.checkpoint != t.Checkpoint || p.attempts != t.Attempts || !now.Before(p.until) ||
		!reports.SamePairs(p.uses, status.Uses) {
		return 0
	}
	return p.until.Sub(now)
}

// runTask steps the active task and records the outcome in status; the
// events and metrics of its completion go to after.
func (c *Controller) runTask(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, now time.Time, after *outbox) time.Duration {
	name := status.Tasks[0].Name
	key := leader.Key(f) + "/" + name
	requeue := c.stepTask(ctx, f, status, now, after)
	c.mu.Lock()
	defer c.mu.Unlock()
	if requeue > 0 && len(status.Tasks) > 0 && status.Tasks[0].Name == name {
		t := status.Tasks[0]
		c.notBefore[key] = pendingStep{until: now.Add(requeue), state: status.State, checkpoint: t.Checkpoint, attempts: t.Attempts,
			uses: slices.Clone(status.Uses)}
	} else {
		delete(c.notBefore, key)
	}
	return requeue
}

// stepTask steps the active task, unless it asked to wait, and records the
// outcome in status. A failed attempt is recorded at once (it happened
// whether or not its status is stored); a completion goes to after.
func (c *Controller) stepTask(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, now time.Time, after *outbox) time.Duration {
	active := &status.Tasks[0]
	task := c.task(f, status.State, *active)
	if task == nil {
		active.Message = "this kube-apiserver does not know this task; an apiserver that knows it will run it"
		return c.opts.Resync
	}
	key := leader.Key(f) + "/" + active.Name
	c.mu.Lock()
	if _, ok := c.taskStarts[key]; !ok {
		c.taskStarts[key] = now
	}
	pending, waiting := c.notBefore[key]
	c.mu.Unlock()
	if waiting {
		if d := pending.wait(status, now); d > 0 {
			return d
		}
	}
	if active.Attempts == 0 {
		active.Attempts = 1
	}
	withStatus := f.DeepCopy()
	withStatus.Status = *status
	out, err := task.Step(ctx, c.env, withStatus, *active, now)
	if err != nil {
		active.Attempts++
		active.Message = fmt.Sprintf("attempt %d failed: %v", active.Attempts-1, err)
		taskFailuresTotal.WithLabelValues(metricFeature(f), active.Name).Inc()
		c.recorder.Eventf(f, corev1.EventTypeWarning, "TaskFailed", "task %s: %v", active.Name, err)
		return wait.Jitter(min(time.Second<<min(active.Attempts, 8), 5*time.Minute), 0.5)
	}
	active.Progress, active.Message, active.Checkpoint = out.Progress, out.Message, out.Checkpoint
	if !out.Done {
		return out.RequeueAfter
	}
	name, message := active.Name, out.Message
	after.add(func() {
		c.recorder.Eventf(f, corev1.EventTypeNormal, "TaskCompleted", "task %s: %s", name, message)
		c.mu.Lock()
		if start, ok := c.taskStarts[key]; ok {
			taskDuration.WithLabelValues(name).Observe(now.Sub(start).Seconds())
			delete(c.taskStarts, key)
		}
		c.mu.Unlock()
	})
	status.Tasks = slices.Delete(slices.Clone(status.Tasks), 0, 1)
	return 0
}

// tasksFor returns the tasks of a gate's transition into target: WaitForUses,
// then what the lifecycle registry declares.
func (c *Controller) tasksFor(gate string, target featuresv1alpha1.FeatureState) []tasks.Task {
	list := []tasks.Task{tasks.WaitForUses{}}
	lc := c.opts.Lifecycles[featuregate.Feature(gate)]
	if target == featuresv1alpha1.FeatureStateEnabling {
		return append(list, lc.OnEnable...)
	}
	return append(list, lc.OnDisable...)
}

// plan returns the Plan of gate's transitions for a Feature whose status
// is status: the transition's tasks, then the version-keyed tasks status
// holds when the transition starts.
func (c *Controller) plan(gate string, status *featuresv1alpha1.FeatureStatus) transition.Plan {
	return func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
		var out []featuresv1alpha1.FeatureTask
		for _, t := range c.tasksFor(gate, target) {
			out = append(out, tasks.Status(t))
		}
		return append(out, c.pendingVersionTasks(gate, status.Tasks)...)
	}
}

// task returns the task of f's transition into state that status
// describes: one of its transition's tasks, a version-keyed task of its
// gate, or, for a third party's, the task its owner completes (also when
// the declaration no longer holds it) or the moot task of a CRD that no
// longer binds to it.
func (c *Controller) task(f *featuresv1alpha1.Feature, state featuresv1alpha1.FeatureState, status featuresv1alpha1.FeatureTask) tasks.Task {
	gate, name := f.Spec.Gate, status.Name
	if f.Namespace != KubeNamespace {
		for _, t := range c.thirdPartyTasks(f, state) {
			if t.Name() == name {
				return t
			}
		}
		switch {
		case status.Owner != "":
			return tasks.Owned{TaskName: name, TaskDescription: status.Description, Owner: status.Owner}
		case c.crds != nil && tasks.IsCustomResourcesTaskName(name):
			return moot(name)
		}
		return nil
	}
	if state == featuresv1alpha1.FeatureStateEnabling || state == featuresv1alpha1.FeatureStateDisabling {
		for _, t := range c.tasksFor(gate, state) {
			if t.Name() == name {
				return t
			}
		}
	}
	if t := c.opts.Lifecycles[featuregate.Feature(gate)].VersionTask(name); t != nil {
		return t
	}
	return nil
}

// voters returns the kube-apiservers whose configuration counts for desired
// state: those that renewed their identity lease within the forget window,
// and those whose lease was deleted (a graceful shutdown, a restart
// included) within it, as their tombstones say.
func (c *Controller) voters(now time.Time) ([]string, error) {
	renewed, err := c.apiservers(now, c.opts.ForgetWindow)
	if err != nil {
		return nil, err
	}
	departed, err := c.departedVoters(now)
	if err != nil {
		return nil, err
	}
	return sets.List(departed.Insert(renewed...)), nil
}

// rolloutAPIServers returns the candidates of a rollout on apiservers: the
// voters, so that an apiserver keeps its place while it restarts; and which
// of them are live.
func (c *Controller) rolloutAPIServers(now time.Time) ([]string, sets.Set[string], error) {
	voters, err := c.voters(now)
	if err != nil {
		return nil, nil, err
	}
	live, err := c.apiservers(now, c.opts.LivenessWindow)
	if err != nil {
		return nil, nil, err
	}
	return voters, sets.New(live...), nil
}

// apiservers returns the kube-apiservers that renewed their identity lease
// within window of now.
func (c *Controller) apiservers(now time.Time, window time.Duration) ([]string, error) {
	leases, err := c.leases.Leases(leader.IdentityLeaseNamespace).List(labels.SelectorFromSet(labels.Set{leader.IdentityLeaseComponentLabelKey: leader.KubeAPIServer}))
	if err != nil {
		return nil, err
	}
	return leader.LiveAPIServers(leases, now, window), nil
}

var allStates = []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled,
	featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling}

func (c *Controller) observeState(feature string, state featuresv1alpha1.FeatureState) {
	for _, s := range allStates {
		v := 0.0
		if s == state {
			v = 1
		}
		stateGauge.WithLabelValues(feature, string(s)).Set(v)
	}
}
