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
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	featuresinformers "k8s.io/features/client/informers/externalversions"
	featureslisters "k8s.io/features/client/listers/api/v1alpha1"
)

// Following is how a gate's value follows a Feature's desired state.
type Following struct {
	// Management is the Feature's: Central or Dynamic.
	Management featuresv1alpha1.FeatureManagement
	// Cached says the value came from the local cache of the desired state,
	// because the Features could not be read when the process started.
	Cached bool
}

// FollowOptions tune Follow. The zero value of a field means its default.
type FollowOptions struct {
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
}

func (o FollowOptions) withDefaults() FollowOptions {
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
	return o
}

// followSelector selects the Features whose desired state components may
// follow: those managed otherwise than by the command line.
const followSelector = "spec.management!=" + string(featuresv1alpha1.FeatureManagementCommandLine)

// desired is a followed Feature's desired state, as the cache keeps it.
type desired struct {
	Gate                string                             `json:"gate"`
	Enabled             bool                               `json:"enabled"`
	Management          featuresv1alpha1.FeatureManagement `json:"management"`
	AppliesWhileRunning bool                               `json:"appliesWhileRunning,omitempty"`
}

// followCache is the content of FollowOptions.CacheFile.
type followCache struct {
	// Written is when the desired states were read from the API.
	Written time.Time `json:"written"`
	// Features are the desired states, by gate.
	Features []desired `json:"features"`
}

// Follow makes the gates this process knows take their value from the
// desired state of their Feature when its management is Central or Dynamic
// (FollowOptions.Modes), except gates its own configuration sets explicitly
// (Set, SetFromMap: flags, configuration files), which keep their value and
// are reported as configured, so that the Feature shows the conflict.
//
// Before it returns, it reads the Features once (within StartTimeout) and
// applies their desired state; when they cannot be read it applies what
// CacheFile holds and says so in its log and in the report. Call it before
// the process builds anything that reads gates. Until ctx ends it then
// follows changes: a Dynamic Feature's, or one whose gate applies while
// running (status.appliesWhileRunning), at once; any other by calling
// Restart, once the cache holds the new value. With a nil client it only
// applies what CacheFile holds (a kubelet before its TLS bootstrap).
func (g *Gate) Follow(ctx context.Context, client featuresclient.Interface, opts FollowOptions) error {
	f := &follower{gate: g, client: client, opts: opts.withDefaults()}
	return f.start(ctx)
}

// follower keeps a gate's followed values equal to the Features' desired
// states.
type follower struct {
	gate   *Gate
	client featuresclient.Interface
	opts   FollowOptions
	lister featureslisters.FeatureLister

	mu sync.Mutex
	// original holds the value each followed gate had from the process's
	// own configuration, to go back to when the Feature stops being
	// followed.
	original map[featuregate.Feature]bool
	// warned holds the configured gates already warned about.
	warned map[featuregate.Feature]bool
}

func (f *follower) start(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("component", f.gate.Component())
	f.original, f.warned = map[featuregate.Feature]bool{}, map[featuregate.Feature]bool{}
	var (
		list *featuresv1alpha1.FeatureList
		err  = fmt.Errorf("no client yet")
	)
	if f.client != nil {
		readCtx, cancel := context.WithTimeout(ctx, f.opts.StartTimeout)
		list, err = f.client.FeaturesV1alpha1().Features(f.opts.Namespace).List(readCtx, metav1.ListOptions{FieldSelector: followSelector})
		cancel()
	}
	if err != nil {
		cached, cerr := f.readCache()
		if cerr != nil {
			logger.Error(err, "Cannot read the Features whose desired state this process follows, and no cached desired state", "cacheFile", f.opts.CacheFile, "cacheError", cerr)
		} else {
			logger.Info("Cannot read the Features whose desired state this process follows: using the cached desired state",
				"err", err, "cacheFile", f.opts.CacheFile, "written", cached.Written, "features", len(cached.Features))
			if err := f.apply(logger, byGate(cached.Features), true); err != nil {
				return err
			}
		}
	} else {
		wanted := f.wanted(logger, list.Items)
		if err := f.apply(logger, wanted, false); err != nil {
			return err
		}
		f.writeCache(logger, wanted)
	}
	if f.client != nil {
		go f.watch(klog.NewContext(ctx, logger))
	}
	return nil
}

// wanted returns the desired states of features this process follows.
func (f *follower) wanted(logger klog.Logger, features []featuresv1alpha1.Feature) map[featuregate.Feature]desired {
	known := f.gate.Known()
	out := map[featuregate.Feature]desired{}
	for i := range features {
		ft := &features[i]
		gate := featuregate.Feature(ft.Spec.Gate)
		if _, ok := known[gate]; !ok || !slices.Contains(f.opts.Modes, ft.Spec.Management) {
			continue
		}
		if f.opts.Gates != nil && !f.opts.Gates[gate] {
			continue
		}
		if ft.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateOn && ft.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateOff {
			continue
		}
		if !f.opts.OverrideConfigured && f.gate.configuredExplicitly(gate) {
			f.mu.Lock()
			if !f.warned[gate] {
				f.warned[gate] = true
				logger.Info("Warning: a feature gate whose desired state this process would follow is set on its command line; keeping the command line's value, which the Feature reports",
					"gate", gate, "management", ft.Spec.Management, "desiredState", ft.Spec.DesiredState, "value", known[gate])
			}
			f.mu.Unlock()
			continue
		}
		out[gate] = desired{
			Gate:                string(gate),
			Enabled:             ft.Spec.DesiredState == featuresv1alpha1.FeatureDesiredStateOn,
			Management:          ft.Spec.Management,
			AppliesWhileRunning: ft.Status.AppliesWhileRunning || ft.Spec.Management == featuresv1alpha1.FeatureManagementDynamic,
		}
	}
	return out
}

