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

package stores

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/testapigroup"
	testapigroupinstall "k8s.io/apimachinery/pkg/apis/testapigroup/install"
	testapigroupv1 "k8s.io/apimachinery/pkg/apis/testapigroup/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/controlplane"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	"k8s.io/kubernetes/pkg/featurelifecycle/serverflow"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/lifecycle"
	testapigrouprest "k8s.io/kubernetes/pkg/registry/testapigroup/rest"
	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

func init() {
	testapigroupinstall.Install(legacyscheme.Scheme)
}

var carps = testapigroupv1.SchemeGroupVersion.WithResource("carps")

// startServer starts kube-apiserver in this process with the feature
// lifecycle on and returns it with the store catalog its server flow got.
func startServer(t *testing.T, flags ...string) (*kubeapiservertesting.TestServer, *storecatalog.Catalog) {
	t.Helper()
	var (
		mu      sync.Mutex
		catalog *storecatalog.Catalog
	)
	serverflow.StoreCatalogForTests = func(c *storecatalog.Catalog) {
		mu.Lock()
		defer mu.Unlock()
		catalog = c
	}
	t.Cleanup(func() { serverflow.StoreCatalogForTests = nil })
	server := kubeapiservertesting.StartTestServerOrDie(t, nil, append(slices.Clone(harness.LifecycleFlags), flags...), harness.SharedEtcd())
	t.Cleanup(server.TearDownFn)
	mu.Lock()
	defer mu.Unlock()
	if catalog == nil {
		t.Fatal("the server flow was installed without a store catalog")
	}
	return server, catalog
}

