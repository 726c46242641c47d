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

// Package standalone builds the store catalog (the parent package) of
// kube-apiserver's resources without a kube-apiserver: with upstream's own
// REST storage providers, listed as k8s.io/kubernetes/pkg/controlplane lists
// them, on any RESTOptionsGetter. It serves processes that run no
// kube-apiserver: the generators of the lifecycle data (the gate inventory
// runs upstream's strategies on a storage that is never called), unit tests
// and their etcd-backed stores. kube-apiserver's server flow never uses it:
// its catalog holds the stores kube-apiserver installed.
// TestStandaloneCatalogIsKubeAPIServers (test/integration/features/stores)
// fails when this list and what a kube-apiserver installs differ.
package standalone

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/features"
	kubeletclient "k8s.io/kubernetes/pkg/kubelet/client"
	admissionregistrationrest "k8s.io/kubernetes/pkg/registry/admissionregistration/rest"
	apiserverinternalrest "k8s.io/kubernetes/pkg/registry/apiserverinternal/rest"
	appsrest "k8s.io/kubernetes/pkg/registry/apps/rest"
	authenticationrest "k8s.io/kubernetes/pkg/registry/authentication/rest"
	authorizationrest "k8s.io/kubernetes/pkg/registry/authorization/rest"
	autoscalingrest "k8s.io/kubernetes/pkg/registry/autoscaling/rest"
	batchrest "k8s.io/kubernetes/pkg/registry/batch/rest"
	certificatesrest "k8s.io/kubernetes/pkg/registry/certificates/rest"
	coordinationrest "k8s.io/kubernetes/pkg/registry/coordination/rest"
	"k8s.io/kubernetes/pkg/registry/core/componentstatus"
	endpointsstore "k8s.io/kubernetes/pkg/registry/core/endpoint/storage"
	limitrangestore "k8s.io/kubernetes/pkg/registry/core/limitrange/storage"
	nodestore "k8s.io/kubernetes/pkg/registry/core/node/storage"
	pvstore "k8s.io/kubernetes/pkg/registry/core/persistentvolume/storage"
	pvcstore "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim/storage"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod/storage"
	podtemplatestore "k8s.io/kubernetes/pkg/registry/core/podtemplate/storage"
	controllerstore "k8s.io/kubernetes/pkg/registry/core/replicationcontroller/storage"
	corerest "k8s.io/kubernetes/pkg/registry/core/rest"
	"k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	"k8s.io/kubernetes/pkg/registry/core/service/portallocator"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service/storage"
	discoveryrest "k8s.io/kubernetes/pkg/registry/discovery/rest"
	eventsrest "k8s.io/kubernetes/pkg/registry/events/rest"
	featuresrest "k8s.io/kubernetes/pkg/registry/features/rest"
	flowcontrolrest "k8s.io/kubernetes/pkg/registry/flowcontrol/rest"
	lifecyclerest "k8s.io/kubernetes/pkg/registry/lifecycle/rest"
	networkingrest "k8s.io/kubernetes/pkg/registry/networking/rest"
	noderest "k8s.io/kubernetes/pkg/registry/node/rest"
	policyrest "k8s.io/kubernetes/pkg/registry/policy/rest"
	rbacrest "k8s.io/kubernetes/pkg/registry/rbac/rest"
	resourcerest "k8s.io/kubernetes/pkg/registry/resource/rest"
	schedulingrest "k8s.io/kubernetes/pkg/registry/scheduling/rest"
	storagerest "k8s.io/kubernetes/pkg/registry/storage/rest"
	svmrest "k8s.io/kubernetes/pkg/registry/storagemigration/rest"
	netutils "k8s.io/utils/net"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// Config is what upstream's REST storage providers need besides storage.
// Building storage calls none of it; some strategies use it when they
// validate a write (resource claims look up their namespace, CSRs and RBAC
// objects ask the authorizer).
type Config struct {
	// Loopback is the client configuration of the providers' clients; nil
	// points them at an address where nothing listens.
	Loopback *restclient.Config
	// Authorizer is the providers' authorizer; nil denies everything.
	Authorizer authorizer.Authorizer
	// Services, when true, also builds the services store, with in-memory
	// IP and port allocators. A write through it would allocate from those,
	// not from the cluster's: only for running strategies on objects that
	// are never stored (the gate inventory).
	Services bool
	// Gated, when true, makes Build also build the resources upstream's
	// providers build only while their feature gate is on, whatever the
	// gate (see gatedStores).
	Gated bool
}

// Provider is a REST storage provider, as kube-apiserver's control plane
// installs them (k8s.io/kubernetes/pkg/controlplane/apiserver.RESTStorageProvider,
// which this package does not import: the control plane installs the
// feature lifecycle, whose tests use this package).
type Provider interface {
	GroupName() string
	NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error)
}

