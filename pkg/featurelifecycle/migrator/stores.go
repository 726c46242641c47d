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

package migrator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	daemonsetstore "k8s.io/kubernetes/pkg/registry/apps/daemonset/storage"
	deploymentstore "k8s.io/kubernetes/pkg/registry/apps/deployment/storage"
	replicasetstore "k8s.io/kubernetes/pkg/registry/apps/replicaset/storage"
	statefulsetstore "k8s.io/kubernetes/pkg/registry/apps/statefulset/storage"
	cronjobstore "k8s.io/kubernetes/pkg/registry/batch/cronjob/storage"
	jobstore "k8s.io/kubernetes/pkg/registry/batch/job/storage"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod/storage"
	podtemplatestore "k8s.io/kubernetes/pkg/registry/core/podtemplate/storage"
	rcstore "k8s.io/kubernetes/pkg/registry/core/replicationcontroller/storage"
)

// resourceInfo says how to build the upstream registry store of a resource
// and what internal object it stores.
type resourceInfo struct {
	newObject func() runtime.Object
	newStore  func(generic.RESTOptionsGetter) (*genericregistry.Store, error)
}

// resources are the group-resources whose stores NewStores builds, each with
// upstream's own constructor.
var resources = map[schema.GroupResource]resourceInfo{
	api.Resource("pods"): {
		newObject: func() runtime.Object { return &api.Pod{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			// No kubelet connection, proxy transport, PodDisruptionBudget
			// client or authorizer: list and update do not use them.
			s, err := podstore.NewStorage(g, nil, nil, nil, nil)
			if err != nil {
				return nil, err
			}
			return s.Pod.Store, nil
		},
	},
	api.Resource("podtemplates"): {
		newObject: func() runtime.Object { return &api.PodTemplate{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, err := podtemplatestore.NewREST(g)
			if err != nil {
				return nil, err
			}
			return s.Store, nil
		},
	},
	api.Resource("replicationcontrollers"): {
		newObject: func() runtime.Object { return &api.ReplicationController{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, err := rcstore.NewStorage(g)
			if err != nil {
				return nil, err
			}
			return s.Controller.Store, nil
		},
	},
	apps.Resource("daemonsets"): {
		newObject: func() runtime.Object { return &apps.DaemonSet{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, _, err := daemonsetstore.NewREST(g)
			if err != nil {
				return nil, err
			}
			return s.Store, nil
		},
	},
	apps.Resource("deployments"): {
		newObject: func() runtime.Object { return &apps.Deployment{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, err := deploymentstore.NewStorage(g)
			if err != nil {
				return nil, err
			}
			return s.Deployment.Store, nil
		},
	},
	apps.Resource("replicasets"): {
		newObject: func() runtime.Object { return &apps.ReplicaSet{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, err := replicasetstore.NewStorage(g)
			if err != nil {
				return nil, err
			}
			return s.ReplicaSet.Store, nil
		},
	},
	apps.Resource("statefulsets"): {
		newObject: func() runtime.Object { return &apps.StatefulSet{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, err := statefulsetstore.NewStorage(g)
			if err != nil {
				return nil, err
			}
			return s.StatefulSet.Store, nil
		},
	},
	batch.Resource("cronjobs"): {
		newObject: func() runtime.Object { return &batch.CronJob{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, _, err := cronjobstore.NewREST(g)
			if err != nil {
				return nil, err
			}
			return s.Store, nil
		},
	},
	batch.Resource("jobs"): {
		newObject: func() runtime.Object { return &batch.Job{} },
		newStore: func(g generic.RESTOptionsGetter) (*genericregistry.Store, error) {
			s, err := jobstore.NewStorage(g)
			if err != nil {
				return nil, err
			}
			return s.Job.Store, nil
		},
	},
}

// SupportedResources returns, sorted, the group-resources NewStores can open.
func SupportedResources() []schema.GroupResource {
	grs := make([]schema.GroupResource, 0, len(resources))
	for gr := range resources {
		grs = append(grs, gr)
	}
	slices.SortFunc(grs, func(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) })
	return grs
}

// NewObject returns an empty internal object of the kind gr stores, or an
// error naming gr when it is not supported.
func NewObject(gr schema.GroupResource) (runtime.Object, error) {
	info, ok := resources[gr]
	if !ok {
		return nil, unsupported(gr)
	}
	return info.newObject(), nil
}

func unsupported(gr schema.GroupResource) error {
	return fmt.Errorf("the feature storage migrator does not support %q (supported: %v)", gr.String(), SupportedResources())
}

// RegistryStores opens the upstream registry stores of the supported
// resources on the apiserver's storage. It implements Stores.
type RegistryStores struct {
	getter generic.RESTOptionsGetter

	mu        sync.Mutex
	stores    map[schema.GroupResource]*genericregistry.Store
	destroyed bool
}

var _ Stores = &RegistryStores{}

// NewStores returns Stores that build each resource's own upstream registry
// store, lazily and once, on getter – the apiserver's RESTOptionsGetter –
// with the storage decorator replaced by generic.UndecoratedStorage: the same
// etcd prefix, codecs and encryption-at-rest transformers as the apiserver's
// store of the resource, but no second watch cache and no object-count
// polling. (The undecorated storage is wrapped so that a migration write
// starts from the object the migrator listed, as the apiserver's writes start
// from the watch cache's copy.) It also registers the migrator's metrics.
func NewStores(getter generic.RESTOptionsGetter) *RegistryStores {
	RegisterMetrics()
	return &RegistryStores{
		getter: undecorated{getter},
		stores: map[schema.GroupResource]*genericregistry.Store{},
	}
}

// Store returns the registry store of gr (a *genericregistry.Store), building
// it on first use, or an error naming gr when it is not supported.
func (s *RegistryStores) Store(gr schema.GroupResource) (Store, error) {
	info, ok := resources[gr]
	if !ok {
		return nil, unsupported(gr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return nil, errors.New("the feature storage migrator's stores have been destroyed")
	}
	if store, ok := s.stores[gr]; ok {
		return store, nil
	}
	store, err := info.newStore(s.getter)
	if err != nil {
		return nil, fmt.Errorf("building the registry store of %s for the feature storage migrator: %w", gr.String(), err)
	}
	klog.V(2).InfoS("Opened a registry store for feature storage migrations", "resource", gr.String())
	s.stores[gr] = store
	return store, nil
}

// Destroy releases the stores (their etcd clients); later calls to Store fail.
func (s *RegistryStores) Destroy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for gr, store := range s.stores {
		store.Destroy()
		delete(s.stores, gr)
	}
	s.destroyed = true
}

// undecorated returns the RESTOptions of the wrapped getter without a watch
// cache (see hintedStorage) and without object-count polling (the apiserver's own store polls,
// and destroying ours would delete that store's count metric).
type undecorated struct {
	generic.RESTOptionsGetter
}

// GetRESTOptions returns the wrapped getter's options, undecorated.
func (u undecorated) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := u.RESTOptionsGetter.GetRESTOptions(gr, example)
	if err != nil {
		return opts, err
	}
	opts.Decorator = hintedUndecoratedStorage
	opts.CountMetricPollPeriod = 0
	opts.StorageObjectCountTracker = nil
	return opts, nil
}
