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

package upstreamstores

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	svmrest "k8s.io/kubernetes/pkg/registry/storagemigration/rest"
)

func names(rs []Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// TestGatedStores checks that a resource upstream's provider builds only
// with its gate is built with Config.Gated whatever the gate, and not
// without it.
func TestGatedStores(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.StorageVersionMigrator, false)
	svm := "storageversionmigrations.storagemigration.k8s.io"
	rs, _, err := Build(svmrest.RESTStorageProvider{}, NoStorage{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(rs), svm) {
		t.Errorf("the provider built %s with its gate off", svm)
	}
	rs, _, err = Build(svmrest.RESTStorageProvider{}, NoStorage{}, Config{Gated: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(rs), svm) {
		t.Fatalf("Gated: %s missing from %v", svm, names(rs))
	}
	if rs[0].Version != (schema.GroupVersion{Group: "storagemigration.k8s.io", Version: "v1"}) || rs[0].Store.New() == nil {
		t.Errorf("gated resource: %+v", rs[0])
	}
}

// TestOpen checks what Open does with a store that cannot or need not be
// opened.
func TestOpen(t *testing.T) {
	ps, err := Providers(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rs, without, err := BuildAll(ps, NoStorage{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	all := names(rs)
	for _, want := range []string{"pods", "deployments.apps", "resourceslices.resource.k8s.io", "namespaces"} {
		if !slices.Contains(all, want) {
			t.Errorf("%s is missing from %v", want, all)
		}
	}
	if slices.Contains(all, "services") {
		t.Error("services are built without Config.Services")
	}
	if len(without) == 0 {
		t.Error("no resource without a registry store (reviews have none)")
	}
	err = Open(rs[0].Store)
	if err == nil || !strings.Contains(err.Error(), "no storage") {
		t.Errorf("Open on NoStorage = %v", err)
	}
	rs[0].Store.Storage.Storage = nil
	if err := Open(rs[0].Store); !errors.Is(err, ErrNotDeferred) {
		t.Errorf("Open on a store without a placeholder = %v", err)
	}
}

// TestEveryStoredResourceHasAStore fails when one of upstream's REST types
// keeps its registry store where genericregistry.StoreAccessor does not
// reach it: only reviews, which store nothing, may be without a store.
func TestEveryStoredResourceHasAStore(t *testing.T) {
	cfg := Config{Services: true, Gated: true}
	providers, err := Providers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stores, without, err := BuildAll(providers, NoStorage{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stores) < 60 {
		t.Errorf("%d resources with a registry store, want every stored resource of kube-apiserver (more than 60)", len(stores))
	}
	for _, r := range without {
		if !strings.HasSuffix(r.Resource, "reviews") {
			t.Errorf("%s (%s) has no registry store that genericregistry.StoreAccessor reaches", r.GroupResource, r.Storage)
		}
	}
}

// TestGatedStoresFromTheProvider checks that with the registry of the
// Features' states, as kube-apiserver gives it when the feature lifecycle
// runs, a resource served only with a gate that is off is built by its own
// provider (wrapped to be served while its Feature is Disabling) and
// reached through genericregistry.StoreAccessor, without Config.Gated: the
// gated-store table is only for processes without the feature lifecycle.
func TestGatedStoresFromTheProvider(t *testing.T) {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		kubefeatures.StorageVersionMigrator: false, kubefeatures.FeatureLifecycle: true})
	rs, _, err := Build(svmrest.RESTStorageProvider{FeatureStates: featurestates.NewRegistry("kube-system")}, NoStorage{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].String() != "storageversionmigrations.storagemigration.k8s.io" || rs[0].Store == nil || rs[0].Store.CreateStrategy == nil {
		t.Fatalf("with the gate off and FeatureLifecycle on, the provider built %+v", rs)
	}
}

// TestStatusSubresources checks that a resource's status subresource is
// kept, for the core group's resources built here as for the others, and
// that opening the resource's store opens its status subresource's, which
// shares its placeholder.
func TestStatusSubresources(t *testing.T) {
	ps, err := Providers(Config{Services: true})
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err := BuildAll(ps, NoStorage{}, Config{Services: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Resource{}
	for _, r := range rs {
		byName[r.String()] = r
	}
	for _, name := range []string{"pods", "nodes", "services", "persistentvolumes", "persistentvolumeclaims",
		"replicationcontrollers", "namespaces", "deployments.apps", "replicasets.apps", "resourceclaims.resource.k8s.io"} {
		if byName[name].Status == nil {
			t.Errorf("%s: no status subresource", name)
		}
	}
	for _, name := range []string{"configmaps", "secrets", "roles.rbac.authorization.k8s.io"} {
		if s := byName[name].Status; s != nil {
			t.Errorf("%s: status subresource %T, want none", name, s)
		}
	}

	pending := &pendingStorage{}
	store := byName["deployments.apps"].Store
	copied := *store // as upstream's providers build a status store
	store.Storage.Storage, copied.Storage.Storage = pending, pending
	if OpenedStorage(store) != nil {
		t.Error("OpenedStorage of a store not opened is not nil")
	}
	opened := &pendingStorage{} // any storage.Interface
	pending.open = func() (storage.Interface, factory.DestroyFunc, error) { return opened, func() {}, nil }
	if err := Open(store); err != nil {
		t.Fatal(err)
	}
	if OpenedStorage(store) != opened || OpenedStorage(&copied) != opened {
		t.Error("opening a store does not open the stores copied from it")
	}
	if err := Open(store); !errors.Is(err, ErrNotDeferred) {
		t.Errorf("Open of an open store = %v, want ErrNotDeferred", err)
	}
}
