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
	"time"

	"k8s.io/component-base/featuregate"
	"k8s.io/utils/clock"

	configv1alpha1 "k8s.io/kubernetes/pkg/featurelifecycle/apis/config/v1alpha1"
	"k8s.io/kubernetes/pkg/featurelifecycle/noderequests"
	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// Config is what the lifecycle controller is built with: kube-apiserver's
// feature lifecycle configuration (serverflow reads it from
// --feature-lifecycle-config-file, configv1alpha1), and what tests pass
// instead.
type Config struct {
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
	// Resync is when a pass that waits on nothing it can see (a task of an
	// apiserver that does not know it, a version-keyed task waiting for
	// other apiservers) looks again.
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

	// Lifecycles is the registry transitions are planned from; nil means
	// lifecycle.Registry(): the lifecycles derived from the gate inventory
	// and the explicit registrations. Tests pass their own.
	Lifecycles map[featuregate.Feature]lifecycle.Lifecycle
	// Clock is the clock of the controller and of its elector; nil means the
	// real clock. Tests pass a fake one.
	Clock clock.PassiveClock
	// NodeRequests counts the kubelets' requests this apiserver serves, for
	// the error rate in the analysis of a rollout in steps; nil: rollouts
	// do not judge error rates. kube-apiserver wraps its handler chain
	// with it (serverflow.CountNodeRequests).
	NodeRequests *noderequests.Counter
	// Canaries says which gates can roll out in steps, and on which
	// components; nil means rollout.Gates, the lifecycle registry's entry.
	// Tests pass their own.
	Canaries map[featuregate.Feature]rollout.Scope
}

// RetainMinorVersions is for how many minor versions after its
// status.version a Feature whose gate no live kube-apiserver knows is kept
// (marked Known=False) before it is deleted: the KEP's "removed only after
// a number of minor versions", the skew kube-apiserver supports.
const RetainMinorVersions = 3

// DefaultConfig is the configuration with the defaults of the
// configuration file.
func DefaultConfig() Config {
	return Config{
		LivenessWindow:          configv1alpha1.DefaultLivenessWindow,
		WaitForUsesPeriod:       configv1alpha1.DefaultWaitForUsesPeriod,
		ReportRetention:         configv1alpha1.DefaultReportRetention,
		Resync:                  30 * time.Second,
		ForgetWindow:            configv1alpha1.DefaultForgetWindow,
		RetainMinorVersions:     RetainMinorVersions,
		Workers:                 2,
		ResidueScanInterval:     configv1alpha1.DefaultResidueScanInterval,
		ResidueScanPageInterval: configv1alpha1.DefaultResidueScanPageInterval,
	}
}

// ConfigFrom returns the controller's configuration from a defaulted
// configuration file's.
func ConfigFrom(c *configv1alpha1.FeatureLifecycleConfiguration) Config {
	cfg := DefaultConfig()
	cfg.LivenessWindow = configv1alpha1.Duration(c.LivenessWindow)
	cfg.WaitForUsesPeriod = configv1alpha1.Duration(c.WaitForUsesPeriod)
	cfg.ReportRetention = configv1alpha1.Duration(c.ReportRetention)
	cfg.ForgetWindow = configv1alpha1.Duration(c.ForgetWindow)
	cfg.ResidueScanInterval = configv1alpha1.Duration(c.ResidueScan.Interval)
	cfg.ResidueScanPageInterval = configv1alpha1.Duration(c.ResidueScan.PageInterval)
	return cfg
}
