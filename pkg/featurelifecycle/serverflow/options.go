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

	"github.com/spf13/pflag"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

// Options are kube-apiserver's flags of the feature lifecycle (KEP-3920).
// They take effect only when the FeatureLifecycle feature gate is on and
// features.k8s.io/v1alpha1 is served.
type Options struct {
	// Controller tunes the lifecycle controller: leaders, transitions,
	// residue scans, Central and Dynamic gates.
	Controller featurelifecycle.ControllerOptions
	// Migration tunes the storage migrations of ClearFields tasks.
	Migration migrator.Options
	// ReportQPS and ReportBurst bound the writes of kube-apiserver's own
	// FeatureReport; 0 means the reporter's defaults.
	ReportQPS   float32
	ReportBurst int
	// OpenAPIByState removes from the served OpenAPI documents the fields
	// of gates whose Feature is Disabled or turning off.
	OpenAPIByState bool
}

// NewOptions returns the options with their defaults.
func NewOptions() *Options {
	return &Options{
		Controller: featurelifecycle.DefaultControllerOptions(),
		Migration:  migrator.DefaultOptions(),
		// The KEP's follow-up goal: fields of a feature that is off leave
		// the served OpenAPI.
		OpenAPIByState: true,
	}
}

// AddFlags adds the flags of o to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	if o == nil {
		return
	}
	o.Controller.AddFlags(fs)
	o.Migration.AddFlags(fs)
	fs.Float32Var(&o.ReportQPS, "feature-use-report-qps", o.ReportQPS,
		"Maximum number of writes per second this process makes to report which feature gates it checked (features.k8s.io, KEP-3920). 0 means the default, 5.")
	fs.IntVar(&o.ReportBurst, "feature-use-report-burst", o.ReportBurst,
		"Maximum burst of writes to report which feature gates this process checked. 0 means the default, 10.")
	fs.BoolVar(&o.OpenAPIByState, "feature-lifecycle-openapi-by-state", o.OpenAPIByState,
		"Serve /openapi/v2 and /openapi/v3 without the fields (and enum values) of feature gates that are off here or whose Feature in kube-system is Disabled or turning off, and mark the gated fields served with their Feature and its state (x-kubernetes-feature, x-kubernetes-feature-state). The static api/openapi-spec documents and server-side apply keep every field.")
}

// Validate returns an error for each flag of o whose value cannot work,
// naming the flag. Gates named by --feature-lifecycle-central-gates and
// --feature-lifecycle-dynamic-gates must be known to the default feature
// gate and allowed in that management by the lifecycle registry.
func (o *Options) Validate() []error {
	if o == nil {
		return nil
	}
	errs := append(o.Controller.Validate(), o.Migration.Validate()...)
	if o.ReportQPS < 0 {
		errs = append(errs, fmt.Errorf("--feature-use-report-qps must not be negative, got %v", o.ReportQPS))
	}
	if o.ReportBurst < 0 {
		errs = append(errs, fmt.Errorf("--feature-use-report-burst must not be negative, got %d", o.ReportBurst))
	}
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	if _, err := o.Controller.OptIns(func(gate featuregate.Feature) bool {
		_, ok := known[gate]
		return ok
	}); err != nil {
		errs = append(errs, err)
	}
	return errs
}
