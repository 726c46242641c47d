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

package follow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	"k8s.io/features/cohort"
	"k8s.io/features/internal/backoff"
)

// Options say which Features a Follower follows and how. The zero value of a
// field means its default.
type Options struct {
	// Namespace holds the Features. Default kube-system.
	Namespace string
	// Modes are the managements whose Features are followed. Default
	// Central and Dynamic, as for every component but kube-apiserver
	// (whose own configuration is a Central gate's desired state).
	Modes []featuresv1alpha1.FeatureManagement
	// Gates, when not nil, are the only gates followed (kube-apiserver
	// follows only the gates its flags make Dynamic).
	Gates map[featuregate.Feature]bool
	// OverrideConfigured follows gates that this process's own
	// configuration sets, too: kube-apiserver's --feature-gates give a
	// Dynamic gate its first value, which the Feature then overrides.
	// Otherwise such gates keep their configured value, which the report
	// states, so that the Feature shows the conflict.
	OverrideConfigured bool
	// CacheFile is where the desired states last read are kept, so that a
	// process started while the apiservers cannot be reached starts with
	// them. Empty: no cache.
	CacheFile string
	// StartTimeout bounds the first read of the Features. Default 10 s.
	StartTimeout time.Duration
	// Restart is called when a followed gate's desired state changes and
	// the gate does not apply while running: it should end the process so
	// that its supervisor starts it again with the new value. Default: log
	// the reason and exit with status 0.
	Restart func(reason string)
	// OnChange is called after the follower changed the value of gates, or
	// where their values come from (a reporter's Changed).
	OnChange func()
	// Component and Identity name this process as its FeatureReport does
	// (kubelet and its node's name, or kube-apiserver and its identity
	// lease's name): a Feature that rolls out in steps
	// (spec.rollout) gives the new value only to the members of its
	// cohort, which each component works out from them. Identity may also
	// be given later, with Identify. A process without them is in no
	// cohort: it keeps the old value until the rollout completes.
	Component, Identity string
	// Labels returns the labels of this process's node, which a rollout's
	// label selectors match. nil: no labels.
	Labels func() labels.Set
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = metav1.NamespaceSystem
	}
	if o.Modes == nil {
		o.Modes = []featuresv1alpha1.FeatureManagement{featuresv1alpha1.FeatureManagementCentral, featuresv1alpha1.FeatureManagementDynamic}
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.Restart == nil {
		o.Restart = func(reason string) {
			klog.InfoS("Exiting so that this process is restarted with the new feature gate values", "reason", reason)
			klog.FlushAndExit(klog.ExitFlushTimeout, 0)
		}
	}
	if o.OnChange == nil {
		o.OnChange = func() {}
	}
	return o
}

// desired is a followed Feature's desired state, as the cache keeps it.
type desired struct {
	Gate                string                             `json:"gate"`
	Enabled             bool                               `json:"enabled"`
	Management          featuresv1alpha1.FeatureManagement `json:"management"`
	AppliesWhileRunning bool                               `json:"appliesWhileRunning,omitempty"`
}

// following is how a gate's value follows its Feature.
type following struct {
	management featuresv1alpha1.FeatureManagement
	// cached says the value came from the cache, because the Features could
	// not be read when the process started.
	cached bool
}

// Follower makes the gates a process knows take their value from the
// desired state of their Feature when its management is Central or Dynamic
// (Options.Modes), except gates the process's own configuration sets
// explicitly (flags, configuration files), which keep their value. Create
// it with NewFollower once the process's own configuration is applied to
// the gate. It is safe for concurrent use.
type Follower struct {
	gate featuregate.MutableVersionedFeatureGate
	opts Options

	mu     sync.Mutex
	client kubernetes.Interface
	// configured holds the gates explicitly set by the process's own
	// configuration, as ExplicitlySet said before the follower first
	// applied anything (it makes the gates it sets explicitly set, too).
	configured map[featuregate.Feature]bool
	// original holds the value each followed gate had before it was
	// followed, to go back to when it no longer is.
	original map[featuregate.Feature]bool
	// following holds how each followed gate follows its Feature.
	following map[featuregate.Feature]following
	// warned holds the configured gates already warned about.
	warned map[featuregate.Feature]bool
	// applied is true once values were applied, from the API or the cache.
	applied bool
	// watching is true once the follower follows changes.
	watching bool
}

// Identify gives the follower this process's identity (Options.Identity)
// and, when not nil, its node's labels (Options.Labels), for a process that
// learns them only when it connects (a kubelet's node name). Call it
// before Connect.
func (f *Follower) Identify(identity string, nodeLabels func() labels.Set) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opts.Identity = identity
	if nodeLabels != nil {
		f.opts.Labels = nodeLabels
	}
}

