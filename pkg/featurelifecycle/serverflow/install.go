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

// Package serverflow installs the server flow of the feature lifecycle
// (KEP-3920) in kube-apiserver: its flags and configuration file (Options)
// and its post-start hooks, one per job: announcing a Feature for every
// gate, reporting the apiserver's own values, leading Features through
// their transitions, and serving OpenAPI without the fields of Features
// that are off. The informers come from kube-apiserver's shared informer
// factory.
package serverflow

import (
	"context"
	"fmt"
	"slices"
	"sync"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/features/follow"
	"k8s.io/features/report"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/noderequests"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// Names of the post-start hooks.
const (
	AnnounceHookName   = "start-feature-lifecycle-announcer"
	OpenAPIHookName    = "start-feature-lifecycle-openapi"
	ReportHookName     = "start-feature-lifecycle-reporter"
	ControllerHookName = "start-feature-lifecycle-controller"
)

// CountNodeRequests makes the handler chain that config builds count the
// kubelets' requests, for the error rates in the analysis of rollouts in
// steps, which the lifecycle controller of opts reads (opts nil: nothing
// reads them, nothing is counted). Call it, when the FeatureLifecycle gate
// is on, on the configuration of the server whose chain serves every
// request: kube-apiserver's aggregator. The counter counts only while a
// rollout this apiserver leads is in a step.
func CountNodeRequests(opts *Options, config *genericapiserver.Config) {
	if opts == nil {
		return
	}
	counter := noderequests.New()
	opts.NodeRequests = counter
	config.BuildHandlerChainFunc = counter.WrapChain(config.BuildHandlerChainFunc)
}

// StoreCatalogForTests, when set, is given the store catalog of each
// apiserver of this process Install installs the server flow in: an
// integration test compares it with what it expects.
var StoreCatalogForTests func(*storecatalog.Catalog)

// Install adds the server flow's post-start hooks to server, when
// features.k8s.io/v1alpha1 is served (the FeatureLifecycle gate is checked
// by the caller). gate is the apiserver's feature gate; config its generic
// configuration; factory its shared informer factory; opts its flags (nil:
// the defaults); stores the catalog of the registry stores the apiserver
// installs (filled as it installs its API groups, before the hooks run),
// which the tasks read and rewrite stored objects through.
func Install(server *genericapiserver.GenericAPIServer, config genericapiserver.CompletedConfig, factory informers.SharedInformerFactory,
	gate featuregate.MutableVersionedFeatureGate, opts *Options, stores *storecatalog.Catalog) error {
	if !config.MergedResourceConfig.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource("features")) {
		klog.V(2).InfoS("Not starting the feature lifecycle: features.k8s.io/v1alpha1 is not served (--runtime-config)")
		return nil
	}
	if opts == nil {
		opts = NewOptions()
	}
	if stores == nil {
		return fmt.Errorf("the feature lifecycle needs the registry stores the apiserver installed")
	}
	identity := server.APIServerID
	if identity == "" {
		return fmt.Errorf("the feature lifecycle needs the apiserver's identity lease (the APIServerIdentity feature gate)")
	}
	optIns, err := opts.OptIns(nil)
	if err != nil {
		return err
	}
	conf, err := opts.Configuration()
	if err != nil {
		return err
	}
	// Requested now, before the factory starts (the shared informers'
	// hook): the hooks below read them.
	_ = factory.Features().V1alpha1().Features().Informer()

	if err := server.AddPostStartHook(AnnounceHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		client, err := kubernetes.NewForConfig(hookContext.LoopbackClientConfig)
		if err != nil {
			return err
		}
		announcer := &featurelifecycle.Announcer{Client: client, Gate: gate, Namespace: featurelifecycle.KubeNamespace, Workers: 8}
		go func(ctx context.Context) {
			if err := announcer.Run(ctx); err != nil && ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "Announcing features failed")
			}
		}(hookContext)
		return nil
	}); err != nil {
		return err
	}

	// The follower of Dynamic gates (reporter hook) tells the OpenAPI
	// publisher (its own hook) when a gate changes.
	gateChanges := &listeners{}
	if err := server.AddPostStartHook(ReportHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		client, err := kubernetes.NewForConfig(hookContext.LoopbackClientConfig)
		if err != nil {
			return err
		}
		return startReporting(hookContext, client, gate, identity, optIns, gateChanges.notify)
	}); err != nil {
		return err
	}

	if *conf.OpenAPIByState {
		if err := installOpenAPIByState(server, config, factory, gate, stores, gateChanges); err != nil {
			return err
		}
	}

	if StoreCatalogForTests != nil {
		StoreCatalogForTests(stores)
	}
	return server.AddPostStartHook(ControllerHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		client, err := kubernetes.NewForConfig(hookContext.LoopbackClientConfig)
		if err != nil {
			return err
		}
		if states := opts.FeatureStates(); states != nil {
			if err := states.Run(hookContext, factory.Features().V1alpha1().Features()); err != nil {
				return err
			}
		}
		// Custom resources are cleared through the API: their storage is
		// the apiextensions-apiserver's.
		dynamicClient, err := dynamic.NewForConfig(hookContext.LoopbackClientConfig)
		if err != nil {
			return err
		}
		env := tasks.Env{Stores: stores, Dynamic: dynamicClient, Migration: migration(conf), Limiter: migrator.NewLimiter(migration(conf))}
		controller, err := featurelifecycle.NewController(identity, gate, client, factory, env, opts.controllerConfig(conf))
		if err != nil {
			return err
		}
		go controller.Run(hookContext)
		return nil
	})
}