// Providers returns upstream's REST storage providers as kube-apiserver
// lists them (k8s.io/kubernetes/pkg/controlplane.CompletedConfig.StorageProviders),
// with features.k8s.io's while the process's FeatureLifecycle gate is on.
// The core group's legacy provider needs service IP and node port
// allocators on etcd to be built, so it is replaced by one that builds the
// same resources with the same constructors, except services unless
// cfg.Services (see Config).
func Providers(cfg Config) ([]Provider, error) {
	loopback := cfg.Loopback
	if loopback == nil {
		// Nothing listens there; nothing is sent.
		loopback = &restclient.Config{Host: "http://127.0.0.1:1"}
	}
	authz := cfg.Authorizer
	if authz == nil {
		authz = authorizerfactory.NewAlwaysDenyAuthorizer()
	}
	resolver, ok := authz.(authorizer.RuleResolver)
	if !ok {
		resolver = authorizerfactory.NewAlwaysDenyAuthorizer()
	}
	client, err := kubernetes.NewForConfig(loopback)
	if err != nil {
		return nil, err
	}
	// Never started: only the providers' post-start hooks use it.
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	providers := []Provider{
		coreProvider{GenericConfig: corerest.GenericConfig{LoopbackClientConfig: loopback, Informers: informerFactory}, services: cfg.Services},
		apiserverinternalrest.StorageProvider{},
		authenticationrest.RESTStorageProvider{},
		authorizationrest.RESTStorageProvider{Authorizer: authz, RuleResolver: resolver},
		autoscalingrest.RESTStorageProvider{},
		batchrest.RESTStorageProvider{},
		certificatesrest.RESTStorageProvider{Authorizer: authz},
		coordinationrest.RESTStorageProvider{},
		discoveryrest.StorageProvider{},
		lifecyclerest.RESTStorageProvider{},
		networkingrest.RESTStorageProvider{},
		noderest.RESTStorageProvider{},
		policyrest.RESTStorageProvider{},
		rbacrest.RESTStorageProvider{Authorizer: authz},
		schedulingrest.RESTStorageProvider{},
		storagerest.RESTStorageProvider{},
		svmrest.RESTStorageProvider{},
		flowcontrolrest.RESTStorageProvider{InformerFactory: informerFactory},
		appsrest.StorageProvider{},
		admissionregistrationrest.RESTStorageProvider{Authorizer: authz, DiscoveryClient: client.Discovery()},
		eventsrest.RESTStorageProvider{},
		resourcerest.RESTStorageProvider{NamespaceClient: client.CoreV1().Namespaces(), Authorizer: authz},
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.FeatureLifecycle) {
		providers = append(providers, featuresrest.RESTStorageProvider{})
	}
	return providers, nil
}

// coreProvider builds the core group's storage: upstream's generic core
// provider (configmaps, events, namespaces, resourcequotas, secrets,
// serviceaccounts) and then the rest of the legacy provider's resources
// (k8s.io/kubernetes/pkg/registry/core/rest.legacyProvider.NewRESTStorage)
// with the same constructors; services only if asked, with in-memory
// allocators; component statuses with no server to ask. Their strategies
// are upstream's.
type coreProvider struct {
	corerest.GenericConfig
	services bool
}

// NewRESTStorage returns the core group's storage.
func (p coreProvider) NewRESTStorage(source serverstorage.APIResourceConfigSource, getter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, err := p.GenericConfig.NewRESTStorage(source, getter)
	if err != nil {
		return info, err
	}
	s := info.VersionedResourcesStorageMap["v1"]
	if s == nil {
		s = map[string]rest.Storage{}
		info.VersionedResourcesStorageMap["v1"] = s
	}
	if s["podtemplates"], err = podtemplatestore.NewREST(getter); err != nil {
		return info, err
	}
	if s["limitranges"], err = limitrangestore.NewREST(getter); err != nil {
		return info, err
	}
	if s["persistentvolumes"], s["persistentvolumes/status"], err = pvstore.NewREST(getter); err != nil {
		return info, err
	}
	if s["persistentvolumeclaims"], s["persistentvolumeclaims/status"], err = pvcstore.NewREST(getter); err != nil {
		return info, err
	}
	if s["endpoints"], err = endpointsstore.NewREST(getter); err != nil {
		return info, err
	}
	nodes, err := nodestore.NewStorage(getter, kubeletclient.KubeletClientConfig{}, nil)
	if err != nil {
		return info, err
	}
	s["nodes"], s["nodes/status"] = nodes.Node, nodes.Status
	// No proxy transport, PodDisruptionBudget client or authorizer: list
	// and update do not use them.
	pods, err := podstore.NewStorage(getter, nodes.KubeletConnectionInfo, nil, nil, nil)
	if err != nil {
		return info, err
	}
	s["pods"], s["pods/status"], s["bindings"] = pods.Pod, pods.Status, pods.LegacyBinding
	// No servers to ask: nothing here asks them.
	s["componentstatuses"] = componentstatus.NewStorage(func() map[string]componentstatus.Server { return nil })
	rcs, err := controllerstore.NewStorage(getter)
	if err != nil {
		return info, err
	}
	s["replicationcontrollers"], s["replicationcontrollers/status"] = rcs.Controller, rcs.Status
	if !p.services {
		return info, nil
	}
	_, cidr, _ := netutils.ParseCIDRSloppy("10.0.0.0/16")
	ips, err := ipallocator.NewInMemory(cidr)
	if err != nil {
		return info, err
	}
	ports, err := portallocator.NewInMemory(utilnet.PortRange{Base: 30000, Size: 2768})
	if err != nil {
		return info, err
	}
	services, servicesStatus, _, err := servicestore.NewREST(getter, api.IPv4Protocol, map[api.IPFamily]ipallocator.Interface{api.IPv4Protocol: ips}, ports, nil, pods.Pod, nil)
	if err != nil {
		return info, err
	}
	s["services"], s["services/status"] = services, servicesStatus
	return info, nil
}

