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

package main

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
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
	rbacrest "k8s.io/kubernetes/pkg/registry/rbac/rest"
	resourcerest "k8s.io/kubernetes/pkg/registry/resource/rest"
	schedulingrest "k8s.io/kubernetes/pkg/registry/scheduling/rest"
	storagerest "k8s.io/kubernetes/pkg/registry/storage/rest"
	svmrest "k8s.io/kubernetes/pkg/registry/storagemigration/rest"
)

// resource is one resource kube-apiserver serves with a registry store.
type resource struct {
	gr schema.GroupResource
	// version is the first version, in the group's priority order, that
	// serves the resource: objects are compared in it.
	version schema.GroupVersion
	store   *genericregistry.Store
}

// noStore is a resource kube-apiserver serves without a registry store (a
// review, a proxy, a virtual resource): there is no strategy to run.
type noStore struct {
	gr      schema.GroupResource
	storage string
}

// allResources enables every resource of every version.
type allResources struct{}

func (allResources) ResourceEnabled(schema.GroupVersionResource) bool           { return true }
func (allResources) AnyResourceForGroupEnabled(string) bool                     { return true }
func (allResources) ResourceExplicitlyEnabled(schema.GroupVersionResource) bool { return true }
func (allResources) VersionExplicitlyEnabled(schema.GroupVersion) bool          { return true }

var _ serverstorage.APIResourceConfigSource = allResources{}

// noStorage is a RESTOptionsGetter whose storage is never used: building a
// registry store and running its strategy's PrepareForCreate need none. Any
// call to the storage panics.
type noStorage struct{}

// GetRESTOptions returns options with a storage that must not be called.
func (noStorage) GetRESTOptions(gr schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{
		StorageConfig:  &storagebackend.ConfigForResource{GroupResource: gr},
		Decorator:      unusedStorage,
		ResourcePrefix: "/" + gr.String(),
	}, nil
}

// unusedStorage is a storage.Interface that panics when used.
type unusedStorageInterface struct{ storage.Interface }

func unusedStorage(*storagebackend.ConfigForResource, string, func(runtime.Object) (string, error), func() runtime.Object, func() runtime.Object, storage.AttrFunc, storage.IndexerFuncs, *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	return unusedStorageInterface{}, func() {}, nil
}