// startReporting keeps the apiserver's own FeatureReport, with the value of
// every gate it knows, and makes its Dynamic gates follow their Features'
// desired state while it runs.
func startReporting(ctx context.Context, client kubernetes.Interface, gate featuregate.MutableVersionedFeatureGate, identity string,
	optIns map[featuregate.Feature]featuresv1alpha1.FeatureManagement, gateChanged func()) error {
	var reporter *report.Reporter
	var follower *follow.Follower
	dynamic := map[featuregate.Feature]bool{}
	for g, mode := range optIns {
		if mode == featuresv1alpha1.FeatureManagementDynamic {
			dynamic[g] = true
		}
	}
	if len(dynamic) > 0 {
		follower = follow.NewFollower(gate, client, follow.Options{
			Namespace: featurelifecycle.KubeNamespace,
			Modes:     []featuresv1alpha1.FeatureManagement{featuresv1alpha1.FeatureManagementDynamic},
			Gates:     dynamic,
			// --feature-gates gives a Dynamic gate its first value.
			OverrideConfigured: true,
			// A rollout on apiservers picks them by identity.
			Component: featuresv1alpha1.APIServerComponent,
			Identity:  identity,
			OnChange: func() {
				if reporter != nil {
					reporter.Changed()
				}
				gateChanged()
			},
		})
	}
	reporter, err := report.NewReporter(gate, client, report.Options{
		Component:      featuresv1alpha1.APIServerComponent,
		Identity:       identity,
		Namespace:      featurelifecycle.KubeNamespace,
		ReportAllKnown: true,
		// The apiserver's identity lease says it is alive.
		HolderLease: &featuresv1alpha1.FeatureReportLease{Namespace: leader.IdentityLeaseNamespace, Name: identity},
		// The version the reported values hold for: the leaders describe
		// Features at the lowest one among live apiservers.
		Annotations: map[string]string{featuresv1alpha1.EmulationVersionAnnotation: featurelifecycle.VersionOf(gate)},
		// The report says which gates the flags opt into Central and
		// Dynamic (validated at start).
		Management: func(g featuregate.Feature) (featuresv1alpha1.FeatureManagement, bool) {
			if mode, ok := optIns[g]; ok {
				return mode, false
			}
			if follower != nil {
				return follower.Management(g)
			}
			return "", false
		},
	})
	if err != nil {
		return err
	}
	go reporter.Run(ctx)
	if follower != nil {
		go func() {
			if err := follower.Start(ctx); err != nil && ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "Following the desired state of Dynamic features failed")
			}
		}()
	}
	return nil
}

// listeners are functions called, in the order they were added, each time
// notify is; safe for concurrent use.
type listeners struct {
	mu  sync.Mutex
	fns []func()
}

// add adds fn.
func (l *listeners) add(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fns = append(l.fns, fn)
}

// notify calls every function added so far.
func (l *listeners) notify() {
	l.mu.Lock()
	fns := slices.Clone(l.fns)
	l.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
