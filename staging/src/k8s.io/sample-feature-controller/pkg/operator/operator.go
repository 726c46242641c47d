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

// Package operator runs the sample operator: the feature lifecycle client
// of its gates (k8s.io/features) and its controller.
package operator

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/pflag"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
	lifecycle "k8s.io/features/options"

	"k8s.io/sample-feature-controller/pkg/controller"
)

// Options are the operator's flags.
type Options struct {
	// Namespace holds the operator's Features, reports, Widgets and
	// Gadgets.
	Namespace string
	// Identity names this process among the operator's: its pod's name.
	Identity string
	// Workers is how many objects are synced at once.
	Workers int
	// Resync is how often every object is synced again.
	Resync time.Duration
	// Lifecycle are the flags of the feature lifecycle client.
	Lifecycle lifecycle.Options
}

// AddFlags adds the operator's flags to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "The namespace of the operator's Features, FeatureReports, Widgets and Gadgets.")
	fs.StringVar(&o.Identity, "identity", o.Identity, "This process's name among the operator's, for its FeatureReport: its pod's name.")
	fs.IntVar(&o.Workers, "workers", o.Workers, "How many Widgets, Gadgets and Features are synced at once.")
	fs.DurationVar(&o.Resync, "resync-period", o.Resync, "How often every Widget and Gadget is synced again.")
	o.Lifecycle.AddFlags(fs)
}

// Validate says what is wrong with o.
func (o *Options) Validate() error {
	var errs []error
	if o.Namespace == "" {
		errs = append(errs, errors.New("--namespace is required"))
	}
	if o.Identity == "" {
		errs = append(errs, errors.New("--identity is required"))
	}
	if o.Workers < 1 {
		errs = append(errs, errors.New("--workers must be at least 1"))
	}
	return errors.Join(errs...)
}

// Run reports and follows the operator's gates in gate and runs its
// controller until ctx ends.
func Run(ctx context.Context, config *rest.Config, gate featuregate.FeatureGate, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	// The feature lifecycle: report the gates this process checks, and
	// follow the desired state of the Features managed Dynamic.
	if err := o.Lifecycle.Start(ctx, gate, client, lifecycle.Component{
		Name: controller.Component, Namespace: o.Namespace, Identity: o.Identity,
	}); err != nil {
		return err
	}

	kubeInformers := informers.NewSharedInformerFactoryWithOptions(client, o.Resync, informers.WithNamespace(o.Namespace))
	crInformers := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, o.Resync, o.Namespace, nil)
	c, err := controller.New(ctx, o.Namespace, gate, client, kubeInformers, crInformers)
	if err != nil {
		return err
	}
	kubeInformers.Start(ctx.Done())
	crInformers.Start(ctx.Done())
	defer kubeInformers.Shutdown()
	defer crInformers.Shutdown()
	return c.Run(ctx, o.Workers)
}
