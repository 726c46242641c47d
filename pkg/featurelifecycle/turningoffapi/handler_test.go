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

package turningoffapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/storagemigration"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
	"k8s.io/kubernetes/pkg/registry/registrytest"
	svmstore "k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration/storage"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

const testGate = "StorageVersionMigrator"

var svmGVR = schema.GroupVersionResource{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations"}

// states is a States whose answers the test sets.
type states struct {
	mu sync.Mutex
	m  map[string]featuresv1alpha1.FeatureState
}

func (s *states) State(gate string) (featuresv1alpha1.FeatureState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[gate]
	return st, ok
}

func (s *states) set(gate string, st featuresv1alpha1.FeatureState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[gate] = st
}

// newSVMStore is upstream's StorageVersionMigration store on an etcd of
// its own, as upstream's registry tests build theirs.
func newSVMStore(t *testing.T) *genericregistry.Store {
	t.Helper()
	config, server := registrytest.NewEtcdStorageForResource(t, svmGVR.GroupResource())
	t.Cleanup(func() { server.Terminate(t) })
	s, _, err := svmstore.NewREST(generic.RESTOptions{StorageConfig: config, Decorator: generic.UndecoratedStorage,
		DeleteCollectionWorkers: 1, ResourcePrefix: svmGVR.Resource})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Destroy)
	return s.Store
}

func testTemplate() endpoints.APIGroupVersion {
	info := genericapiserver.NewDefaultAPIGroupInfo("", legacyscheme.Scheme, legacyscheme.ParameterCodec, legacyscheme.Codecs)
	return endpoints.APIGroupVersion{
		ParameterCodec:        info.ParameterCodec,
		Serializer:            info.NegotiatedSerializer,
		Creater:               info.Scheme,
		Convertor:             info.Scheme,
		ConvertabilityChecker: info.Scheme,
		UnsafeConvertor:       runtime.UnsafeObjectConvertor(info.Scheme),
		Defaulter:             info.Scheme,
		Typer:                 info.Scheme,
		Namer:                 runtime.Namer(meta.NewAccessor()),
		Admit:                 admission.NewChainHandler(),
		MinRequestTimeout:     time.Minute,
	}
}

// serve sends a request through h as the normal handler chain would hand
// it over: with its RequestInfo and user.
func serve(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	factory := &request.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}
	info, err := factory.NewRequestInfo(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithRequestInfo(audit.WithAuditContext(req.Context()), info)
	ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return rec
}

func aggregatedResources(t *testing.T, m aggregated.ResourceManager, gv schema.GroupVersion) []string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	list := &apidiscoveryv2.APIGroupDiscoveryList{}
	if err := json.Unmarshal(rec.Body.Bytes(), list); err != nil {
		t.Fatalf("aggregated discovery: %v: %s", err, rec.Body.String())
	}
	for _, g := range list.Items {
		if g.Name != gv.Group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version == gv.Version {
				var out []string
				for _, r := range v.Resources {
					out = append(out, r.Resource)
				}
				return out
			}
		}
	}
	return nil
}

func TestReadDeleteOnlyReadsAndDeletes(t *testing.T) {
	var s rest.Storage = NewReadDelete(&genericregistry.Store{})
	for name, ok := range map[string]bool{
		"Creater":        is[rest.Creater](s),
		"CreaterUpdater": is[rest.CreaterUpdater](s),
		"NamedCreater":   is[rest.NamedCreater](s),
		"Connecter":      is[rest.Connecter](s),
	} {
		if ok {
			t.Errorf("ReadDelete implements rest.%s: it must not write objects", name)
		}
	}
	for name, ok := range map[string]bool{
		"Getter":            is[rest.Getter](s),
		"Lister":            is[rest.Lister](s),
		"Watcher":           is[rest.Watcher](s),
		"GracefulDeleter":   is[rest.GracefulDeleter](s),
		"CollectionDeleter": is[rest.CollectionDeleter](s),
		"TableConvertor":    is[rest.TableConvertor](s),
		// Only to remove finalizers (TestHandler).
		"Updater": is[rest.Updater](s),
		"Patcher": is[rest.Patcher](s),
	} {
		if !ok {
			t.Errorf("ReadDelete does not implement rest.%s", name)
		}
	}
}

