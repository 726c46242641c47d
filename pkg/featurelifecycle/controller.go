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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// Controller drives the Features that this apiserver leads: it keeps
// desired state equal to the live apiservers' configuration, moves the
// state through Enabling/Disabling, and runs the transitions' tasks one
// bounded step at a time, recording progress and checkpoints in status so
// that whichever apiserver leads next resumes. It wires the jobs, each a
// type with its own dependencies, to one workqueue of Features: uses
// (uses.go), the apiservers and their departures (apiservers.go,
// departures.go), transitions (transitions.go, thirdparty.go, the tasks in
// taskrunner.go), retirement (retirement.go), versions (versions.go and
// the files after it), the residue scan (residue.go), rollouts
// (rollouts.go) and targets (targets.go). Its informers come from the
// shared informer factory of kube-apiserver.
type Controller struct {
	self  string
	cfg   Config
	clock clock.PassiveClock
	// informers is the shared factory the informers come from.
	informers informers.SharedInformerFactory
	features  featureslisters.FeatureLister
	queue     workqueue.TypedRateLimitingInterface[string]
	// synced say whether the informers, and the reports index built by a
	// handler behind one, have seen their initial lists.
	synced      []cache.InformerSynced
	elector     *leader.Elector
	gates       *gateSpecs
	broadcaster record.EventBroadcaster
	eventSink   record.EventSink

	apiservers  *apiServers
	departures  *departures
	uses        *uses
	transitions *transitions
	retirement  *retirement
	residue     *residueScanner
	rollouts    *rollouts
	targets     *targets
	crds        *customResources
	writer      *statusWriter
	// apiserversSeen are the live apiservers and the voters the last
	// look at the identity leases found (tick).
	apiserversSeen [2][]string
}

// NewController returns the lifecycle controller of the apiserver whose
// identity lease is self, with its gate set. It reads Features, reports,
// targets, leases and nodes through factory (kube-apiserver's shared
// informer factory: nothing is watched twice), and writes through client.
func NewController(self string, gate featuregate.MutableVersionedFeatureGate, client kubernetes.Interface,
	factory informers.SharedInformerFactory, env tasks.Env, cfg Config) (*Controller, error) {
	RegisterMetrics()
	leader.Register()
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Lifecycles == nil {
		catalog, _ := env.Stores.(*storecatalog.Catalog)
		cfg.Lifecycles = lifecycle.Registry(catalog)
	}
	leaseInformer := factory.Coordination().V1().Leases()
	featureInformer := factory.Features().V1alpha1().Features()
	reportInformer := factory.Features().V1alpha1().FeatureReports()
	leases := leaseInformer.Lister()
	c := &Controller{
		self: self, cfg: cfg, clock: cfg.Clock, informers: factory,
		features: featureInformer.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature_lifecycle"}),
		elector:     leader.NewElector(self, leases, cfg.LivenessWindow, cfg.Clock.Now),
		gates:       newGateSpecs(gate),
		broadcaster: record.NewBroadcaster(),
		eventSink:   &typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")},
		writer:      newStatusWriter(client),
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(featuresv1alpha1.AddToScheme(scheme))
	recorder := c.broadcaster.NewRecorder(scheme, corev1.EventSource{Component: "kube-apiserver", Host: self})

	c.departures = &departures{leases: leases, client: client.CoordinationV1(), clock: cfg.Clock, forgetWindow: cfg.ForgetWindow}
	c.apiservers = &apiServers{leases: leases, departures: c.departures, livenessWindow: cfg.LivenessWindow, forgetWindow: cfg.ForgetWindow}
	c.uses = &uses{self: self, client: client, reports: reports.NewIndex(), reportLister: reportInformer.Lister(), leases: leases,
		waitForUsesPeriod: cfg.WaitForUsesPeriod, retention: cfg.ReportRetention, enqueue: c.queue.Add, enqueueRolling: c.enqueueRolling,
		written: map[string]time.Time{}}
	var err error
	if c.rollouts, err = newRollouts(factory.Core().V1().Nodes(), c.uses.reports, cfg.NodeRequests, cfg.Canaries, c.apiservers.rolloutCandidates, c.enqueueRolling); err != nil {
		return nil, err
	}
	if c.targets, err = newTargets(client, factory, c.queue.Add); err != nil {
		return nil, err
	}
	if env.Dynamic != nil {
		if c.crds, err = newCustomResources(factory.Features().V1alpha1().CustomResourceFeatureBindings(), c.queue.Add); err != nil {
			return nil, err
		}
	}
	vc, err := inventory.LoadVersionChanges()
	if err != nil {
		// Checked by unit tests and make verify: a binary built from a
		// tree that passes them cannot get here.
		klog.Background().Error(err, "Reading the version changes; no UpgradeSafe or DowngradeSafe conditions")
	}
	versions := newVersions(self, c.gates, cfg.Lifecycles, recorder, vc)
	c.transitions = &transitions{self: self, client: client, recorder: recorder, lifecycles: cfg.Lifecycles, uses: c.uses,
		versions: versions, runner: newTaskRunner(env, recorder, cfg.Resync), crds: c.crds, resync: cfg.Resync}
	c.residue = &residueScanner{features: c.features, leads: c.leadsKnown, tasksFor: c.transitions.tasksFor, stores: env.Stores,
		enqueue: c.queue.Add, pageInterval: cfg.ResidueScanPageInterval, found: map[string]residueFound{}, uses: map[string]string{}}
	c.transitions.residue = c.residue
	c.retirement = &retirement{self: self, client: client, recorder: recorder, features: c.features, elector: c.elector,
		apiservers: c.apiservers, gates: c.gates, livenessWindow: cfg.LivenessWindow, retainMinorVersions: cfg.RetainMinorVersions, resync: cfg.Resync}
	if err := c.addHandlers(featureInformer.Informer(), reportInformer.Informer(), leaseInformer.Informer()); err != nil {
		return nil, err
	}
	return c, nil
}

// addHandlers enqueues Features as their objects, their reports and the
// apiservers' leases change.
func (c *Controller) addHandlers(features, reportInformer, leaseInformer cache.SharedIndexInformer) error {
	if _, err := features.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		// A deleted Feature's target goes with it.
		DeleteFunc: c.enqueue,
	}); err != nil {
		return err
	}
	// A report that changes a gate's values changes the uses of its Feature.
	reportHandler, err := reportInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.uses.reportChanged,
		UpdateFunc: func(_, obj any) { c.uses.reportChanged(obj) },
		DeleteFunc: c.uses.reportDeleted,
	})
	if err != nil {
		return err
	}
	// Leadership moves when apiservers come and go; departures change who
	// votes on desired state. A renewal of an identity lease changes
	// neither (tick looks at the liveness they say).
	if _, err := leaseInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if isIdentityLease(obj) || isTombstone(obj) {
				c.enqueueAll()
			}
		},
		UpdateFunc: func(_, obj any) {
			if isTombstone(obj) {
				c.enqueueAll()
			}
		},
		DeleteFunc: func(obj any) {
			switch {
			case isIdentityLease(obj):
				c.departures.leaseDeleted(obj)
				c.enqueueAll()
			case isTombstone(obj):
				c.enqueueAll()
			}
		},
	}); err != nil {
		return err
	}
	// The index of reports is built by the handler, which runs behind the
	// informer's store: the index is complete only once the handler has
	// seen the initial list (with thousands of reports, passes that ran
	// on a partial index replaced sampled reporters they had not seen yet).
	c.synced = []cache.InformerSynced{features.HasSynced, reportInformer.HasSynced, reportHandler.HasSynced, leaseInformer.HasSynced,
		c.rollouts.informer.HasSynced, c.targets.informer.HasSynced}
	return nil
}

