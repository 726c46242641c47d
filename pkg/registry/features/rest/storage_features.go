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

// Package rest wires the features.k8s.io storage into kube-apiserver.
package rest

import (
	"context"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	reportinggate "k8s.io/features/featuregate"

	"k8s.io/featureflags/pkg/apis/features"
	"k8s.io/featureflags/pkg/featurelifecycle"
	"k8s.io/featureflags/pkg/featurelifecycle/componentgate"
	"k8s.io/featureflags/pkg/featurelifecycle/leader"
	"k8s.io/featureflags/pkg/featurelifecycle/tasks"
	featurestorage "k8s.io/featureflags/pkg/registry/features/feature/storage"
	reportstorage "k8s.io/featureflags/pkg/registry/features/featurereport/storage"
)

// PostStartHookName is the name of the post-start hook that starts the
// server flow of the feature lifecycle.
const PostStartHookName = "start-feature-lifecycle"

// RESTStorageProvider provides the storage of the features.k8s.io group. It
// satisfies k8s.io/kubernetes/pkg/controlplane/apiserver.RESTStorageProvider
// and, because kube-apiserver runs the hook only when the group is served,
// genericapiserver.PostStartHookProvider.
type RESTStorageProvider struct {
	// FeatureGate is the gate set the apiserver runs with; its gates are announced.
	FeatureGate featuregate.MutableVersionedFeatureGate
	// Identity is the apiserver's identity lease name, under which it reports
	// its uses of gates.
	Identity string
	// ReporterOptions tune the reporting of uses.
	ReporterOptions reportinggate.ReporterOptions
	// ControllerOptions tune the lifecycle controller.
	ControllerOptions featurelifecycle.ControllerOptions
	// TaskEnv is what the lifecycle tasks may use (storage for migrations).
	TaskEnv tasks.Env
}

// GroupName returns features.k8s.io.
func (RESTStorageProvider) GroupName() string { return features.GroupName }

// NewRESTStorage returns the group's storage for the enabled versions and resources.
func (p RESTStorageProvider) NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	apiGroupInfo := genericapiserver.NewDefaultAPIGroupInfo(features.GroupName, legacyscheme.Scheme, legacyscheme.ParameterCodec, legacyscheme.Codecs)

	storage := map[string]rest.Storage{}
	if resource := "features"; apiResourceConfigSource.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource(resource)) {
		featureStorage, statusStorage, err := featurestorage.NewREST(restOptionsGetter)
		if err != nil {
			return genericapiserver.APIGroupInfo{}, err
		}
		storage[resource] = featureStorage
		storage[resource+"/status"] = statusStorage
	}
	if resource := "featurereports"; apiResourceConfigSource.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource(resource)) {
		reportStorage, err := reportstorage.NewREST(restOptionsGetter)
		if err != nil {
			return genericapiserver.APIGroupInfo{}, err
		}
		storage[resource] = reportStorage
	}
	if len(storage) > 0 {
		apiGroupInfo.VersionedResourcesStorageMap[featuresv1alpha1.SchemeGroupVersion.Version] = storage
	}
	return apiGroupInfo, nil
}

// PostStartHook announces a Feature in kube-system for every gate of the
// apiserver, ensures the reporters' RBAC, reports the apiserver's value of
// every gate under its identity (when the gate set is a reporting gate), and
// runs the lifecycle controller. All run in the background: the hook returns
// at once and they retry until the server stops.
func (p RESTStorageProvider) PostStartHook() (string, genericapiserver.PostStartHookFunc, error) {
	return PostStartHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		client, err := featuresclient.NewForConfig(hookContext.LoopbackClientConfig)
		if err != nil {
			return err
		}
		announcer := &featurelifecycle.Announcer{
			Client:    client,
			Gate:      p.FeatureGate,
			Namespace: featurelifecycle.KubeNamespace,
			Workers:   8,
		}
		kubeClient, err := kubernetes.NewForConfig(hookContext.LoopbackClientConfig)
		if err != nil {
			return err
		}
		// Components may read Features and report their uses through
		// /status; holders of view, edit and admin may read Features.
		go func(ctx context.Context) {
			_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
				if err := EnsureReporterRBAC(ctx, kubeClient); err != nil {
					klog.ErrorS(err, "Ensuring the feature reporter RBAC failed, will retry")
					return false, nil
				}
				if err := EnsureViewerClusterRole(ctx, kubeClient); err != nil {
					klog.ErrorS(err, "Ensuring the Feature viewer ClusterRole failed, will retry")
					return false, nil
				}
				return true, nil
			})
		}(hookContext)
		go func(ctx context.Context) {
			if err := announcer.Run(ctx); err != nil && ctx.Err() == nil {
				klog.ErrorS(err, "Announcing features failed")
			}
		}(hookContext)
		if gate, ok := p.FeatureGate.(*reportinggate.Gate); ok && p.Identity != "" {
			// The report says which gates this apiserver's flags opt into
			// Central and Dynamic (the flags were validated at start), and
			// the apiserver applies the desired state of its Dynamic gates
			// while it runs.
			modes, err := p.ControllerOptions.OptIns(nil)
			if err != nil {
				return err
			}
			gate.OptIn(modes)
			if len(p.ControllerOptions.DynamicGates) > 0 {
				dynamic := map[featuregate.Feature]bool{}
				for _, g := range p.ControllerOptions.DynamicGates {
					dynamic[featuregate.Feature(g)] = true
				}
				go func(ctx context.Context) {
					err := gate.Follow(ctx, client, reportinggate.FollowOptions{
						Namespace: featurelifecycle.KubeNamespace,
						Modes:     []featuresv1alpha1.FeatureManagement{featuresv1alpha1.FeatureManagementDynamic},
						Gates:     dynamic,
						// --feature-gates gives the first value.
						OverrideConfigured: true,
					})
					if err != nil && ctx.Err() == nil {
						klog.ErrorS(err, "Following the desired state of Dynamic features failed")
					}
				}(hookContext)
			}
			opts := p.ReporterOptions
			if opts.HolderLease == nil {
				// The apiserver's identity lease says it is alive.
				opts.HolderLease = &featuresv1alpha1.FeatureReportLease{Namespace: leader.IdentityLeaseNamespace, Name: p.Identity}
			}
			// The version the reported values hold for: the leaders
			// describe Features at the lowest one among live apiservers.
			opts.Annotations = maps.Clone(opts.Annotations)
			if opts.Annotations == nil {
				opts.Annotations = map[string]string{}
			}
			opts.Annotations[featuresv1alpha1.EmulationVersionAnnotation] = featurelifecycle.VersionOf(p.FeatureGate)
			componentgate.StartInBackground(hookContext, gate, hookContext.LoopbackClientConfig, p.Identity, opts)
		}
		if d, ok := p.TaskEnv.Stores.(interface{ Destroy() }); ok {
			// The tasks' stores hold etcd clients of their own.
			go func(ctx context.Context) {
				<-ctx.Done()
				d.Destroy()
			}(hookContext)
		}
		if p.Identity != "" {
			controller, err := featurelifecycle.NewController(p.Identity, p.FeatureGate, client, kubeClient, p.TaskEnv, p.ControllerOptions)
			if err != nil {
				return err
			}
			go controller.Run(hookContext)
		}
		return nil
	}, nil
}