// finalizers are the finalizers of the test object named name.
func finalizers(name string) []string {
	if name == "finalized" {
		return []string{"example.com/one", "example.com/two"}
	}
	return nil
}

func is[T any](s rest.Storage) bool {
	_, ok := s.(T)
	return ok
}

func TestHandler(t *testing.T) {
	store := newSVMStore(t)
	ctx := request.WithRequestInfo(request.WithNamespace(context.Background(), ""),
		&request.RequestInfo{APIGroup: svmGVR.Group, APIVersion: svmGVR.Version, Resource: svmGVR.Resource, IsResourceRequest: true})
	for _, name := range []string{"first", "second", "finalized"} {
		obj := &storagemigration.StorageVersionMigration{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers(name)},
			Spec: storagemigration.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}}}
		if _, err := store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var delegated []string
	delegate := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		delegated = append(delegated, req.Method+" "+req.URL.Path)
		http.NotFound(w, req)
	})
	st := &states{m: map[string]featuresv1alpha1.FeatureState{testGate: featuresv1alpha1.FeatureStateOn}}
	manager := aggregated.NewResourceManager("apis")
	// Another group-version upstream serves, whose document must stay.
	other := schema.GroupVersion{Group: "certificates.k8s.io", Version: "v1"}
	manager.AddGroupVersion(other.Group, apidiscoveryv2.APIVersionDiscovery{Version: other.Version,
		Resources: []apidiscoveryv2.APIResourceDiscovery{{Resource: "certificatesigningrequests", Scope: apidiscoveryv2.ScopeCluster, Verbs: []string{"get"}}}})
	h, err := New(Config{
		Resources:  []Resource{{GroupVersionResource: svmGVR, Gates: []string{testGate}, Storage: NewReadDelete(store)}},
		Template:   testTemplate(),
		Delegate:   delegate,
		Discovery:  manager,
		Priorities: map[schema.GroupVersion]Priority{svmGVR.GroupVersion(): {Group: 15800, Version: 15}},
		States:     st,
		Namespace:  "kube-system",
	})
	if err != nil {
		t.Fatal(err)
	}
	list := "/apis/storagemigration.k8s.io/v1/storageversionmigrations"

	// On (upstream would serve it; here it is not): handed on.
	h.Sync()
	if rec := serve(t, h, http.MethodGet, list, ""); rec.Code != http.StatusNotFound || len(delegated) != 1 {
		t.Fatalf("with the Feature On: %d, delegated %v; want the delegate's 404", rec.Code, delegated)
	}
	if got := aggregatedResources(t, manager, svmGVR.GroupVersion()); got != nil {
		t.Errorf("with the Feature On, aggregated discovery lists %v", got)
	}

	checkGauge(t, 0)

	// TurningOff: read and delete, nothing else.
	st.set(testGate, featuresv1alpha1.FeatureStateTurningOff)
	h.Sync()
	checkGauge(t, 1)
	rec := serve(t, h, http.MethodGet, list, "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"first"`) || !strings.Contains(rec.Body.String(), `"second"`) {
		t.Fatalf("list while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serve(t, h, http.MethodGet, list+"/first", ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"kind":"StorageVersionMigration"`) {
		t.Fatalf("get while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serve(t, h, http.MethodGet, "/apis/storagemigration.k8s.io/v1", ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"storageversionmigrations"`) {
		t.Fatalf("version discovery while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	for _, c := range []struct{ method, path, body, verb string }{
		{http.MethodPost, list, `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"third"},"spec":{"resource":{"group":"apps","resource":"deployments"}}}`, "create"},
		{http.MethodPut, list + "/first", `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"first"},"spec":{"resource":{"group":"apps","resource":"statefulsets"}}}`, "update"},
		{http.MethodPatch, list + "/first", `{"metadata":{"labels":{"a":"b"}}}`, "patch"},
		{http.MethodPatch, list + "/finalized", `{"metadata":{"finalizers":["example.com/one","example.com/three"]}}`, "patch"},
		{http.MethodPatch, list + "/finalized", `{"metadata":{"finalizers":null},"spec":{"resource":{"resource":"statefulsets"}}}`, "patch"},
	} {
		rec := serve(t, h, c.method, c.path, c.body)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s while TurningOff: %d %s, want 405", c.verb, c.body, rec.Code, rec.Body.String())
			continue
		}
		for _, want := range []string{c.verb + " is not allowed", "Feature kube-system/storage-version-migrator", "gate StorageVersionMigrator", "TurningOff", "only remove finalizers"} {
			if !strings.Contains(rec.Body.String(), want) {
				t.Errorf("%s refused with %s, which does not say %q", c.verb, rec.Body.String(), want)
			}
		}
	}
	// A deleted object whose finalizers' controller does not run: removing
	// them is the only write allowed, and lets the deletion finish.
	if rec := serve(t, h, http.MethodDelete, list+"/finalized", ""); rec.Code != http.StatusOK && rec.Code != http.StatusAccepted {
		t.Fatalf("delete of an object with finalizers while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if got, err := store.Get(ctx, "finalized", &metav1.GetOptions{}); err != nil || got.(*storagemigration.StorageVersionMigration).DeletionTimestamp == nil {
		t.Fatalf("finalized after its delete: %v, %v; want it terminating", got, err)
	}
	if rec := serve(t, h, http.MethodPatch, list+"/finalized", `{"metadata":{"finalizers":["example.com/one"]}}`); rec.Code != http.StatusOK {
		t.Fatalf("patch removing a finalizer while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serve(t, h, http.MethodPatch, list+"/finalized", `{"metadata":{"finalizers":null}}`); rec.Code != http.StatusOK {
		t.Fatalf("patch removing the last finalizer while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if _, err := store.Get(ctx, "finalized", &metav1.GetOptions{}); err == nil {
		t.Errorf("finalized is still stored once its finalizers are removed")
	}
	if rec := serve(t, h, http.MethodGet, list+"/first/status", ""); rec.Code != http.StatusNotFound {
		t.Errorf("status subresource while TurningOff: %d, want 404", rec.Code)
	}
	if got := aggregatedResources(t, manager, svmGVR.GroupVersion()); len(got) != 1 || got[0] != "storageversionmigrations" {
		t.Errorf("while TurningOff, aggregated discovery lists %v in storagemigration.k8s.io/v1", got)
	}
	if got := aggregatedResources(t, manager, other); len(got) != 1 {
		t.Errorf("aggregated discovery of %s changed: %v", other, got)
	}
	if rec := serve(t, h, http.MethodDelete, list+"/first", ""); rec.Code != http.StatusOK {
		t.Fatalf("delete while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if _, err := store.Get(ctx, "first", &metav1.GetOptions{}); err == nil {
		t.Errorf("first is still stored after its delete")
	}
	if rec := serve(t, h, http.MethodDelete, list, ""); rec.Code != http.StatusOK {
		t.Fatalf("deletecollection while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	if l, err := store.List(ctx, nil); err != nil || meta.LenList(l) != 0 {
		t.Errorf("after deletecollection the store lists %d objects (%v)", meta.LenList(l), err)
	}

	// Off: not served, gone from discovery.
	st.set(testGate, featuresv1alpha1.FeatureStateOff)
	h.Sync()
	checkGauge(t, 0)
	delegated = nil
	if rec := serve(t, h, http.MethodGet, list, ""); rec.Code != http.StatusNotFound || len(delegated) != 1 {
		t.Errorf("with the Feature Off: %d, delegated %v; want the delegate's 404", rec.Code, delegated)
	}
	if rec := serve(t, h, http.MethodPost, list, "{}"); rec.Code != http.StatusNotFound {
		t.Errorf("create with the Feature Off: %d, want the delegate's 404", rec.Code)
	}
	if got := aggregatedResources(t, manager, svmGVR.GroupVersion()); got != nil {
		t.Errorf("with the Feature Off, aggregated discovery lists %v", got)
	}
	if got := aggregatedResources(t, manager, other); len(got) != 1 {
		t.Errorf("aggregated discovery of %s changed: %v", other, got)
	}
}

// TestHandlerMergesUpstreamDiscovery checks that a resource of a
// group-version upstream serves is added to upstream's aggregated
// discovery entry while served and removed after, leaving upstream's.
func TestHandlerMergesUpstreamDiscovery(t *testing.T) {
	store := newSVMStore(t)
	manager := aggregated.NewResourceManager("apis")
	gv := svmGVR.GroupVersion()
	manager.AddGroupVersion(gv.Group, apidiscoveryv2.APIVersionDiscovery{Version: gv.Version,
		Resources: []apidiscoveryv2.APIResourceDiscovery{{Resource: "upstreams", Scope: apidiscoveryv2.ScopeCluster, Verbs: []string{"get"}}}})
	st := &states{m: map[string]featuresv1alpha1.FeatureState{testGate: featuresv1alpha1.FeatureStateTurningOff}}
	// Upstream's version document.
	upstream := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/apis/storagemigration.k8s.io/v1" {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"storagemigration.k8s.io/v1","resources":[{"name":"upstreams","singularName":"upstream","namespaced":false,"kind":"Upstream","verbs":["get"]}]}`))
	})
	h, err := New(Config{
		Resources: []Resource{{GroupVersionResource: svmGVR, Gates: []string{testGate}, Storage: NewReadDelete(store)}},
		Template:  testTemplate(),
		Delegate:  upstream,
		Upstream:  func(schema.GroupVersion) bool { return true },
		Discovery: manager,
		States:    st,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Sync()
	if got := aggregatedResources(t, manager, gv); strings.Join(got, ",") != "storageversionmigrations,upstreams" {
		t.Errorf("while TurningOff: %v", got)
	}
	// The version document is upstream's, with the resource added.
	if rec := serve(t, h, http.MethodGet, "/apis/storagemigration.k8s.io/v1", ""); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), `"name":"upstreams"`) || !strings.Contains(rec.Body.String(), `"name":"storageversionmigrations"`) {
		t.Errorf("version discovery of an upstream group-version while TurningOff: %d %s", rec.Code, rec.Body.String())
	}
	st.set(testGate, featuresv1alpha1.FeatureStateOff)
	h.Sync()
	if got := aggregatedResources(t, manager, gv); strings.Join(got, ",") != "upstreams" {
		t.Errorf("once Off: %v", got)
	}
	if rec := serve(t, h, http.MethodGet, "/apis/storagemigration.k8s.io/v1", ""); rec.Code != http.StatusOK ||
		strings.Contains(rec.Body.String(), `"name":"storageversionmigrations"`) {
		t.Errorf("version discovery once Off: %d %s", rec.Code, rec.Body.String())
	}
}

// TestLazyReadDeleteOpensOnFirstRequest checks that building and installing
// a lazy ReadDelete opens no storage, that a request opens it, and that a
// failure to open is an internal error naming the resource.
func TestLazyReadDeleteOpensOnFirstRequest(t *testing.T) {
	store := newSVMStore(t)
	opened := 0
	var openErr error
	r := NewLazyReadDelete(store, func() (*genericregistry.Store, error) {
		opened++
		if openErr != nil {
			return nil, openErr
		}
		return store, nil
	})
	h, err := New(Config{
		Resources: []Resource{{GroupVersionResource: svmGVR, Gates: []string{testGate}, Storage: r}},
		Template:  testTemplate(),
		Delegate:  http.NotFoundHandler(),
		States:    &states{m: map[string]featuresv1alpha1.FeatureState{testGate: featuresv1alpha1.FeatureStateTurningOff}},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Sync()
	if opened != 0 {
		t.Fatalf("installing opened the storage %d times", opened)
	}
	list := "/apis/storagemigration.k8s.io/v1/storageversionmigrations"
	if rec := serve(t, h, http.MethodGet, list, ""); rec.Code != http.StatusOK || opened == 0 {
		t.Fatalf("list: %d, opened %d times", rec.Code, opened)
	}
	openErr = errors.New("etcd is away")
	rec := serve(t, h, http.MethodGet, list, "")
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "storageversionmigrations.storagemigration.k8s.io") ||
		!strings.Contains(rec.Body.String(), "etcd is away") {
		t.Errorf("list when the storage cannot be opened: %d %s", rec.Code, rec.Body.String())
	}
}

func checkGauge(t *testing.T, want float64) {
	t.Helper()
	got, err := testutil.GetGaugeMetricValue(servedGauge.WithLabelValues(svmGVR.Group, svmGVR.Version, svmGVR.Resource))
	if err != nil || got != want {
		t.Errorf("apiserver_feature_lifecycle_served_while_turning_off of %s is %v (%v), want %v", svmGVR, got, err, want)
	}
}