func (c *Controller) enqueue(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if f, ok := obj.(*featuresv1alpha1.Feature); ok {
		c.queue.Add(leader.Key(f))
	}
}

func (c *Controller) enqueueAll() {
	features, err := c.features.List(labels.Everything())
	if err != nil {
		return
	}
	for _, f := range features {
		c.queue.Add(leader.Key(f))
	}
}

// enqueueRolling enqueues the Features whose rollout is not over.
func (c *Controller) enqueueRolling() {
	features, err := c.features.Features(KubeNamespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, f := range features {
		if rolling(f) {
			c.queue.Add(leader.Key(f))
		}
	}
}

// leadsKnown says whether this apiserver knows f's gate and leads f.
func (c *Controller) leadsKnown(f *featuresv1alpha1.Feature) bool {
	_, knows := c.gates.spec(f.Spec.Gate)
	return knows && c.elector.Leads(f, true)
}

// Run runs the controller until ctx ends. The informers it reads start
// with the shared factory (Run starts those requested since).
func (c *Controller) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithName("feature-lifecycle")
	c.broadcaster.StartRecordingToSink(c.eventSink)
	defer c.broadcaster.Shutdown()
	c.informers.Start(ctx.Done())
	synced := c.synced
	if c.crds != nil {
		synced = append(slices.Clone(synced), c.crds.informer.HasSynced)
	}
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return
	}
	// Liveness changes without lease events when a lease stops being
	// renewed: look at the leases every half window.
	go wait.UntilWithContext(ctx, c.tick, c.cfg.LivenessWindow/2)
	for range c.cfg.Workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for c.processNext(klog.NewContext(ctx, logger)) {
			}
		}, time.Second)
	}
	if c.cfg.ResidueScanInterval > 0 && c.residue.stores != nil {
		go c.residue.run(klog.NewContext(ctx, logger), c.cfg.ResidueScanInterval)
	}
	logger.Info("Started the feature lifecycle controller", "identity", c.self)
	<-ctx.Done()
}