// NewFollower returns a Follower of gate's values, which reads the Features
// with client. client may be nil for a process that has no client yet (a
// kubelet before its TLS bootstrap): Start then applies only the cache, and
// Connect gives the client later.
func NewFollower(gate featuregate.MutableVersionedFeatureGate, client kubernetes.Interface, opts Options) *Follower {
	f := &Follower{
		gate:      gate,
		client:    client,
		opts:      opts.withDefaults(),
		original:  map[featuregate.Feature]bool{},
		following: map[featuregate.Feature]following{},
		warned:    map[featuregate.Feature]bool{},
	}
	f.recordConfigured()
	return f
}

// recordConfigured records the gates the process's own configuration set.
func (f *Follower) recordConfigured() {
	f.configured = map[featuregate.Feature]bool{}
	for name := range f.gate.GetAllVersioned() {
		if f.gate.ExplicitlySet(name) {
			f.configured[name] = true
		}
	}
}

// Start reads the Features once (within Options.StartTimeout) and applies
// their desired state before it returns; when they cannot be read, or the
// follower has no client, it applies what Options.CacheFile holds and the
// report says so. Call it before the process builds anything that reads
// gates. With a client it then follows changes until ctx ends: a Dynamic
// Feature's, or one whose gate applies while running
// (status.appliesWhileRunning), at once; any other by calling
// Options.Restart, once the cache holds the new value.
func (f *Follower) Start(ctx context.Context) error {
	f.mu.Lock()
	client := f.client
	f.mu.Unlock()
	return f.start(ctx, client)
}

// Connect gives a follower started without a client its client: it reads
// the Features once, applies them and follows them, as Start does with a
// client.
func (f *Follower) Connect(ctx context.Context, client kubernetes.Interface) error {
	if client == nil {
		return errors.New("no client to follow the Features with")
	}
	f.mu.Lock()
	f.client = client
	f.mu.Unlock()
	return f.start(ctx, client)
}

func (f *Follower) start(ctx context.Context, client kubernetes.Interface) error {
	logger := klog.FromContext(ctx)
	if client != nil {
		f.mu.Lock()
		watching := f.watching
		f.watching = true
		f.mu.Unlock()
		if watching {
			return errors.New("the follower already follows the Features")
		}
	}
	var (
		list *featuresv1alpha1.FeatureTargetList
		err  = errors.New("no client yet")
	)
	if client != nil {
		readCtx, cancel := context.WithTimeout(ctx, f.opts.StartTimeout)
		list, err = client.FeaturesV1alpha1().FeatureTargets(f.opts.Namespace).List(readCtx, metav1.ListOptions{})
		cancel()
	}
	var applyErr error
	switch {
	case err == nil:
		items := make([]*featuresv1alpha1.FeatureTarget, 0, len(list.Items))
		for i := range list.Items {
			items = append(items, &list.Items[i])
		}
		wanted := f.wanted(logger, items)
		applyErr = f.apply(logger, wanted, false)
		cacheFile(f.opts.CacheFile).write(logger, wanted)
	case f.hasApplied():
		// Connect after Start from the cache: the cached values stay
		// until the informer reads the Features.
		logger.Info("Cannot read the Features whose desired state this process follows yet", "err", err)
	default:
		cached, cerr := cacheFile(f.opts.CacheFile).read()
		if cerr != nil {
			if client != nil || f.opts.CacheFile != "" {
				logger.Info("Cannot read the Features whose desired state this process follows, and no cached desired state", "err", err, "cacheFile", f.opts.CacheFile, "cacheErr", cerr)
			}
			break
		}
		logger.Info("Cannot read the Features whose desired state this process follows: using the cached desired state",
			"err", err, "cacheFile", f.opts.CacheFile, "written", cached.Written, "features", len(cached.Features))
		applyErr = f.apply(logger, f.filter(logger, cached.Features), true)
	}
	if client != nil {
		go f.watch(ctx, client)
	}
	return applyErr
}

func (f *Follower) hasApplied() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applied
}

// Management returns where the value of a gate comes from, for the process's
// report: the management of the Feature it follows, and whether the value
// came from the cache; "" when the gate follows nothing.
func (f *Follower) Management(name featuregate.Feature) (featuresv1alpha1.FeatureManagement, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fw, ok := f.following[name]; ok {
		return fw.management, fw.cached
	}
	return "", false
}

// Followed returns the gates that follow a Feature, sorted.
func (f *Follower) Followed() []featuregate.Feature {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.following))
}