func byGate(list []desired) map[featuregate.Feature]desired {
	out := make(map[featuregate.Feature]desired, len(list))
	for _, d := range list {
		out[featuregate.Feature(d.Gate)] = d
	}
	return out
}

// apply makes the gate follow wanted: values of gates newly followed or
// followed with another value are set, gates no longer followed go back to
// their own value.
func (f *follower) apply(logger klog.Logger, wanted map[featuregate.Feature]desired, cached bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	current := f.gate.Known()
	values := map[string]bool{}
	following := map[featuregate.Feature]Following{}
	for gate, d := range wanted {
		if _, ok := f.original[gate]; !ok {
			f.original[gate] = current[gate]
		}
		values[string(gate)] = d.Enabled
		following[gate] = Following{Management: d.Management, Cached: cached}
	}
	for gate, value := range f.original {
		if _, ok := wanted[gate]; !ok {
			values[string(gate)] = value
			delete(f.original, gate)
		}
	}
	if err := f.gate.setFollowed(values, following); err != nil {
		return fmt.Errorf("applying the desired state of followed features: %w", err)
	}
	for gate, d := range wanted {
		if current[gate] != d.Enabled {
			logger.Info("Feature gate follows its Feature's desired state", "gate", gate, "management", d.Management, "enabled", d.Enabled, "cached", cached)
		}
	}
	return nil
}

// watch follows changes of the Features until ctx ends.
func (f *follower) watch(ctx context.Context) {
	logger := klog.FromContext(ctx)
	informers := featuresinformers.NewSharedInformerFactoryWithOptions(f.client, 10*time.Minute,
		featuresinformers.WithNamespace(f.opts.Namespace),
		featuresinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = followSelector }))
	informer := informers.Features().V1alpha1().Features()
	f.lister = informer.Lister()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(newRetryRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature-follower"})
	enqueue := func(any) { queue.Add("features") }
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		logger.Error(err, "Cannot follow the desired state of features")
		return
	}
	informers.Start(ctx.Done())
	defer informers.Shutdown()
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		return
	}
	for {
		key, quit := queue.Get()
		if quit {
			return
		}
		if err := f.sync(logger); err != nil {
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
func (f *follower) sync(logger klog.Logger) error {
	list, err := f.lister.Features(f.opts.Namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	features := make([]featuresv1alpha1.Feature, 0, len(list))
	for _, ft := range list {
		features = append(features, *ft)
	}
	wanted := f.wanted(logger, features)
	followed := f.gate.Followed()
	current := f.gate.Known()
	var restart []string
	changed := false
	for gate, d := range wanted {
		was, ok := followed[gate]
		if ok && !was.Cached && was.Management == d.Management && current[gate] == d.Enabled {
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
			f.mu.Lock()
			original, had := f.original[gate]
			f.mu.Unlock()
			if had && current[gate] != original {
				restart = append(restart, fmt.Sprintf("%s=%t (no longer followed)", gate, original))
			}
		}
	}
	if !changed {
		return nil
	}
	f.writeCache(logger, wanted)
	if len(restart) > 0 {
		slices.Sort(restart)
		f.opts.Restart("the desired state of feature gates that apply only at start changed: " + strings.Join(restart, ", "))
		return nil
	}
	return f.apply(logger, wanted, false)
}

func (f *follower) readCache() (*followCache, error) {
	if f.opts.CacheFile == "" {
		return nil, fmt.Errorf("no cache file configured")
	}
	data, err := os.ReadFile(f.opts.CacheFile)
	if err != nil {
		return nil, err
	}
	var c followCache
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.opts.CacheFile, err)
	}
	return &c, nil
}

// writeCache replaces the cache file with wanted, atomically.
func (f *follower) writeCache(logger klog.Logger, wanted map[featuregate.Feature]desired) {
	if f.opts.CacheFile == "" {
		return
	}
	c := followCache{Written: time.Now().UTC()}
	for _, gate := range slices.Sorted(maps.Keys(wanted)) {
		c.Features = append(c.Features, wanted[gate])
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(f.opts.CacheFile), 0o755)
	}
	if err == nil {
		tmp := f.opts.CacheFile + ".tmp." + strconv.Itoa(os.Getpid())
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, f.opts.CacheFile)
		}
	}
	if err != nil {
		logger.Error(err, "Cannot write the cache of followed desired states", "cacheFile", f.opts.CacheFile)
	}
}
