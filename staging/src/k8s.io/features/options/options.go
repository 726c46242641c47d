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

package options

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	"k8s.io/features/follow"
	"k8s.io/features/report"
)

// DesiredStateCacheFileFlag is the name of the flag AddFlags adds.
const DesiredStateCacheFileFlag = "feature-desired-state-cache-file"

// Options are the options of a component's feature lifecycle client: how
// fast it reports the gates it uses, and where it caches the desired states
// it follows. The zero value is valid: default rates, no cache. Only the
// cache is a flag (AddFlags): where a component may write is the
// operator's; the report's rate is the reporter's (a report is written
// only when a value changes), which a program embedding the client may
// still set here.
type Options struct {
	// ReportQPS and ReportBurst bound the rate of the report's writes; 0
	// means the reporter's default (5 and 10).
	ReportQPS   float32
	ReportBurst int
	// DesiredStateCacheFile is where the desired states followed are
	// cached. Empty: no cache.
	DesiredStateCacheFile string
}

// AddFlags adds the flag of o to fs: --feature-desired-state-cache-file.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DesiredStateCacheFile, DesiredStateCacheFileFlag, o.DesiredStateCacheFile, "Where this process keeps the desired state of the Features managed Central or Dynamic that it follows (features.k8s.io, KEP-3920), to start with them when no kube-apiserver can be reached. Empty: no cache.")
}

// Component names the reporting process.
type Component struct {
	// Name is the component's name, for example kube-scheduler. Required.
	Name string
	// Namespace holds the component's Features and reports. Default
	// kube-system.
	Namespace string
	// Identity identifies the process among its component's: a node name,
	// a pod name, a host name. Required.
	Identity string
	// HolderLease names a Lease the process renews anyway (a node lease);
	// without it the reporter renews the report.
	HolderLease *featuresv1alpha1.FeatureReportLease
	// StartTime is when the process started, which its report states.
	// Default: when the process started (report.Options.StartTime).
	StartTime time.Time
}

// Start starts a Flow for the component: see Flow.Start.
func (o *Options) Start(ctx context.Context, gate featuregate.FeatureGate, client kubernetes.Interface, c Component) error {
	f := o.NewFlow(gate, c.Name, c.Namespace)
	f.startTime = c.StartTime
	return f.Start(ctx, client, c.Identity, c.HolderLease)
}

// Flow is the feature lifecycle client of a process: a Follower of desired
// states, when its gate is mutable, and a Reporter of the gates it uses.
type Flow struct {
	options   Options
	gate      featuregate.FeatureGate
	component string
	namespace string
	follower  *follow.Follower
	reporter  atomic.Pointer[report.Reporter]
	// nodeLabels returns the labels of the process's node, for rollouts
	// whose steps select nodes by label.
	nodeLabels func() labels.Set
	// startTime is when the process started (zero: the reporter's
	// default, the process's start).
	startTime time.Time
}

// SetNodeLabels gives the flow the labels of the process's node (a
// kubelet's), which the label selectors of a Feature's rollout in steps
// match. Call it before Start.
func (f *Flow) SetNodeLabels(nodeLabels func() labels.Set) {
	f.nodeLabels = nodeLabels
}

// NewFlow returns the flow of a component's process whose feature gate is
// gate. Create it once the process's own configuration is applied to gate.
func (o *Options) NewFlow(gate featuregate.FeatureGate, component, namespace string) *Flow {
	f := &Flow{options: *o, gate: gate, component: component, namespace: namespace}
	if mutable, ok := gate.(featuregate.MutableVersionedFeatureGate); ok {
		f.follower = follow.NewFollower(mutable, nil, follow.Options{
			Namespace: namespace,
			Component: component,
			CacheFile: o.DesiredStateCacheFile,
			OnChange: func() {
				if r := f.reporter.Load(); r != nil {
					r.Changed()
				}
			},
		})
	}
	return f
}

// ApplyCached applies the desired states cached in DesiredStateCacheFile, for
// a process that reads its gates before it has a client (a kubelet before
// its TLS bootstrap). Start then follows the Features themselves.
func (f *Flow) ApplyCached(ctx context.Context) error {
	if f.follower == nil {
		return nil
	}
	return f.follower.Start(ctx)
}

// Start follows the desired states (reading the Features once, or the cache,
// and applying them before it returns), then reports the gates the process
// uses under identity, both in the background until ctx ends. Failures to
// read are logged and retried; an error means that values could not all be
// applied, or that reporting could not start.
func (f *Flow) Start(ctx context.Context, client kubernetes.Interface, identity string, holderLease *featuresv1alpha1.FeatureReportLease) error {
	if client == nil {
		return errors.New("no client to report feature gate uses with")
	}
	opts := report.Options{
		Component:   f.component,
		Identity:    identity,
		Namespace:   f.namespace,
		HolderLease: holderLease,
		QPS:         f.options.ReportQPS,
		Burst:       f.options.ReportBurst,
		StartTime:   f.startTime,
	}
	if f.follower != nil {
		opts.Management = f.follower.Management
		opts.Followed = f.follower.Followed
	}
	r, err := report.NewReporter(f.gate, client, opts)
	if err != nil {
		return err
	}
	f.reporter.Store(r)
	var followErr error
	if f.follower != nil {
		f.follower.Identify(identity, f.nodeLabels)
		followErr = f.follower.Connect(ctx, client)
	}
	go r.Run(ctx)
	klog.FromContext(ctx).V(2).Info("Started the feature lifecycle client", "component", f.component, "identity", identity)
	return followErr
}