// wanted returns the desired states of the Features this process follows,
// from their targets.
func (f *Follower) wanted(logger klog.Logger, targets []*featuresv1alpha1.FeatureTarget) map[featuregate.Feature]desired {
	list := make([]desired, 0, len(targets))
	for _, t := range targets {
		list = append(list, desired{
			Gate:                t.Spec.Gate,
			Enabled:             f.value(logger, t),
			Management:          t.Spec.Management,
			AppliesWhileRunning: t.Spec.AppliesWhileRunning,
		})
	}
	return f.filter(logger, list)
}

// value returns the value this process takes from a Feature's target: its
// desired state, or, while the Feature rolls out in steps, the rollout's
// value when this process is in the rollout's cohort.
func (f *Follower) value(logger klog.Logger, t *featuresv1alpha1.FeatureTarget) bool {
	if r := t.Spec.Rollout; r != nil && f.member(logger, t, r) {
		return r.DesiredState == featuresv1alpha1.FeatureDesiredStateEnabled
	}
	return t.Spec.DesiredState == featuresv1alpha1.FeatureDesiredStateEnabled
}

// member says whether this process is in a rollout's cohort.
func (f *Follower) member(logger klog.Logger, t *featuresv1alpha1.FeatureTarget, r *featuresv1alpha1.FeatureTargetRollout) bool {
	if r.Cohort.All {
		return true
	}
	f.mu.Lock()
	component, identity, labelsOf := f.opts.Component, f.opts.Identity, f.opts.Labels
	f.mu.Unlock()
	if identity == "" || component != scopeComponents[r.Scope] {
		return false
	}
	c, err := cohort.FromAPI(r.Cohort)
	if err != nil {
		// Validation keeps this from happening; outside the cohort is the
		// safe side.
		logger.Error(err, "Cannot read the cohort of a rollout: keeping the old value", "featureTarget", klog.KObj(t))
		return false
	}
	var set labels.Labels
	if labelsOf != nil {
		set = labelsOf()
	}
	return c.Member(cohort.Rank(r.Cohort.Seed, identity), set)
}

// scopeComponents are the components each scope of a rollout picks its
// cohort from.
var scopeComponents = map[featuresv1alpha1.FeatureRolloutScope]string{
	featuresv1alpha1.FeatureRolloutScopeNodes:      "kubelet",
	featuresv1alpha1.FeatureRolloutScopeAPIServers: featuresv1alpha1.APIServerComponent,
}

// filter returns the desired states of gates this process follows: gates it
// knows, of the followed managements, not set by its own configuration.
func (f *Follower) filter(logger klog.Logger, list []desired) map[featuregate.Feature]desired {
	known := f.gate.GetAllVersioned()
	out := map[featuregate.Feature]desired{}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range list {
		gate := featuregate.Feature(d.Gate)
		if _, ok := known[gate]; !ok || !slices.Contains(f.opts.Modes, d.Management) {
			continue
		}
		if f.opts.Gates != nil && !f.opts.Gates[gate] {
			continue
		}
		if !f.opts.OverrideConfigured && f.configured[gate] {
			if !f.warned[gate] {
				f.warned[gate] = true
				logger.Info("Warning: a feature gate whose desired state this process would follow is set by its own configuration; keeping that value, which the report states",
					"gate", gate, "management", d.Management, "enabled", d.Enabled)
			}
			continue
		}
		out[gate] = d
	}
	return out
}

// values returns the current value of the named gates, read on a copy of
// the gate so that following never counts as a query.
func (f *Follower) values(names []featuregate.Feature) map[featuregate.Feature]bool {
	cp := f.gate.DeepCopy()
	known := cp.GetAllVersioned()
	out := make(map[featuregate.Feature]bool, len(names))
	for _, name := range names {
		if _, ok := known[name]; ok {
			out[name] = cp.Enabled(name)
		}
	}
	return out
}

// apply makes the gate follow wanted: gates newly followed, or followed
// with another value, are set; gates no longer followed go back to their
// own value. A value the gate refuses (locked, not available at the
// emulation version, a missing dependency) is left out and reported in the
// error; the other values are applied.
func (f *Follower) apply(logger klog.Logger, wanted map[featuregate.Feature]desired, cached bool) error {
	changed, err := f.applyLocked(logger, wanted, cached)
	if changed {
		f.opts.OnChange()
	}
	return err
}