// TestStandaloneCatalogIsKubeAPIServers compares the store catalog
// standalone builds without a kube-apiserver, from its list of upstream's
// REST storage providers (for the generators of the lifecycle data and
// unit tests), with the stores a kube-apiserver serving every API version
// installed, and fails on any difference either way: a resource, a version,
// a status subresource, a resource without a store.
func TestStandaloneCatalogIsKubeAPIServers(t *testing.T) {
	// Without the peer proxy: with internal.apiserver.k8s.io served it
	// makes a client-go transport whose certificate rotation never stops,
	// and the integration framework's leak check would wait ten minutes
	// for it. It serves no resource.
	_, live := startServer(t, "--runtime-config=api/all=true", "--feature-gates=UnknownVersionInteroperabilityProxy=false")
	// Built now: the process's FeatureLifecycle gate is on, as the
	// server's, so the list has features.k8s.io.
	cfg := standalone.Config{Services: true, Gated: true}
	providers, err := standalone.Providers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	built, err := standalone.BuildAll(providers, standalone.NoStorage{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	describe := func(c *storecatalog.Catalog) map[string]string {
		out := map[string]string{}
		for _, r := range c.Resources() {
			out[r.String()] = fmt.Sprintf("%s, %T, status subresource %t", r.Version, r.Store.New(), r.Status != nil)
		}
		for _, n := range c.WithoutStore() {
			out[n.String()] = "no registry store: " + n.Storage
		}
		return out
	}
	got, want := describe(built), describe(live)
	if len(want) < 50 {
		t.Fatalf("kube-apiserver installed %d resources: %v", len(want), want)
	}
	for _, r := range slices.Sorted(maps.Keys(want)) {
		switch g, ok := got[r]; {
		case !ok:
			t.Errorf("%s (%s): kube-apiserver serves it, standalone's list of providers does not", r, want[r])
		case g != want[r]:
			t.Errorf("%s: kube-apiserver serves %s, standalone builds %s", r, want[r], g)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[r]; !ok {
			t.Errorf("%s (%s): standalone's list of providers builds it, kube-apiserver does not serve it", r, got[r])
		}
	}
	t.Logf("%d resources, %d with a registry store", len(want), len(live.Resources()))
}

// TestResourceTheListNeverNamed adds a resource to kube-apiserver the way
// upstream adds one, with a REST storage provider of pkg/controlplane (here
// upstream's test provider of testapigroup.apimachinery.k8s.io's Carps,
// through controlplane.AdditionalStorageProvidersForTests), and checks that
// the feature lifecycle covers it with no change of its own: its store is
// in the catalog the server flow got, the one kube-apiserver serves it
// with (through its watch cache), and a Feature's Disabling clears a
// field from every stored Carp through it.
func TestResourceTheListNeverNamed(t *testing.T) {
	ctx := context.Background()
	if controlplane.AdditionalStorageProvidersForTests != nil {
		t.Fatal("AdditionalStorageProvidersForTests is already set")
	}
	controlplane.AdditionalStorageProvidersForTests = func(client *kubernetes.Clientset) []controlplaneapiserver.RESTStorageProvider {
		return []controlplaneapiserver.RESTStorageProvider{testapigrouprest.RESTStorageProvider{NamespaceClient: client.CoreV1().Namespaces()}}
	}
	t.Cleanup(func() { controlplane.AdditionalStorageProvidersForTests = nil })
	// The feature author's part: the gate's lifecycle and that it may be
	// Dynamic (so that the test turns it off without a restart).
	lifecycle.Lifecycles[carpGate] = lifecycle.Lifecycle{OnDisable: []tasks.Task{
		tasks.ClearFields("clear-carp-hostnames", "Clear spec.hostname from every Carp.", testapigroup.Resource("carps"),
			func(c *testapigroup.Carp) bool {
				if c.Spec.Hostname == "" {
					return false
				}
				c.Spec.Hostname = ""
				return true
			}),
	}}
	lifecycle.Managements[carpGate] = lifecycle.Management{Dynamic: true}
	t.Cleanup(func() {
		delete(lifecycle.Lifecycles, carpGate)
		delete(lifecycle.Managements, carpGate)
	})

	// The list of providers the lifecycle's generators use never named it.
	providers, err := standalone.Providers(standalone.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range providers {
		if p.GroupName() == carps.Group {
			t.Fatalf("standalone's list of providers names %s", carps.Group)
		}
	}

	server, catalog := startServer(t, "--runtime-config="+carps.GroupVersion().String()+"=true",
		"--feature-lifecycle-dynamic-gates="+string(carpGate), harness.Lifecycle{WaitForUsesPeriod: time.Second}.Flag(t))
	r, ok := catalog.Lookup(carps.GroupResource())
	if !ok || r.Status == nil {
		t.Fatalf("the server flow's store catalog has no store of %s (with its status subresource): %+v", carps.GroupResource(), r)
	}
	if storage := reflect.TypeOf(r.Store.Storage.Storage).String(); !strings.Contains(storage, "cacher") {
		t.Errorf("the store of %s reads through %s, not kube-apiserver's watch cache", carps.GroupResource(), storage)
	}

	client := dynamic.NewForConfigOrDie(server.ClientConfig).Resource(carps).Namespace("default")
	const n = 25
	for i := range n {
		carp := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": carps.GroupVersion().String(), "kind": "Carp",
			"metadata": map[string]interface{}{"name": fmt.Sprintf("carp-%02d", i)},
			"spec":     map[string]interface{}{"hostname": "with-the-feature", "nodeName": "kept"},
		}}
		if _, err := client.Create(ctx, carp, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	admin := featuresclient.NewForConfigOrDie(server.ClientConfig)
	name := featuresv1alpha1.FeatureName(string(carpGate))
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, time.Minute)
	if _, err := admin.FeaturesV1alpha1().Features("kube-system").Patch(ctx, name, types.MergePatchType,
		[]byte(`{"spec":{"desiredState":"Disabled"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// Every Carp is rewritten once, through its store (its strategy bumps
	// no generation: Carps have none), without the field.
	cleared := map[string]bool{}
	if err := wait.PollUntilContextTimeout(ctx, 0, 2*time.Minute, true, func(context.Context) (bool, error) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, fmt.Errorf("the watch of %s ended", carps.Resource)
			}
			obj, isObj := ev.Object.(*unstructured.Unstructured)
			if ev.Type != watch.Modified || !isObj {
				return false, nil
			}
			if h, _, _ := unstructured.NestedString(obj.Object, "spec", "hostname"); h != "" {
				t.Errorf("%s was rewritten with spec.hostname %q", obj.GetName(), h)
			}
			if node, _, _ := unstructured.NestedString(obj.Object, "spec", "nodeName"); node != "kept" {
				t.Errorf("%s lost spec.nodeName: %q", obj.GetName(), node)
			}
			cleared[obj.GetName()] = true
			return len(cleared) == n, nil
		case <-time.After(time.Second):
			return false, nil
		}
	}); err != nil {
		t.Fatalf("%d of %d Carps were cleared: %v", len(cleared), n, err)
	}
	f := featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, time.Minute)
	t.Logf("%s Disabled; %d Carps cleared through kube-apiserver's own store of %s", name, len(cleared), schema.GroupResource{Group: carps.Group, Resource: carps.Resource})
	if len(f.Status.Tasks) != 0 {
		t.Errorf("tasks left: %+v", f.Status.Tasks)
	}
}