// GroupName returns the core group's name, "".
func (p coreProvider) GroupName() string { return api.GroupName }

// AllResources enables every resource of every version.
type AllResources struct{}

// ResourceEnabled returns true.
func (AllResources) ResourceEnabled(schema.GroupVersionResource) bool { return true }

// AnyResourceForGroupEnabled returns true.
func (AllResources) AnyResourceForGroupEnabled(string) bool { return true }

// ResourceExplicitlyEnabled returns true.
func (AllResources) ResourceExplicitlyEnabled(schema.GroupVersionResource) bool { return true }

// VersionExplicitlyEnabled returns true.
func (AllResources) VersionExplicitlyEnabled(schema.GroupVersion) bool { return true }

var _ serverstorage.APIResourceConfigSource = AllResources{}

// Build builds provider's storage, with every resource of every version
// enabled, on getter, and adds it to catalog (storecatalog.Catalog.Add:
// each resource's registry store, from the first version, in the group's
// priority order, serving it, and its status subresource). With
// cfg.Gated, the resources the provider builds only while their feature
// gate is on are built whatever the gate (see gatedStores).
func Build(catalog *storecatalog.Catalog, p Provider, getter generic.RESTOptionsGetter, cfg Config) error {
	info, err := p.NewRESTStorage(AllResources{}, getter)
	if err != nil {
		return fmt.Errorf("building the storage of group %q: %w", p.GroupName(), err)
	}
	if len(info.PrioritizedVersions) == 0 {
		info.PrioritizedVersions = legacyscheme.Scheme.PrioritizedVersionsForGroup(p.GroupName())
	}
	// The resources the provider leaves out while their gate is off.
	for _, gr := range slices.SortedFunc(maps.Keys(gatedStores), func(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) }) {
		g := gatedStores[gr]
		if !cfg.Gated || gr.Group != p.GroupName() || served(info, gr) {
			continue
		}
		s, err := g.build(getter, cfg)
		if err != nil {
			return fmt.Errorf("building the storage of %s: %w", gr.String(), err)
		}
		if info.VersionedResourcesStorageMap == nil {
			info.VersionedResourcesStorageMap = map[string]map[string]rest.Storage{}
		}
		if info.VersionedResourcesStorageMap[g.version.Version] == nil {
			info.VersionedResourcesStorageMap[g.version.Version] = map[string]rest.Storage{}
		}
		info.VersionedResourcesStorageMap[g.version.Version][gr.Resource] = s
	}
	return catalog.Add(&info)
}

// served reports whether info serves gr in any version.
func served(info genericapiserver.APIGroupInfo, gr schema.GroupResource) bool {
	for _, storages := range info.VersionedResourcesStorageMap {
		if _, ok := storages[gr.Resource]; ok {
			return true
		}
	}
	return false
}

// BuildAll builds the storage of every provider (see Build) into a new
// catalog.
func BuildAll(providers []Provider, getter generic.RESTOptionsGetter, cfg Config) (*storecatalog.Catalog, error) {
	catalog := storecatalog.New()
	for _, p := range providers {
		if err := Build(catalog, p, getter, cfg); err != nil {
			return nil, err
		}
	}
	return catalog, nil
}

// Catalog returns, built once, the catalog of every resource kube-apiserver
// serves with a registry store (services and the resources served only
// with a gate included), each store built on no storage: for what the
// stores say about their resources (their types, strategies, status
// subresources) in processes without a kube-apiserver.
var Catalog = sync.OnceValues(func() (*storecatalog.Catalog, error) {
	cfg := Config{Services: true, Gated: true}
	ps, err := Providers(cfg)
	if err != nil {
		return nil, err
	}
	return BuildAll(ps, NoStorage{}, cfg)
})