func (f *Follower) applyLocked(logger klog.Logger, wanted map[featuregate.Feature]desired, cached bool) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := slices.Collect(maps.Keys(wanted))
	for name := range f.following {
		if _, ok := wanted[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	current := f.values(names)

	var errs []error
	changed := false
	// Gates no longer followed go back: to the configured value if the
	// process's configuration set them, else to their default.
	for _, name := range names {
		if _, ok := wanted[name]; ok {
			continue
		}
		original := f.original[name]
		var err error
		if f.configured[name] {
			err = f.set(map[string]bool{string(name): original})
		} else if err = f.gate.ResetFeatureValueToDefault(name); err == nil && f.values([]featuregate.Feature{name})[name] != original {
			// Reset drops what AllAlpha or AllBeta set: derive it again.
			err = f.set(map[string]bool{})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		delete(f.original, name)
		delete(f.following, name)
		changed = true
		logger.Info("Feature gate no longer follows its Feature's desired state", "gate", name, "enabled", original)
	}
	// Followed gates take the desired state.
	values := map[string]bool{}
	for _, name := range names {
		d, ok := wanted[name]
		if !ok {
			continue
		}
		if err := f.check(map[string]bool{string(name): d.Enabled}); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		was, followed := f.following[name]
		if !followed {
			f.original[name] = current[name]
		}
		if !followed || current[name] != d.Enabled {
			values[string(name)] = d.Enabled
		}
		fw := following{management: d.Management, cached: cached}
		if !followed || was != fw {
			f.following[name] = fw
			changed = true
		}
		if current[name] != d.Enabled {
			changed = true
			logger.Info("Feature gate follows its Feature's desired state", "gate", name, "management", d.Management, "enabled", d.Enabled, "cached", cached)
		}
	}
	if len(values) > 0 {
		if err := f.set(values); err != nil {
			errs = append(errs, err)
		}
	}
	f.applied = true
	if len(errs) > 0 {
		return changed, fmt.Errorf("applying the desired state of followed features: %w", errors.Join(errs...))
	}
	return changed, nil
}

// check says whether the gate accepts values, trying them on a copy: a
// refused SetFromMap leaves the refused values in the gate, where every
// later SetFromMap finds them again.
func (f *Follower) check(values map[string]bool) error {
	return f.gate.DeepCopy().SetFromMap(values)
}

// set sets values, once the gate is known to accept them.
func (f *Follower) set(values map[string]bool) error {
	if err := f.check(values); err != nil {
		return err
	}
	return f.gate.SetFromMap(values)
}

// watch follows changes of the Features' targets until ctx ends: only
// the targets, which their leaders write when what followers take
// changes, not the Features, whose status changes far more often.
func (f *Follower) watch(ctx context.Context, client kubernetes.Interface) {
	logger := klog.FromContext(ctx)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute, informers.WithNamespace(f.opts.Namespace))
	informer := factory.Features().V1alpha1().FeatureTargets()
	lister := informer.Lister()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(backoff.NewRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature-follower"})
	enqueue := func(any) { queue.Add("features") }
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		logger.Error(err, "Cannot follow the desired state of features")
		return
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		return
	}
	// A target deleted since Start read them sends no event: sync once.
	queue.Add("features")
	for {
		key, quit := queue.Get()
		if quit {
			return
		}
		if err := f.sync(logger, lister); err != nil {
			logger.Error(err, "Following the desired state of features failed, will retry")
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

// sync applies what changed since the last apply: live, or by a restart
// when a changed gate does not apply while running.
func (f *Follower) sync(logger klog.Logger, lister featureslisters.FeatureTargetLister) error {
	list, err := lister.FeatureTargets(f.opts.Namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	wanted := f.wanted(logger, list)

	f.mu.Lock()
	followed := maps.Clone(f.following)
	original := maps.Clone(f.original)
	f.mu.Unlock()
	names := slices.Collect(maps.Keys(wanted))
	for name := range followed {
		names = append(names, name)
	}
	current := f.values(names)

	var restart []string
	changed := false
	for gate, d := range wanted {
		was, ok := followed[gate]
		if ok && !was.cached && was.management == d.Management && current[gate] == d.Enabled {
			continue
		}
		changed = true
		if !d.AppliesWhileRunning && current[gate] != d.Enabled {
			restart = append(restart, fmt.Sprintf("%s=%t (%s)", gate, d.Enabled, d.Management))
		}
	}
	for gate := range followed {
		if _, ok := wanted[gate]; !ok {
			changed = true
			if value, had := original[gate]; had && current[gate] != value {
				restart = append(restart, fmt.Sprintf("%s=%t (no longer followed)", gate, value))
			}
		}
	}
	if !changed {
		return nil
	}
	cacheFile(f.opts.CacheFile).write(logger, wanted)
	if len(restart) > 0 {
		slices.Sort(restart)
		f.opts.Restart("the desired state of feature gates that apply only at start changed: " + strings.Join(restart, ", "))
		return nil
	}
	return f.apply(logger, wanted, false)
}
