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

package standalone

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
	kubefeatures "k8s.io/kubernetes/pkg/features"
	svmrest "k8s.io/kubernetes/pkg/registry/storagemigration/rest"

	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

func names(c *storecatalog.Catalog) []string {
	var out []string
	for _, r := range c.Resources() {
		out = append(out, r.String())
	}
	return out
}

// build builds p's storage on NoStorage into a new catalog.
func build(t *testing.T, p Provider, cfg Config) *storecatalog.Catalog {
	t.Helper()
	c := storecatalog.New()
	if err := Build(c, p, NoStorage{}, cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGatedStores checks that a resource upstream's provider builds only
// with its gate is built with Config.Gated whatever the gate, and not
// without it.
func TestGatedStores(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.StorageVersionMigrator, false)
	svm := "storageversionmigrations.storagemigration.k8s.io"
	c := build(t, svmrest.RESTStorageProvider{}, Config{})
	if slices.Contains(names(c), svm) {
		t.Errorf("the provider built %s with its gate off", svm)
	}
	c = build(t, svmrest.RESTStorageProvider{}, Config{Gated: true})
	if !slices.Contains(names(c), svm) {
		t.Fatalf("Gated: %s missing from %v", svm, names(c))
	}
	if r := c.Resources()[0]; r.Version != (schema.GroupVersion{Group: "storagemigration.k8s.io", Version: "v1"}) || r.Store.New() == nil {
		t.Errorf("gated resource: %+v", r)
	}
}

// TestOpen checks what Open does with a store that cannot or need not be
// opened.
func TestOpen(t *testing.T) {
	ps, err := Providers(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := BuildAll(ps, NoStorage{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	all := names(c)
	for _, want := range []string{"pods", "deployments.apps", "resourceslices.resource.k8s.io", "namespaces"} {
		if !slices.Contains(all, want) {
			t.Errorf("%s is missing from %v", want, all)
		}
	}
	if slices.Contains(all, "services") {
		t.Error("services are built without Config.Services")
	}
	if len(c.WithoutStore()) == 0 {
		t.Error("no resource without a registry store (reviews have none)")
	}
	store := c.Resources()[0].Store
	err = Open(store)
	if err == nil || !strings.Contains(err.Error(), "no storage") {
		t.Errorf("Open on NoStorage = %v", err)
	}
	store.Storage.Storage = nil
	if err := Open(store); !errors.Is(err, ErrNotDeferred) {
		t.Errorf("Open on a store without a placeholder = %v", err)
	}
}

// TestEveryStoredResourceHasAStore fails when one of upstream's REST types
// keeps its registry store where genericregistry.StoreAccessor does not
// reach it: only reviews, bindings (a pod's binding subresource served as
// a resource) and component statuses (health checks), which store nothing,
// may be without a store.
// (That the list of providers is kube-apiserver's is checked against a
// kube-apiserver: test/integration/features/stores.)
func TestEveryStoredResourceHasAStore(t *testing.T) {
	c, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Resources()) == 0 {
		t.Fatal("no resource with a registry store")
	}
	for _, r := range c.WithoutStore() {
		if !strings.HasSuffix(r.Resource, "reviews") && r.String() != "bindings" && r.String() != "componentstatuses" {
			t.Errorf("%s (%s) has no registry store that genericregistry.StoreAccessor reaches", r.GroupResource, r.Storage)
		}
	}
}

// TestGatedStoresFromTheProvider checks that with FeatureLifecycle on, as
// in kube-apiserver when the feature lifecycle runs, a resource served only
// with a gate that is off is built by its own provider (wrapped to be
// served while its Feature is Disabling) and reached through
// genericregistry.StoreAccessor, without Config.Gated: the gated-store
// table is only for processes without the feature lifecycle.
func TestGatedStoresFromTheProvider(t *testing.T) {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		kubefeatures.StorageVersionMigrator: false, kubefeatures.FeatureLifecycle: true})
	rs := build(t, svmrest.RESTStorageProvider{FeatureStates: featurestates.NewRegistry("kube-system")}, Config{}).Resources()
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
	c, err := BuildAll(ps, NoStorage{}, Config{Services: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]storecatalog.Resource{}
	for _, r := range c.Resources() {
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