// tick forgets expired departures and reports, and looks at every Feature
// again when the live apiservers or the voters changed since the last
// tick: leadership and desired state depend on them, and they change
// without an event when a lease stops being renewed. When they did not
// change, a tick costs a list of the identity leases from the cache.
func (c *Controller) tick(ctx context.Context) {
	now := c.clock.Now()
	c.departures.forget(ctx)
	live, err := c.apiservers.live(now)
	if err != nil {
		return
	}
	voters, err := c.apiservers.voters(now)
	if err != nil {
		return
	}
	c.uses.deleteExpired(ctx, live, voters, now)
	seen := [2][]string{live, voters}
	if slices.Equal(seen[0], c.apiserversSeen[0]) && slices.Equal(seen[1], c.apiserversSeen[1]) {
		return
	}
	c.apiserversSeen = seen
	c.enqueueAll()
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

// sync does one pass over a Feature and returns when to look again. Its
// steps: skip a copy older than this apiserver's last write; make the uses
// from the live reports; hand gates this apiserver does not know to the
// retirement job; go on only as the Feature's leader; compute the next
// status (pass); write it if it changed; publish the Feature's target.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	stored, err := c.features.Features(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.rollouts.drop(key)
		c.writer.forget(key)
		c.uses.forget(key)
		return 0, c.targets.forget(ctx, namespace, name)
	}
	if err != nil {
		return 0, err
	}
	if c.writer.steppedFromCopy(stored) {
		// Our own write of this Feature has not reached the informer yet;
		// its event brings the Feature back. Stepping from the old copy
		// would redo the last step and fail to write.
		return time.Second, nil
	}
	now := c.clock.Now()
	voters, err := c.apiservers.voters(now)
	if err != nil {
		return 0, err
	}
	// Every pass decides from the uses the live reports make now.
	f, usesChange := c.uses.withLive(stored, sets.New(voters...), now)
	var spec featuregate.FeatureSpec
	if namespace == KubeNamespace {
		var knows bool
		if spec, knows = c.gates.spec(f.Spec.Gate); !knows {
			return c.retirement.syncUnknown(ctx, f, now)
		}
	}
	leads := c.elector.Leads(f, true)
	c.elector.Observe(key, leads)
	if !leads {
		if namespace == KubeNamespace {
			c.rollouts.drop(key)
		}
		return c.apiservers.recheckUntilLive(c.self, now), nil
	}
	if current := featuresv1alpha1.FeatureName(f.Spec.Gate); namespace == KubeNamespace && f.Name != current {
		return c.retirement.retireRenamed(ctx, f, current)
	}
	next, requeue, specWritten, err := c.pass(ctx, f, spec, voters, now)
	if err != nil || specWritten {
		return 0, err // the spec's update event brings the Feature back
	}
	if requeue == 0 && len(next.status.Tasks) > 0 {
		// A task that asked for no time looks again at the next event,
		// or after Resync without one.
		requeue = c.cfg.Resync
	}
	if wait := c.uses.holdSampleChange(stored, next.status, now); wait > 0 && (requeue == 0 || wait < requeue) {
		requeue = wait
	}
	wrote, err := c.writer.write(ctx, stored, next.status, &next.after)
	if err != nil {
		return 0, err
	}
	if wrote {
		c.uses.wrote(stored, next.status, now)
	}
	if err := c.targets.publish(ctx, f, next.status); err != nil {
		return 0, err
	}
	if d := usesChange.Sub(now); !usesChange.IsZero() && (requeue == 0 || d < requeue) {
		requeue = max(d, 0) + time.Second
	}
	return requeue, nil
}

// nextStatus is a pass's next status of a Feature, with the events and
// metrics to record once it is stored.
type nextStatus struct {
	status *featuresv1alpha1.FeatureStatus
	after  outbox
}

// pass computes the next status of f, which this apiserver leads: a
// Feature of kube-system goes through desired state (a spec write ends the
// pass: its event brings the Feature back), its transitions and its
// rollout; a third party's that kube-apiserver leads through its
// transitions; any other only gets its uses.
func (c *Controller) pass(ctx context.Context, f *featuresv1alpha1.Feature, spec featuregate.FeatureSpec, voters []string, now time.Time) (*nextStatus, time.Duration, bool, error) {
	next := &nextStatus{}
	switch {
	case f.Namespace == KubeNamespace:
		vote, err := c.transitions.desiredState(ctx, f, voters)
		if err != nil || vote.specWritten {
			return nil, 0, vote.specWritten, err
		}
		status, requeue := c.transitions.next(ctx, f, spec, vote, now, &next.after)
		wait, event, err := c.rollouts.sync(f, status, now)
		if err != nil {
			return nil, 0, false, err
		}
		if event != nil {
			recorder := c.transitions.recorder
			next.after.add(func() { recorder.Event(f, event.eventType, event.reason, event.message) })
		}
		if wait > 0 && (requeue == 0 || wait < requeue) {
			requeue = wait
		}
		next.status = status
		return next, requeue, false, nil
	case ledThirdParty(f):
		status, requeue := c.transitions.nextThirdParty(ctx, f, now, &next.after)
		next.status = status
		return next, requeue, false, nil
	default:
		next.status = f.Status.DeepCopy()
		return next, 0, false, nil
	}
}
