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
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
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
	"k8s.io/component-base/featuregate"
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

// TestServeFromStart: the recorder hands the server, in place of its
// documents holding gated fields, the documents as the first Visibilities
// show them, keeps them as built, hands back another server's document as
// it is, and asks for the Visibilities once; a publisher told what was
// served republishes only what changed since.
func TestServeFromStart(t *testing.T) {
	apps, core := readV3(t, "apis/apps/v1"), readV3(t, "api/v1")
	apps.Components.Schemas[rollingUpdate].Extensions = spec.Extensions{"x-kubernetes-group-version-kind": "as built"}
	other := &spec3.OpenAPI{Paths: &spec3.Paths{Paths: map[string]*spec3.Path{"/apis/apiextensions.k8s.io/v1/": {}}}}
	roots := []string{"/apis/apps/v1", "/api/v1"}
	hidden := Visibilities{maxUnavailable: {Hidden: true}}
	asked := 0
	r := NewRecorder(nil)
	r.ServeFromStart(fields(t), func() []string { return roots }, func(gates []featuregate.Feature) Visibilities {
		asked++
		if !slices.Contains(gates, maxUnavailable) {
			t.Errorf("asked for the Visibilities of %v, without %s", gates, maxUnavailable)
		}
		return hidden
	})
	service := handler3.NewOpenAPIService()
	m := mux.NewPathRecorderMux("test")
	if err := service.RegisterOpenAPIV3VersionedService("/openapi/v3", m); err != nil {
		t.Fatal(err)
	}
	servedDocs := map[string]*spec3.OpenAPI{}
	for _, gv := range []string{"apis/apps/v1", "api/v1"} {
		doc, err := r.PostProcessSpec(map[string]*spec3.OpenAPI{"apis/apps/v1": apps, "api/v1": core}[gv])
		if err != nil {
			t.Fatal(err)
		}
		servedDocs[gv] = doc
		service.UpdateGroupVersion(gv, doc)
	}
	if got, err := r.PostProcessSpec(other); err != nil || got != other {
		t.Errorf("another server's document: %v, %v; want it as it is", got, err)
	}
	if asked != 1 {
		t.Errorf("Visibilities asked for %d times, want 1", asked)
	}
	if !maps.Equal(r.Shown(), hidden) {
		t.Errorf("shown %v, want %v", r.Shown(), hidden)
	}
	if _, ok := servedDocs["apis/apps/v1"].Components.Schemas[rollingUpdate].Properties["maxUnavailable"]; ok {
		t.Errorf("apps/v1 is served with maxUnavailable, hidden from the start")
	}
	// Extensions are shared with the documents kept: kube-apiserver
	// narrows x-kubernetes-group-version-kind on what PostProcessSpec
	// returned, and the documents republished later must have it narrowed
	// too.
	servedSchema := servedDocs["apis/apps/v1"].Components.Schemas[rollingUpdate]
	if servedSchema == apps.Components.Schemas[rollingUpdate] {
		t.Fatalf("%s is served as built, with maxUnavailable hidden", rollingUpdate)
	}
	servedSchema.Extensions["x-kubernetes-group-version-kind"] = "narrowed"
	if got := apps.Components.Schemas[rollingUpdate].Extensions["x-kubernetes-group-version-kind"]; got != "narrowed" {
		t.Errorf("a change to the served document's extensions does not reach the one kept: %v", got)
	}
	kept := r.ByGroupVersion(roots)
	if len(kept) != 2 || kept["apis/apps/v1"] != apps || kept["api/v1"] != core {
		t.Fatalf("kept %v, want the documents as built", kept)
	}
	if _, ok := apps.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]; !ok {
		t.Errorf("the document kept lost maxUnavailable")
	}

	p := NewPublisher(fields(t), nil, "kube-system", nil, nil, service, kept)
	p.Served(r.Shown())
	ctx := context.Background()
	before := served(t, m)
	p.Publish(ctx, hidden)
	if after := served(t, m); !maps.Equal(before, after) {
		t.Errorf("republished what was served from the start: %v -> %v", before, after)
	}
	p.Publish(ctx, Visibilities{maxUnavailable: {}})
	after := served(t, m)
	if after["apis/apps/v1"] == before["apis/apps/v1"] {
		t.Errorf("apps/v1 kept its hash with maxUnavailable shown again")
	}
	if after["api/v1"] != before["api/v1"] {
		t.Errorf("api/v1, holding no field of the gate, was republished")
	}
}

// TestVisibilitiesOf: a gate's fields are hidden while the server's gate
// is off, or its Feature is Disabled or asked to be; shown fields carry
// their Feature and its state.
func TestVisibilitiesOf(t *testing.T) {
	feature := func(state featuresv1alpha1.FeatureState, desired featuresv1alpha1.FeatureDesiredState) *featuresv1alpha1.Feature {
		return &featuresv1alpha1.Feature{Spec: featuresv1alpha1.FeatureSpec{DesiredState: desired}, Status: featuresv1alpha1.FeatureStatus{State: state}}
	}
	name := "kube-system/" + featuresv1alpha1.FeatureName(string(maxUnavailable))
	for _, tc := range []struct {
		name    string
		gateOn  bool
		feature *featuresv1alpha1.Feature
		want    Visibility
	}{
		{name: "no Feature, gate on", gateOn: true, want: Visibility{}},
		{name: "no Feature, gate off", want: Visibility{Hidden: true}},
		{name: "Enabled", gateOn: true, feature: feature(featuresv1alpha1.FeatureStateEnabled, ""), want: Visibility{Feature: name, State: "Enabled"}},
		{name: "Enabled, gate off", feature: feature(featuresv1alpha1.FeatureStateEnabled, ""), want: Visibility{Hidden: true, Feature: name, State: "Enabled"}},
		{name: "Disabled", gateOn: true, feature: feature(featuresv1alpha1.FeatureStateDisabled, ""), want: Visibility{Hidden: true, Feature: name, State: "Disabled"}},
		{name: "asked to be Disabled", gateOn: true, feature: feature(featuresv1alpha1.FeatureStateDisabling, featuresv1alpha1.FeatureDesiredStateDisabled),
			want: Visibility{Hidden: true, Feature: name, State: "Disabling"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := utilfeature.DefaultFeatureGate.DeepCopy()
			if err := gate.SetFromMap(map[string]bool{string(maxUnavailable): tc.gateOn}); err != nil {
				t.Fatal(err)
			}
			var get func(string) (*featuresv1alpha1.Feature, error)
			if tc.feature != nil {
				get = func(n string) (*featuresv1alpha1.Feature, error) {
					if n != featuresv1alpha1.FeatureName(string(maxUnavailable)) {
						t.Errorf("asked for Feature %q", n)
					}
					return tc.feature, nil
				}
			}
			got := VisibilitiesOf([]featuregate.Feature{maxUnavailable, maxUnavailable}, gate, "kube-system", get)
			if len(got) != 1 || got[maxUnavailable] != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
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
