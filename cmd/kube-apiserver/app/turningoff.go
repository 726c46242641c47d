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

package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	upstreamapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/controlplane"

	featuresclient "k8s.io/features/client/clientset/versioned"

	"k8s.io/featureflags/pkg/featurelifecycle"
	"k8s.io/featureflags/pkg/featurelifecycle/migrator"
	"k8s.io/featureflags/pkg/featurelifecycle/turningoffapi"
	"k8s.io/featureflags/pkg/featurelifecycle/upstreamstores"
	"k8s.io/featureflags/pkg/features/inventory"
)

// serveWhileTurningOff puts in front of kube-apiserver's director the
// handler that serves, read and delete only, the resources upstream serves
// only while a gate is on (the inventory's resourcesServedOnlyWith) and
// this apiserver does not serve, while that gate's Feature is TurningOff.
// The aggregator, whose handler chain authenticates, audits and authorizes
// every request, hands kube-apiserver's requests to the director, so the
// resources get the same chain as any other. The resources' stores are the
// lifecycle tasks' (the resource's own registry store on the apiserver's
// storage, without a watch cache).
func serveWhileTurningOff(config upstreamapp.CompletedConfig, kube *controlplane.Instance, stores *migrator.RegistryStores) error {
	inv, err := inventory.Load()
	if err != nil {
		return err
	}
	generic := config.KubeAPIs.ControlPlane.Generic
	server := kube.ControlPlane.GenericAPIServer
	known := utilfeature.DefaultMutableFeatureGate.GetAll()

	// The group-versions and resources upstream serves now, from its
	// container's routes.
	upstreamGV := map[schema.GroupVersion]bool{}
	upstreamRoutes := map[string]bool{}
	for _, ws := range server.Handler.GoRestfulContainer.RegisteredWebServices() {
		if gv, ok := groupVersionOfRoot(ws.RootPath()); ok {
			upstreamGV[gv] = true
		}
		for _, r := range ws.Routes() {
			upstreamRoutes[r.Path] = true
		}
	}
	servedByUpstream := func(gvr schema.GroupVersionResource) bool {
		prefix := "/apis/" + gvr.Group + "/" + gvr.Version
		return upstreamRoutes[prefix+"/"+gvr.Resource] || upstreamRoutes[prefix+"/namespaces/{namespace}/"+gvr.Resource]
	}

	gates := map[schema.GroupResource][]string{}
	for _, gate := range slices.Sorted(maps.Keys(inv.ResourcesServedOnlyWith)) {
		if _, ok := known[featuregate.Feature(gate)]; !ok {
			continue
		}
		for _, gr := range inv.ServedOnlyWith(gate) {
			gates[gr] = append(gates[gr], gate)
		}
	}
	// The stores' types, names and tables come from stores built on no
	// storage; the stores the requests use are the tasks', opened (an
	// etcd client each) when a request first needs one.
	metaStores := &noStorageStores{}
	var resources []turningoffapi.Resource
	for _, gr := range slices.SortedFunc(maps.Keys(gates), func(a, b schema.GroupResource) int { return strings.Compare(a.String(), b.String()) }) {
		gv, err := inv.Version(gr)
		if err != nil {
			return err
		}
		gvr := gv.WithResource(gr.Resource)
		if servedByUpstream(gvr) {
			continue
		}
		if !generic.MergedResourceConfig.ResourceEnabled(gvr) {
			klog.V(2).InfoS("Not serving a resource while its Feature turns off: disabled by --runtime-config", "resource", gvr.String())
			continue
		}
		meta, err := metaStores.store(gr)
		if err != nil {
			return err
		}
		open := func() (*genericregistry.Store, error) {
			s, err := stores.Store(gr)
			if err != nil {
				return nil, err
			}
			store, ok := s.(*genericregistry.Store)
			if !ok {
				return nil, fmt.Errorf("the store of %s is a %T, not a registry store", gr.String(), s)
			}
			return store, nil
		}
		resources = append(resources, turningoffapi.Resource{GroupVersionResource: gvr, Gates: gates[gr], Storage: turningoffapi.NewLazyReadDelete(meta, open)})
	}
	if len(resources) == 0 {
		return nil
	}

	info := genericapiserver.NewDefaultAPIGroupInfo("", legacyscheme.Scheme, legacyscheme.ParameterCodec, legacyscheme.Codecs)
	priorities := map[schema.GroupVersion]turningoffapi.Priority{}
	for gv, p := range APIVersionPriorities() {
		priorities[gv] = turningoffapi.Priority{Group: int(p.Group), Version: int(p.Version)}
	}
	handler, err := turningoffapi.New(turningoffapi.Config{
		Resources: resources,
		// What the generic apiserver gives its own group-versions.
		Template: endpoints.APIGroupVersion{
			MetaGroupVersion:           info.MetaGroupVersion,
			ParameterCodec:             info.ParameterCodec,
			Serializer:                 info.NegotiatedSerializer,
			Creater:                    info.Scheme,
			Convertor:                  info.Scheme,
			ConvertabilityChecker:      info.Scheme,
			UnsafeConvertor:            runtime.UnsafeObjectConvertor(info.Scheme),
			Defaulter:                  info.Scheme,
			Typer:                      info.Scheme,
			Namer:                      runtime.Namer(meta.NewAccessor()),
			EquivalentResourceRegistry: generic.EquivalentResourceRegistry,
			Admit:                      generic.AdmissionControl,
			MinRequestTimeout:          time.Duration(generic.MinRequestTimeout) * time.Second,
			Authorizer:                 generic.Authorization.Authorizer,
			MaxRequestBodyBytes:        generic.MaxRequestBodyBytes,
		},
		Delegate:   server.Handler.Director,
		Upstream:   func(gv schema.GroupVersion) bool { return upstreamGV[gv] },
		Discovery:  server.AggregatedDiscoveryGroupManager,
		Priorities: priorities,
		Namespace:  featurelifecycle.KubeNamespace,
	})
	if err != nil {
		return fmt.Errorf("serving resources while their Feature turns off: %w", err)
	}
	// The aggregator, built next, delegates to the director.
	server.Handler.Director = handler
	for _, r := range resources {
		klog.V(2).InfoS("Resource served while its Feature turns off", "resource", r.GroupVersionResource.String(), "gates", r.Gates)
	}
	return server.AddPostStartHook("start-feature-lifecycle-turning-off-api", func(ctx genericapiserver.PostStartHookContext) error {
		client, err := featuresclient.NewForConfig(ctx.LoopbackClientConfig)
		if err != nil {
			return err
		}
		return turningoffapi.Start(ctx, handler, client, featurelifecycle.KubeNamespace)
	})
}

