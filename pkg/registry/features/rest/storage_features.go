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

// Package rest provides the storage of the features.k8s.io API group to
// kube-apiserver.
package rest

import (
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/features"
	bindingstorage "k8s.io/kubernetes/pkg/registry/features/customresourcefeaturebinding/storage"
	featurestorage "k8s.io/kubernetes/pkg/registry/features/feature/storage"
	reportstorage "k8s.io/kubernetes/pkg/registry/features/featurereport/storage"
	targetstorage "k8s.io/kubernetes/pkg/registry/features/featuretarget/storage"
)

// RESTStorageProvider provides the storage of features.k8s.io.
type RESTStorageProvider struct{}

// NewRESTStorage returns the group's storage for the enabled versions and
// resources.
func (p RESTStorageProvider) NewRESTStorage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	apiGroupInfo := genericapiserver.NewDefaultAPIGroupInfo(features.GroupName, legacyscheme.Scheme, legacyscheme.ParameterCodec, legacyscheme.Codecs)
	// If you add a version here, be sure to add an entry in
	// k8s.io/kubernetes/cmd/kube-apiserver/app/aggregator.go with its priority.
	if storageMap, err := p.v1alpha1Storage(apiResourceConfigSource, restOptionsGetter); err != nil {
		return genericapiserver.APIGroupInfo{}, err
	} else if len(storageMap) > 0 {
		apiGroupInfo.VersionedResourcesStorageMap[featuresv1alpha1.SchemeGroupVersion.Version] = storageMap
	}
	return apiGroupInfo, nil
}

func (p RESTStorageProvider) v1alpha1Storage(apiResourceConfigSource serverstorage.APIResourceConfigSource, restOptionsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	storage := map[string]rest.Storage{}

	// features
	if resource := "features"; apiResourceConfigSource.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource(resource)) {
		featureStorage, statusStorage, err := featurestorage.NewREST(restOptionsGetter)
		if err != nil {
			return storage, err
		}
		storage[resource] = featureStorage
		storage[resource+"/status"] = statusStorage
	}

	// featurereports
	if resource := "featurereports"; apiResourceConfigSource.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource(resource)) {
		reportStorage, err := reportstorage.NewREST(restOptionsGetter)
		if err != nil {
			return storage, err
		}
		storage[resource] = reportStorage
	}

	// featuretargets
	if resource := "featuretargets"; apiResourceConfigSource.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource(resource)) {
		targetStorage, err := targetstorage.NewREST(restOptionsGetter)
		if err != nil {
			return storage, err
		}
		storage[resource] = targetStorage
	}

	// customresourcefeaturebindings
	if resource := "customresourcefeaturebindings"; apiResourceConfigSource.ResourceEnabled(featuresv1alpha1.SchemeGroupVersion.WithResource(resource)) {
		bindingStorage, err := bindingstorage.NewREST(restOptionsGetter)
		if err != nil {
			return storage, err
		}
		storage[resource] = bindingStorage
	}
	return storage, nil
}

// GroupName returns features.k8s.io.
func (p RESTStorageProvider) GroupName() string {
	return features.GroupName
}
