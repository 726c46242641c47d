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

package serverflow

import (
	"fmt"
	"sync"

	"github.com/spf13/pflag"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	configv1alpha1 "k8s.io/kubernetes/pkg/featurelifecycle/apis/config/v1alpha1"
	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/noderequests"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// The flags of the feature lifecycle in kube-apiserver: the two an operator
// turns (which gates are managed Central or Dynamic, see docs/design.md,
// "Configuration"), and the configuration file that holds every other knob.
const (
	CentralGatesFlag = "feature-lifecycle-central-gates"
	DynamicGatesFlag = "feature-lifecycle-dynamic-gates"
	ConfigFileFlag   = "feature-lifecycle-config-file"
)

// Options are kube-apiserver's options of the feature lifecycle (KEP-3920).
// They take effect only when the FeatureLifecycle feature gate is on and
// features.k8s.io/v1alpha1 is served.
type Options struct {
	// CentralGates are the gates whose other components follow the
	// apiservers' configured value (KEP stage 2); DynamicGates those whose
	// desired state an authorized client sets (stage 3). Each must be
	// allowed by its entry in lifecycle.Managements.
	CentralGates, DynamicGates []string
	// ConfigFile is the configuration file
	// (configv1alpha1.FeatureLifecycleConfiguration); empty: the defaults.
	ConfigFile string

	// NodeRequests counts the kubelets' requests for the analysis of
	// rollouts in steps (CountNodeRequests); nil: nothing counts them.
	NodeRequests *noderequests.Counter

	loadOnce sync.Once
	config   *configv1alpha1.FeatureLifecycleConfiguration
	loadErr  error

	statesOnce sync.Once
	states     *featurestates.Registry
}

// NewOptions returns the options with their defaults.
func NewOptions() *Options {
	return &Options{}
}

// AddFlags adds the flags of o to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	if o == nil {
		return
	}
	fs.StringSliceVar(&o.CentralGates, CentralGatesFlag, o.CentralGates,
		"Feature gates whose Feature is managed Central: kube-controller-manager, kube-scheduler and kubelets take the gate's value from the Feature, whose desired state is this flag's kube-apiservers' configured value (--feature-gates), instead of their own command line. Only gates the lifecycle registry allows; every kube-apiserver must list the same gates.")
	fs.StringSliceVar(&o.DynamicGates, DynamicGatesFlag, o.DynamicGates,
		"Feature gates whose Feature is managed Dynamic: a client RBAC allows to update Features sets spec.desiredState, and every component, this kube-apiserver included, applies it while running. Only gates the lifecycle registry allows (they take no configuration); every kube-apiserver must list the same gates.")
	fs.StringVar(&o.ConfigFile, ConfigFileFlag, o.ConfigFile,
		"File with the configuration of the feature lifecycle (features.k8s.io, KEP-3920): a FeatureLifecycleConfiguration of featurelifecycle.config.k8s.io/v1alpha1 (liveness and forget windows, the wait for uses, the residue scan, storage migrations, OpenAPI by Feature state). Empty: the defaults.")
}

// FeatureStates returns the registry of the Features' states that the REST
// storage providers read to serve a resource, with its gate off, while its
// Feature is Disabling (servewhiledisabling), and that Install feeds; nil
// when o is nil or the FeatureLifecycle gate is off: the providers then
// build no such resource, as upstream.
func (o *Options) FeatureStates() *featurestates.Registry {
	if o == nil || !utilfeature.DefaultFeatureGate.Enabled(features.FeatureLifecycle) {
		return nil
	}
	o.statesOnce.Do(func() { o.states = featurestates.NewRegistry(featurelifecycle.KubeNamespace) })
	return o.states
}

// Configuration returns the configuration file's content, defaulted and
// validated, read once.
func (o *Options) Configuration() (*configv1alpha1.FeatureLifecycleConfiguration, error) {
	o.loadOnce.Do(func() {
		o.config, o.loadErr = configv1alpha1.Load(o.ConfigFile)
		if o.loadErr != nil {
			o.loadErr = fmt.Errorf("--%s: %w", ConfigFileFlag, o.loadErr)
		}
	})
	return o.config, o.loadErr
}

// Validate returns an error for each option of o that cannot work, naming
// the flag (and, for the configuration file, the field). Gates named by
// --feature-lifecycle-central-gates and --feature-lifecycle-dynamic-gates
// must be known to the default feature gate and allowed in that management
// by the lifecycle registry.
func (o *Options) Validate() []error {
	if o == nil {
		return nil
	}
	var errs []error
	if _, err := o.Configuration(); err != nil {
		errs = append(errs, err)
	}
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	if _, err := o.OptIns(func(gate featuregate.Feature) bool {
		_, ok := known[gate]
		return ok
	}); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// OptIns returns the management the options opt each gate into, or an error
// naming every gate the lifecycle registry does not allow in its mode, or
// known (when not nil) does not know.
func (o *Options) OptIns(known func(featuregate.Feature) bool) (map[featuregate.Feature]featuresv1alpha1.FeatureManagement, error) {
	return lifecycle.OptIns(o.CentralGates, o.DynamicGates, known)
}

// controllerConfig returns the lifecycle controller's configuration.
func (o *Options) controllerConfig(c *configv1alpha1.FeatureLifecycleConfiguration) featurelifecycle.Config {
	cfg := featurelifecycle.ConfigFrom(c)
	cfg.NodeRequests = o.NodeRequests
	return cfg
}

// migration returns the options of the storage migrations.
func migration(c *configv1alpha1.FeatureLifecycleConfiguration) migrator.Options {
	m := c.Migration
	return migrator.Options{PageSize: *m.PageSize, Workers: int(*m.Workers), QPS: float64(*m.QPS), Burst: int(*m.Burst)}
}
