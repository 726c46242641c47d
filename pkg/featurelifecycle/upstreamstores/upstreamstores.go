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

// Package upstreamstores builds the registry stores of the resources
// kube-apiserver serves with upstream's own REST storage providers (the list
// k8s.io/kubernetes/pkg/controlplane gives kube-apiserver), on any
// RESTOptionsGetter. The gate inventory generator runs their strategies on
// a storage that is never called; the lifecycle's tasks read and rewrite
// stored objects through them on the apiserver's undecorated storage.
package upstreamstores

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
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
	flowcontrolrest "k8s.io/kubernetes/pkg/registry/flowcontrol/rest"
	lifecyclerest "k8s.io/kubernetes/pkg/registry/lifecycle/rest"
	networkingrest "k8s.io/kubernetes/pkg/registry/networking/rest"
	noderest "k8s.io/kubernetes/pkg/registry/node/rest"
	policyrest "k8s.io/kubernetes/pkg/registry/policy/rest"
	clusterrolepolicybased "k8s.io/kubernetes/pkg/registry/rbac/clusterrole/policybased"
	clusterrolebindingpolicybased "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding/policybased"
	rbacrest "k8s.io/kubernetes/pkg/registry/rbac/rest"
	rolepolicybased "k8s.io/kubernetes/pkg/registry/rbac/role/policybased"
	rolebindingpolicybased "k8s.io/kubernetes/pkg/registry/rbac/rolebinding/policybased"
	resourcerest "k8s.io/kubernetes/pkg/registry/resource/rest"
	schedulingrest "k8s.io/kubernetes/pkg/registry/scheduling/rest"
	storagerest "k8s.io/kubernetes/pkg/registry/storage/rest"
	svmrest "k8s.io/kubernetes/pkg/registry/storagemigration/rest"
	netutils "k8s.io/utils/net"
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

// Resource is one resource kube-apiserver serves with a registry store.
type Resource struct {
	schema.GroupResource
	// Version is the first version, in the group's priority order, that
	// serves the resource.
	Version schema.GroupVersion
	// Store is the resource's registry store (of Version's storage).
	Store *genericregistry.Store
	// Status is the REST storage of the resource's status subresource
	// (<resource>/status) in Version, which writes status through the
	// resource's status strategy, or nil when it has none. Built on a
	// DeferredGetter, it is opened with Store.
	Status rest.Updater
}

// NoStore is a resource kube-apiserver serves without a registry store (a
// review, a proxy, a virtual resource): it has no strategy to run and no
// objects to rewrite.
type NoStore struct {
	schema.GroupResource
	// Storage is the Go type of its REST storage.
	Storage string
}

// Provider is a REST storage provider, as kube-apiserver's control plane
// installs them (k8s.io/kubernetes/pkg/controlplane/apiserver.RESTStorageProvider,
// which this package does not import: the control plane installs the
// feature lifecycle).
type Provider interface {
	GroupName() string
	NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error)
}

// Providers returns upstream's REST storage providers as kube-apiserver
// lists them (k8s.io/kubernetes/pkg/controlplane.CompletedConfig.StorageProviders).
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
	return []Provider{
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
	}, nil
}

// coreProvider builds the core group's storage: upstream's generic core
// provider (configmaps, events, namespaces, resourcequotas, secrets,
// serviceaccounts) and then the rest of the legacy provider's resources
// (k8s.io/kubernetes/pkg/registry/core/rest.legacyProvider.NewRESTStorage)
// with the same constructors; services only if asked, with in-memory
// allocators. Their strategies are upstream's.
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
	s["pods"], s["pods/status"] = pods.Pod, pods.Status
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
// enabled, on getter, and returns each resource's registry store (from the
// first version, in the group's priority order, serving it) and the
// resources served without one, each sorted. Of the subresources, only a
// resource's status is kept (Resource.Status): the other subresources'
// strategies write no field of their own. With cfg.Gated, the resources the
// provider builds only while their feature gate is on are built whatever
// the gate (see gatedStores).
func Build(p Provider, getter generic.RESTOptionsGetter, cfg Config) ([]Resource, []NoStore, error) {
	info, err := p.NewRESTStorage(AllResources{}, getter)
	if err != nil {
		return nil, nil, fmt.Errorf("building the storage of group %q: %w", p.GroupName(), err)
	}
	versions := info.PrioritizedVersions
	if len(versions) == 0 {
		versions = legacyscheme.Scheme.PrioritizedVersionsForGroup(p.GroupName())
	}
	var (
		out     []Resource
		without []NoStore
		seen    = map[schema.GroupResource]bool{}
	)
	for _, gv := range versions {
		storages := info.VersionedResourcesStorageMap[gv.Version]
		for _, name := range slices.Sorted(maps.Keys(storages)) {
			if strings.Contains(name, "/") {
				continue
			}
			gr := schema.GroupResource{Group: gv.Group, Resource: name}
			if seen[gr] {
				continue
			}
			seen[gr] = true
			store := RegistryStore(storages[name])
			if store == nil || store.CreateStrategy == nil {
				without = append(without, NoStore{GroupResource: gr, Storage: fmt.Sprintf("%T", storages[name])})
				continue
			}
			status, _ := storages[name+"/status"].(rest.Updater)
			out = append(out, Resource{GroupResource: gr, Version: gv, Store: store, Status: status})
		}
	}
	// The resources the provider leaves out while their gate is off.
	for _, gr := range slices.SortedFunc(maps.Keys(gatedStores), func(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) }) {
		if !cfg.Gated || gr.Group != p.GroupName() || seen[gr] {
			continue
		}
		g := gatedStores[gr]
		s, err := g.build(getter, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("building the storage of %s: %w", gr.String(), err)
		}
		out = append(out, Resource{GroupResource: gr, Version: g.version, Store: RegistryStore(s)})
	}
	slices.SortFunc(out, func(a, b Resource) int { return cmp.Compare(a.String(), b.String()) })
	slices.SortFunc(without, func(a, b NoStore) int { return cmp.Compare(a.String(), b.String()) })
	return out, without, nil
}

// BuildAll builds the storage of every provider (see Build).
func BuildAll(providers []Provider, getter generic.RESTOptionsGetter, cfg Config) ([]Resource, []NoStore, error) {
	var (
		out     []Resource
		without []NoStore
	)
	for _, p := range providers {
		rs, ws, err := Build(p, getter, cfg)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rs...)
		without = append(without, ws...)
	}
	slices.SortFunc(out, func(a, b Resource) int { return cmp.Compare(a.String(), b.String()) })
	slices.SortFunc(without, func(a, b NoStore) int { return cmp.Compare(a.String(), b.String()) })
	return out, without, nil
}

// RegistryStore returns the registry store a REST storage is backed by
// (genericregistry.StoreAccessor), or nil: reviews, proxies and virtual
// resources have none.
func RegistryStore(s rest.Storage) *genericregistry.Store {
	switch s := s.(type) {
	case genericregistry.StoreAccessor:
		return s.RegistryStore()
	// RBAC's storage checks escalation in front of the resource's store.
	case *clusterrolepolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	case *clusterrolebindingpolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	case *rolepolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	case *rolebindingpolicybased.Storage:
		return RegistryStore(s.StandardStorage)
	}
	return nil
}
