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
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

// resource is one resource kube-apiserver serves with a registry store.
type resource = storecatalog.Resource

// noStore is a resource kube-apiserver serves without a registry store.
type noStore = storecatalog.NoStore

// discoverResources builds the storage of every upstream REST storage
// provider on trial storage (standalone.TrialGetter), with every resource of every
// version enabled, an allow-all authorizer and a services store (with
// in-memory allocators: nothing is stored), and returns each resource's
// registry store and the resources served without one, each sorted.
func discoverResources() ([]resource, []noStore, error) {
	cfg := standalone.Config{
		Authorizer: authorizerfactory.NewAlwaysAllowAuthorizer(),
		Services:   true,
	}
	ps, err := standalone.Providers(cfg)
	if err != nil {
		return nil, nil, err
	}
	catalog, err := standalone.BuildAll(ps, standalone.TrialGetter{}, cfg)
	if err != nil {
		return nil, nil, err
	}
	return catalog.Resources(), catalog.WithoutStore(), nil
}
