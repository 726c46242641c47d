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

package servewhiledisabling

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/storagemigration"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	"k8s.io/kubernetes/pkg/registry/registrytest"
	svmstore "k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration/storage"
)

const testGate = "StorageVersionMigrator"

var svmGVR = schema.GroupVersionResource{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations"}

// newSVMStorage is upstream's StorageVersionMigration REST storage on an
// etcd of its own, as upstream's registry tests build theirs.
func newSVMStorage(t *testing.T) *svmstore.REST {
	t.Helper()
	config, server := registrytest.NewEtcdStorageForResource(t, svmGVR.GroupResource())
	t.Cleanup(func() { server.Terminate(t) })
	s, _, err := svmstore.NewREST(generic.RESTOptions{StorageConfig: config, Decorator: generic.UndecoratedStorage,
		DeleteCollectionWorkers: 1, ResourcePrefix: svmGVR.Resource})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Destroy)
	return s
}

// install installs storage as the only resource of storagemigration.k8s.io/v1
// with the API installer, as the generic apiserver does.
func install(t *testing.T, storage rest.Storage) *restful.Container {
	t.Helper()
	info := genericapiserver.NewDefaultAPIGroupInfo(svmGVR.Group, legacyscheme.Scheme, legacyscheme.ParameterCodec, legacyscheme.Codecs)
	version := &endpoints.APIGroupVersion{
		Root:                        "/apis",
		GroupVersion:                svmGVR.GroupVersion(),
		Storage:                     map[string]rest.Storage{svmGVR.Resource: storage},
		AllServedVersionsByResource: map[string][]string{svmGVR.Resource: {svmGVR.GroupVersion().String()}},
		MetaGroupVersion:            info.MetaGroupVersion,
		ParameterCodec:              info.ParameterCodec,
		Serializer:                  info.NegotiatedSerializer,
		Creater:                     info.Scheme,
		Convertor:                   info.Scheme,
		ConvertabilityChecker:       info.Scheme,
		UnsafeConvertor:             runtime.UnsafeObjectConvertor(info.Scheme),
		Defaulter:                   info.Scheme,
		Typer:                       info.Scheme,
		Namer:                       runtime.Namer(meta.NewAccessor()),
		EquivalentResourceRegistry:  runtime.NewEquivalentResourceRegistry(),
		TypeConverter:               managedfields.NewDeducedTypeConverter(),
		Admit:                       admission.NewChainHandler(),
		MinRequestTimeout:           time.Minute,
	}
	container := restful.NewContainer()
	container.Router(restful.CurlyRouter{})
	if _, _, err := version.InstallREST(container); err != nil {
		t.Fatal(err)
	}
	// As the generic apiserver does, to follow the changes in discovery.
	version.AddServedHandler(func() {})
	return container
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

func is[T any](s rest.Storage) bool {
	_, ok := s.(T)
	return ok
}

// TestReadDeleteInterfaces checks what the installer and the migrator's
// stores see of a ReadDelete.
func TestReadDeleteInterfaces(t *testing.T) {
	inner := &svmstore.REST{Store: &genericregistry.Store{}}
	var s rest.Storage = newReadDelete(featurestates.NewRegistry("kube-system"), testGate, inner)
	for name, ok := range map[string]bool{
		"NamedCreater": is[rest.NamedCreater](s),
		"Connecter":    is[rest.Connecter](s),
	} {
		if ok {
			t.Errorf("ReadDelete implements rest.%s", name)
		}
	}
	for name, ok := range map[string]bool{
		"Getter":              is[rest.Getter](s),
		"Lister":              is[rest.Lister](s),
		"Watcher":             is[rest.Watcher](s),
		"GracefulDeleter":     is[rest.GracefulDeleter](s),
		"CollectionDeleter":   is[rest.CollectionDeleter](s),
		"TableConvertor":      is[rest.TableConvertor](s),
		"ConditionallyServed": is[rest.ConditionallyServed](s),
		// To refuse with the reason rather than with go-restful's 405.
		"Creater": is[rest.Creater](s),
		// Only to remove finalizers.
		"Updater": is[rest.Updater](s),
		"Patcher": is[rest.Patcher](s),
	} {
		if !ok {
			t.Errorf("ReadDelete does not implement rest.%s", name)
		}
	}
	if got := s.(genericregistry.StoreAccessor).RegistryStore(); got != inner.Store {
		t.Errorf("RegistryStore() = %p, want the wrapped REST's store %p", got, inner.Store)
	}
}

// finalizers are the finalizers of the test object named name.
func finalizers(name string) []string {
	if name == "finalized" {
		return []string{"example.com/one", "example.com/two"}
	}
	return nil
}

// TestServedWhileDisabling installs a ReadDelete with the generic
// apiserver's installer and checks that it answers 404 until the gate's
// Feature is Disabling, then serves only reads, deletes and updates that
// remove finalizers, and answers 404 again once the Feature is not.
func TestServedWhileDisabling(t *testing.T) {
	storage := newSVMStorage(t)
	store := storage.Store
	ctx := request.WithRequestInfo(request.WithNamespace(context.Background(), ""),
		&request.RequestInfo{APIGroup: svmGVR.Group, APIVersion: svmGVR.Version, Resource: svmGVR.Resource, IsResourceRequest: true})
	for _, name := range []string{"first", "second", "finalized"} {
		obj := &storagemigration.StorageVersionMigration{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers(name)},
			Spec: storagemigration.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}}}
		if _, err := store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	registry := featurestates.NewRegistry("kube-system")
	h := install(t, newReadDelete(registry, testGate, storage))
	version := "/apis/storagemigration.k8s.io/v1"
	list := version + "/storageversionmigrations"

	// No Feature Disabling: not served at all.
	for _, c := range []struct{ method, path string }{{http.MethodGet, list}, {http.MethodGet, list + "/first"}, {http.MethodPost, list}, {http.MethodGet, version}} {
		if rec := serve(t, h, c.method, c.path, "{}"); rec.Code != http.StatusNotFound {
			t.Errorf("%s %s while not Disabling: %d, want 404", c.method, c.path, rec.Code)
		}
	}
	checkGauge(t, 0)

	// Disabling: read and delete, nothing else.
	registry.Set(map[string]bool{testGate: true})
	checkGauge(t, 1)
	rec := serve(t, h, http.MethodGet, list, "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"first"`) || !strings.Contains(rec.Body.String(), `"second"`) {
		t.Fatalf("list while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serve(t, h, http.MethodGet, list+"/first", ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"kind":"StorageVersionMigration"`) {
		t.Fatalf("get while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serve(t, h, http.MethodGet, version, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"storageversionmigrations"`) {
		t.Fatalf("version discovery while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	for _, c := range []struct{ method, path, body, verb string }{
		{http.MethodPost, list, `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"third"},"spec":{"resource":{"group":"apps","resource":"deployments"}}}`, "create"},
		{http.MethodPut, list + "/first", `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"first"},"spec":{"resource":{"group":"apps","resource":"statefulsets"}}}`, "update"},
		{http.MethodPut, list + "/new", `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"new"},"spec":{"resource":{"group":"apps","resource":"statefulsets"}}}`, "update"},
		{http.MethodPatch, list + "/first", `{"metadata":{"labels":{"a":"b"}}}`, "patch"},
		{http.MethodPatch, list + "/finalized", `{"metadata":{"finalizers":["example.com/one","example.com/three"]}}`, "patch"},
		{http.MethodPatch, list + "/finalized", `{"metadata":{"finalizers":null},"spec":{"resource":{"resource":"statefulsets"}}}`, "patch"},
	} {
		rec := serve(t, h, c.method, c.path, c.body)
		if c.path == list+"/new" && rec.Code == http.StatusNotFound {
			// An update of an object that does not exist creates none.
			continue
		}
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s while Disabling: %d %s, want 405", c.verb, c.body, rec.Code, rec.Body.String())
			continue
		}
		for _, want := range []string{c.verb + " is not allowed", "Feature kube-system/storage-version-migrator", "gate StorageVersionMigrator", "Disabling", "read and delete", "only remove finalizers"} {
			if !strings.Contains(rec.Body.String(), want) {
				t.Errorf("%s refused with %s, which does not say %q", c.verb, rec.Body.String(), want)
			}
		}
	}
	if _, err := store.Get(ctx, "new", &metav1.GetOptions{}); err == nil {
		t.Errorf("an update created an object while Disabling")
	}
	// A deleted object whose finalizers' controller does not run: removing
	// them is the only write allowed, and lets the deletion finish.
	if rec := serve(t, h, http.MethodDelete, list+"/finalized", ""); rec.Code != http.StatusOK && rec.Code != http.StatusAccepted {
		t.Fatalf("delete of an object with finalizers while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if got, err := store.Get(ctx, "finalized", &metav1.GetOptions{}); err != nil || got.(*storagemigration.StorageVersionMigration).DeletionTimestamp == nil {
		t.Fatalf("finalized after its delete: %v, %v; want it terminating", got, err)
	}
	if rec := serve(t, h, http.MethodPatch, list+"/finalized", `{"metadata":{"finalizers":["example.com/one"]}}`); rec.Code != http.StatusOK {
		t.Fatalf("patch removing a finalizer while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if rec := serve(t, h, http.MethodPatch, list+"/finalized", `{"metadata":{"finalizers":null}}`); rec.Code != http.StatusOK {
		t.Fatalf("patch removing the last finalizer while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if _, err := store.Get(ctx, "finalized", &metav1.GetOptions{}); err == nil {
		t.Errorf("finalized is still stored once its finalizers are removed")
	}
	if rec := serve(t, h, http.MethodGet, list+"/first/status", ""); rec.Code != http.StatusNotFound {
		t.Errorf("status subresource while Disabling: %d, want 404", rec.Code)
	}
	if rec := serve(t, h, http.MethodDelete, list+"/first", ""); rec.Code != http.StatusOK {
		t.Fatalf("delete while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if _, err := store.Get(ctx, "first", &metav1.GetOptions{}); err == nil {
		t.Errorf("first is still stored after its delete")
	}
	if rec := serve(t, h, http.MethodDelete, list, ""); rec.Code != http.StatusOK {
		t.Fatalf("deletecollection while Disabling: %d %s", rec.Code, rec.Body.String())
	}
	if l, err := store.List(ctx, nil); err != nil || meta.LenList(l) != 0 {
		t.Errorf("after deletecollection the store lists %d objects (%v)", meta.LenList(l), err)
	}

	// Disabled: not served.
	registry.Set(map[string]bool{})
	checkGauge(t, 0)
	for _, c := range []struct{ method, path string }{{http.MethodGet, list}, {http.MethodPost, list}, {http.MethodGet, version}} {
		if rec := serve(t, h, c.method, c.path, "{}"); rec.Code != http.StatusNotFound {
			t.Errorf("%s %s once Disabled: %d, want 404", c.method, c.path, rec.Code)
		}
	}
}

func checkGauge(t *testing.T, want float64) {
	t.Helper()
	got, err := testutil.GetGaugeMetricValue(servedGauge.WithLabelValues(svmGVR.Group, svmGVR.Resource, testGate))
	if err != nil || got != want {
		t.Errorf("apiserver_feature_lifecycle_served_while_turning_off of %s is %v (%v), want %v", svmGVR, got, err, want)
	}
}