// providers returns upstream's REST storage providers as kube-apiserver
// lists them (k8s.io/kubernetes/pkg/controlplane.CompletedConfig.StorageProviders),
// with clients that point nowhere (building storage does not call them) and
// an allow-all authorizer. The core group's legacy provider needs service IP
// and node port allocators on etcd to be built, so it is replaced by
// coreProvider.
func providers() ([]controlplaneapiserver.RESTStorageProvider, error) {
	// Nothing listens there; nothing is sent.
	loopback := &restclient.Config{Host: "http://127.0.0.1:1"}
	client, err := kubernetes.NewForConfig(loopback)
	if err != nil {
		return nil, err
	}
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	authz := authorizerfactory.NewAlwaysAllowAuthorizer()
	return []controlplaneapiserver.RESTStorageProvider{
		coreProvider{GenericConfig: corerest.GenericConfig{LoopbackClientConfig: loopback, Informers: informerFactory}},
		apiserverinternalrest.StorageProvider{},
		authenticationrest.RESTStorageProvider{},
		authorizationrest.RESTStorageProvider{Authorizer: authz, RuleResolver: authz},
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
// with the same constructors, services with in-memory allocators instead of
// allocators on etcd. Their strategies are upstream's.
type coreProvider struct {
	corerest.GenericConfig
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
	if s["persistentvolumes"], _, err = pvstore.NewREST(getter); err != nil {
		return info, err
	}
	if s["persistentvolumeclaims"], _, err = pvcstore.NewREST(getter); err != nil {
		return info, err
	}
	if s["endpoints"], err = endpointsstore.NewREST(getter); err != nil {
		return info, err
	}
	nodes, err := nodestore.NewStorage(getter, kubeletclient.KubeletClientConfig{}, nil)
	if err != nil {
		return info, err
	}
	s["nodes"] = nodes.Node
	pods, err := podstore.NewStorage(getter, nodes.KubeletConnectionInfo, nil, nil, nil)
	if err != nil {
		return info, err
	}
	s["pods"] = pods.Pod
	rcs, err := controllerstore.NewStorage(getter)
	if err != nil {
		return info, err
	}
	s["replicationcontrollers"] = rcs.Controller
	_, cidr, _ := net.ParseCIDR("10.0.0.0/16")
	ips, err := ipallocator.NewInMemory(cidr)
	if err != nil {
		return info, err
	}
	ports, err := portallocator.NewInMemory(utilnet.PortRange{Base: 30000, Size: 2768})
	if err != nil {
		return info, err
	}
	services, _, _, err := servicestore.NewREST(getter, api.IPv4Protocol, map[api.IPFamily]ipallocator.Interface{api.IPv4Protocol: ips}, ports, nil, pods.Pod, nil)
	if err != nil {
		return info, err
	}
	s["services"] = services
	return info, nil
}

// GroupName returns the core group's name, "".
func (p coreProvider) GroupName() string { return api.GroupName }

// discoverResources builds the storage of every provider, with every
// resource of every version enabled, and returns each resource's registry
// store (from the first version, in the group's priority order, serving
// it) and the resources served without one. Subresources are left out:
// their strategies only update.
func discoverResources() ([]resource, []noStore, error) {
	ps, err := providers()
	if err != nil {
		return nil, nil, err
	}
	var (
		out     []resource
		without []noStore
		seen    = map[schema.GroupResource]bool{}
	)
	for _, p := range ps {
		info, err := p.NewRESTStorage(allResources{}, noStorage{})
		if err != nil {
			return nil, nil, fmt.Errorf("building the storage of group %q: %w", p.GroupName(), err)
		}
		versions := info.PrioritizedVersions
		if len(versions) == 0 {
			versions = legacyscheme.Scheme.PrioritizedVersionsForGroup(p.GroupName())
		}
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
				store := registryStore(storages[name])
				if store == nil || store.CreateStrategy == nil {
					without = append(without, noStore{gr: gr, storage: fmt.Sprintf("%T", storages[name])})
					continue
				}
				out = append(out, resource{gr: gr, version: gv, store: store})
			}
		}
	}
	slices.SortFunc(out, func(a, b resource) int { return cmp.Compare(a.gr.String(), b.gr.String()) })
	slices.SortFunc(without, func(a, b noStore) int { return cmp.Compare(a.gr.String(), b.gr.String()) })
	return out, without, nil
}

var storeType = reflect.TypeOf(&genericregistry.Store{})

// registryStore returns the *genericregistry.Store a REST storage is or
// embeds (as most of upstream's REST types embed it), or else the first
// *genericregistry.Store field it has (namespaces' REST keeps its store in
// an unexported field), or nil.
func registryStore(s rest.Storage) *genericregistry.Store {
	if st, ok := s.(*genericregistry.Store); ok {
		return st
	}
	if st := findStore(reflect.ValueOf(s), 0); st != nil {
		return st
	}
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Type() != storeType || f.IsNil() {
			continue
		}
		// Reading an unexported field: fine in a generator.
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(*genericregistry.Store)
	}
	return nil
}

func findStore(v reflect.Value, depth int) *genericregistry.Store {
	if depth > 3 {
		return nil
	}
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return nil
		}
		if v.Type() == storeType {
			return v.Interface().(*genericregistry.Store)
		}
		v = v.Elem()
	}
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if !t.Field(i).Anonymous || !t.Field(i).IsExported() {
			continue
		}
		if s := findStore(v.Field(i), depth+1); s != nil {
			return s
		}
	}
	return nil
}
