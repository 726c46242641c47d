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

package servedopenapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/server/mux"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	_ "k8s.io/kubernetes/pkg/features" // kube-apiserver's gates
)

// served returns the /openapi/v3 discovery of mux: each group-version's
// URL, with its hash.
func served(t *testing.T, h http.Handler) map[string]string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
	var d handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	out := map[string]string{}
	for gv, p := range d.Paths {
		out[gv] = p.ServerRelativeURL
	}
	return out
}

// TestPublish: the documents holding a gate whose visibility changed are
// republished, with a new hash, and no others; publishing the same
// visibilities again changes nothing.
func TestPublish(t *testing.T) {
	apps, core := readV3(t, "apis/apps/v1"), readV3(t, "api/v1")
	service := handler3.NewOpenAPIService()
	m := mux.NewPathRecorderMux("test")
	if err := service.RegisterOpenAPIV3VersionedService("/openapi/v3", m); err != nil {
		t.Fatal(err)
	}
	service.UpdateGroupVersion("apis/apps/v1", apps)
	service.UpdateGroupVersion("api/v1", core)
	p := NewPublisher(fields(t), nil, "kube-system", nil, nil, service, map[string]*spec3.OpenAPI{"apis/apps/v1": apps, "api/v1": core})
	if got := strings.Join(p.GroupVersions(), " "); got != "api/v1 apis/apps/v1" {
		t.Fatalf("group-versions with gated fields: %s", got)
	}
	ctx := context.Background()
	shown := Visibilities{maxUnavailable: {}}
	p.Publish(ctx, shown)
	first := served(t, m)

	p.Publish(ctx, Visibilities{maxUnavailable: {Hidden: true}})
	hidden := served(t, m)
	if hidden["apis/apps/v1"] == first["apis/apps/v1"] {
		t.Errorf("apps/v1 kept its hash with maxUnavailable hidden: %s", hidden["apis/apps/v1"])
	}
	if hidden["api/v1"] != first["api/v1"] {
		t.Errorf("api/v1, holding no field of the gate, was republished: %s -> %s", first["api/v1"], hidden["api/v1"])
	}
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, hidden["apis/apps/v1"], nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", hidden["apis/apps/v1"], rec.Code)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]; ok {
		t.Errorf("the served apps/v1 holds maxUnavailable")
	}

	p.Publish(ctx, Visibilities{maxUnavailable: {Hidden: true}})
	if again := served(t, m); again["apis/apps/v1"] != hidden["apis/apps/v1"] {
		t.Errorf("the same visibilities republished apps/v1: %s -> %s", hidden["apis/apps/v1"], again["apis/apps/v1"])
	}
	p.Publish(ctx, shown)
	if back := served(t, m); back["apis/apps/v1"] != first["apis/apps/v1"] {
		t.Errorf("shown again, apps/v1 is served at %s, not %s", back["apis/apps/v1"], first["apis/apps/v1"])
	}
}

// TestPublishV2WhenAskedFor: the v2 document is made when /openapi/v2 is
// asked for, as the visibilities of its last publication show it, and the
// document as built is left as it was.
func TestPublishV2WhenAskedFor(t *testing.T) {
	doc := &spec.Swagger{}
	readJSON(t, filepath.Join(openAPIDir, "swagger.json"), doc)
	service := handler.NewOpenAPIService(doc)
	m := mux.NewPathRecorderMux("test")
	service.RegisterOpenAPIVersionedService("/openapi/v2", m)
	servedV2 := func() *spec.Swagger {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
		req.Header.Set("Accept", "application/json")
		m.ServeHTTP(rec, req)
		out := &spec.Swagger{}
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("/openapi/v2: %d %v", rec.Code, err)
		}
		return out
	}
	p := NewPublisher(fields(t), nil, "kube-system", service, doc, nil, nil)
	ctx := context.Background()
	p.Publish(ctx, Visibilities{maxUnavailable: {Hidden: true}})
	p.Publish(ctx, Visibilities{maxUnavailable: {Feature: "kube-system/maxunavailablestatefulset", State: "Enabled"}})
	prop, ok := servedV2().Definitions[rollingUpdate].Properties["maxUnavailable"]
	if !ok {
		t.Fatalf("/openapi/v2 lacks maxUnavailable after it was shown again")
	}
	if got, _ := prop.Extensions.GetString(FeatureStateExtension); got != "Enabled" {
		t.Errorf("/openapi/v2 gives maxUnavailable the state %q, want Enabled", got)
	}
	p.Publish(ctx, Visibilities{maxUnavailable: {Hidden: true}})
	if _, ok := servedV2().Definitions[rollingUpdate].Properties["maxUnavailable"]; ok {
		t.Errorf("/openapi/v2 holds maxUnavailable while it is hidden")
	}
	if _, ok := doc.Definitions[rollingUpdate].Properties["maxUnavailable"]; !ok {
		t.Errorf("the document as built lost maxUnavailable")
	}
}

