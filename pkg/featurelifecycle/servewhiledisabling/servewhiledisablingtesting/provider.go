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

// Package servewhiledisablingtesting checks the hooks of the REST storage
// providers that build, with their gate off, the resources served while the
// gate's Feature is Disabling.
package servewhiledisablingtesting

import (
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	"k8s.io/kubernetes/pkg/featurelifecycle/servewhiledisabling"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

// Provider is a REST storage provider.
type Provider interface {
	NewRESTStorage(serverstorage.APIResourceConfigSource, generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error)
}

// CheckProvider checks, with every resource of every version enabled, that
// the provider newProvider returns builds the resources of gate (by
// version: the resource names) as upstream with gate on (not wrapped) and
// with gate off and no registry of the Features' states (the feature
// lifecycle off: not at all), and with gate off and a registry, wrapped by
// servewhiledisabling.Storage for gate, without their subresources, backed
// by a registry store and not served (no Feature is Disabling). deps are
// gates gate depends on, kept on.
func CheckProvider(t *testing.T, newProvider func(states *featurestates.Registry) Provider, gate featuregate.Feature, resources map[string][]string, deps ...featuregate.Feature) {
	t.Helper()
	build := func(gateOn, lifecycle bool) genericapiserver.APIGroupInfo {
		t.Helper()
		overrides := featuregatetesting.FeatureOverrides{gate: gateOn}
		for _, dep := range deps {
			overrides[dep] = true
		}
		featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
		var states *featurestates.Registry
		if lifecycle {
			states = featurestates.NewRegistry("kube-system")
		}
		info, err := newProvider(states).NewRESTStorage(standalone.AllResources{}, standalone.NoStorage{})
		if err != nil {
			t.Fatalf("building the storage with %s=%t, feature lifecycle %t: %v", gate, gateOn, lifecycle, err)
		}
		return info
	}
	subresources := func(storage map[string]rest.Storage, resource string) []string {
		var out []string
		for path := range storage {
			if strings.HasPrefix(path, resource+"/") {
				out = append(out, path)
			}
		}
		return out
	}

	for _, lifecycle := range []bool{false, true} {
		info := build(true, lifecycle)
		for version, names := range resources {
			for _, name := range names {
				s, ok := info.VersionedResourcesStorageMap[version][name]
				if !ok {
					t.Errorf("%s on, FeatureLifecycle=%t: %s/%s is not built", gate, lifecycle, version, name)
				} else if _, wrapped := s.(*servewhiledisabling.ReadDelete); wrapped {
					t.Errorf("%s on, FeatureLifecycle=%t: %s/%s is wrapped", gate, lifecycle, version, name)
				}
			}
		}
	}

	info := build(false, false)
	for version, names := range resources {
		for _, name := range names {
			if s, ok := info.VersionedResourcesStorageMap[version][name]; ok {
				t.Errorf("%s off, FeatureLifecycle off: %s/%s is built (%T), as upstream does not", gate, version, name, s)
			}
			if subs := subresources(info.VersionedResourcesStorageMap[version], name); len(subs) > 0 {
				t.Errorf("%s off, FeatureLifecycle off: %v are built", gate, subs)
			}
		}
	}

	info = build(false, true)
	for version, names := range resources {
		for _, name := range names {
			s, ok := info.VersionedResourcesStorageMap[version][name]
			if !ok {
				t.Errorf("%s off, FeatureLifecycle on: %s/%s is not built", gate, version, name)
				continue
			}
			r, ok := s.(*servewhiledisabling.ReadDelete)
			if !ok {
				t.Errorf("%s off, FeatureLifecycle on: %s/%s is a %T, not wrapped by servewhiledisabling.Storage", gate, version, name, s)
				continue
			}
			if r.Gate() != string(gate) || r.RegistryStore() == nil || r.Served() {
				t.Errorf("%s off, FeatureLifecycle on: %s/%s is served by gate %q (want %s), registry store %v, served %t",
					gate, version, name, r.Gate(), gate, r.RegistryStore() != nil, r.Served())
			}
			if subs := subresources(info.VersionedResourcesStorageMap[version], name); len(subs) > 0 {
				t.Errorf("%s off, FeatureLifecycle on: %v are built", gate, subs)
			}
		}
	}
}