// groupVersionOfRoot returns the group-version of a web service root
// (/apis/<group>/<version> or /api/<version>).
func groupVersionOfRoot(root string) (schema.GroupVersion, bool) {
	parts := strings.Split(strings.Trim(root, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "apis":
		return schema.GroupVersion{Group: parts[1], Version: parts[2]}, true
	case len(parts) == 2 && parts[0] == "api":
		return schema.GroupVersion{Version: parts[1]}, true
	}
	return schema.GroupVersion{}, false
}

// noStorageStores builds, a group at a time, the registry stores of
// upstream's providers on no storage (upstreamstores.NoStorage), the
// resources served only with a gate included.
type noStorageStores struct {
	groups map[string]map[schema.GroupResource]*genericregistry.Store
}

func (n *noStorageStores) store(gr schema.GroupResource) (*genericregistry.Store, error) {
	if n.groups == nil {
		n.groups = map[string]map[schema.GroupResource]*genericregistry.Store{}
	}
	if _, ok := n.groups[gr.Group]; !ok {
		cfg := upstreamstores.Config{Gated: true}
		providers, err := upstreamstores.Providers(cfg)
		if err != nil {
			return nil, err
		}
		g := map[schema.GroupResource]*genericregistry.Store{}
		for _, p := range providers {
			if p.GroupName() != gr.Group {
				continue
			}
			rs, _, err := upstreamstores.Build(p, upstreamstores.NoStorage{}, cfg)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				g[r.GroupResource] = r.Store
			}
		}
		n.groups[gr.Group] = g
	}
	s, ok := n.groups[gr.Group][gr]
	if !ok {
		return nil, fmt.Errorf("no REST storage provider builds %s", gr.String())
	}
	return s, nil
}