// run runs p on an informer of a fake client's Features until ctx is
// done, as the server's shared informers would; the channel it returns is
// closed once Run returned.
func run(ctx context.Context, p *Publisher, features ...runtime.Object) <-chan struct{} {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(features...), 0)
	informer := factory.Features().V1alpha1().Features()
	informer.Informer()
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx, informer)
	}()
	factory.Start(ctx.Done())
	return done
}

// TestRunStopsWithItsContext: Run returns once its context is done, its
// workqueue shut down (upstream's integration framework finds the goroutines
// of a publisher that outlives its server).
func TestRunStopsWithItsContext(t *testing.T) {
	apps := readV3(t, "apis/apps/v1")
	service := handler3.NewOpenAPIService()
	m := mux.NewPathRecorderMux("test")
	if err := service.RegisterOpenAPIV3VersionedService("/openapi/v3", m); err != nil {
		t.Fatal(err)
	}
	service.UpdateGroupVersion("apis/apps/v1", apps)
	p := NewPublisher(fields(t), nil, "kube-system", nil, nil, service, map[string]*spec3.OpenAPI{"apis/apps/v1": apps})
	ctx, cancel := context.WithCancel(t.Context())
	off := &featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: featuresv1alpha1.FeatureName(string(maxUnavailable))},
		Spec: featuresv1alpha1.FeatureSpec{Gate: string(maxUnavailable)}, Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabled}}
	done := run(ctx, p, off)
	// Into the loop: the first publication hides the fields of the Feature
	// that is Disabled, which gives apps/v1 a new hash.
	built := served(t, m)["apis/apps/v1"]
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return served(t, m)["apis/apps/v1"] != built, nil
	}); err != nil {
		t.Fatalf("no first publication: %v", err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after its context was cancelled")
	}
}

// TestRunRepublishesWhenTheGateChanges: once a gate of the server changes
// while the publisher runs (a Dynamic gate following its Feature), the
// publisher republishes at once when told, without an event of the Feature.
func TestRunRepublishesWhenTheGateChanges(t *testing.T) {
	apps := readV3(t, "apis/apps/v1")
	service := handler3.NewOpenAPIService()
	m := mux.NewPathRecorderMux("test")
	if err := service.RegisterOpenAPIV3VersionedService("/openapi/v3", m); err != nil {
		t.Fatal(err)
	}
	service.UpdateGroupVersion("apis/apps/v1", apps)
	// kube-apiserver's gates (the inventory's), on by default.
	gate := utilfeature.DefaultFeatureGate.DeepCopy()
	if err := gate.SetFromMap(map[string]bool{string(maxUnavailable): true}); err != nil {
		t.Fatal(err)
	}
	p := NewPublisher(fields(t), gate, "kube-system", nil, nil, service, map[string]*spec3.OpenAPI{"apis/apps/v1": apps})
	ctx, cancel := context.WithCancel(t.Context())
	done := run(ctx, p)
	defer func() {
		cancel()
		<-done
	}()
	// servedField says whether the served apps/v1 holds maxUnavailable.
	servedField := func() bool {
		rec := httptest.NewRecorder()
		// Without a hash: the document served now (a hash read first can
		// be outdated by a publication in between).
		m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3/apis/apps/v1", nil))
		var doc spec3.OpenAPI
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		_, ok := doc.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]
		return ok
	}
	waitFor := func(want bool, within time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if servedField() == want {
				return
			}
		}
		t.Fatalf("maxUnavailable served: %t after %v, want %t", !want, within, want)
	}
	waitFor(true, 10*time.Second) // the first publication
	if err := gate.SetFromMap(map[string]bool{string(maxUnavailable): false}); err != nil {
		t.Fatal(err)
	}
	p.GateChanged()
	waitFor(false, 2*time.Second)
	if err := gate.SetFromMap(map[string]bool{string(maxUnavailable): true}); err != nil {
		t.Fatal(err)
	}
	p.GateChanged()
	waitFor(true, 2*time.Second)
}
