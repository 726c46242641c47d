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
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"k8s.io/kubernetes/pkg/features/inventory"
)

// openAPIDir holds the tree's static OpenAPI documents, as kube-apiserver
// serves them with every API enabled.
const openAPIDir = "../../../api/openapi-spec"

const (
	maxUnavailable = featuregate.Feature("MaxUnavailableStatefulSet")
	rollingUpdate  = "io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy"
)

func readJSON(t testing.TB, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

func fields(t testing.TB) []Field {
	t.Helper()
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	return FieldsOf(inv)
}

func readV3(t testing.TB, gv string) *spec3.OpenAPI {
	doc := &spec3.OpenAPI{}
	readJSON(t, filepath.Join(openAPIDir, "v3", strings.ReplaceAll(gv, "/", "__")+"_openapi.json"), doc)
	return doc
}

// TestV3HidesAndShows: a gate hidden takes its field out of the schema
// holding it, leaving the document it was made from as it was; shown, the
// field carries its Feature and state.
func TestV3HidesAndShows(t *testing.T) {
	doc := readV3(t, "apis/apps/v1")
	v := NewV3(doc, fields(t))
	if !slices.Contains(v.Gates(), maxUnavailable) {
		t.Fatalf("apps/v1 holds the fields of %v, not %s", v.Gates(), maxUnavailable)
	}
	hidden := v.Apply(Visibilities{maxUnavailable: {Hidden: true, Feature: "kube-system/max-unavailable-stateful-set", State: "Disabled"}})
	if _, ok := hidden.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]; ok {
		t.Errorf("maxUnavailable is served while its gate is hidden")
	}
	if _, ok := hidden.Components.Schemas[rollingUpdate].Properties["partition"]; !ok {
		t.Errorf("partition, not gated, is gone")
	}
	if _, ok := doc.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]; !ok {
		t.Fatalf("the document as built lost maxUnavailable")
	}
	if hidden.Components.Schemas["io.k8s.api.apps.v1.Deployment"] != doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"] {
		t.Errorf("a schema holding no hidden field was copied")
	}

	shown := v.Apply(Visibilities{maxUnavailable: {Feature: "kube-system/max-unavailable-stateful-set", State: "Enabled"}})
	prop := shown.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]
	if f, _ := prop.Extensions.GetString(FeatureExtension); f != "kube-system/max-unavailable-stateful-set" {
		t.Errorf("%s = %q", FeatureExtension, f)
	}
	if s, _ := prop.Extensions.GetString(FeatureStateExtension); s != "Enabled" {
		t.Errorf("%s = %q", FeatureStateExtension, s)
	}
	if _, ok := doc.Components.Schemas[rollingUpdate].Properties["maxUnavailable"].Extensions[FeatureExtension]; ok {
		t.Errorf("the document as built gained an extension")
	}
	// Served as JSON, the field is gone.
	b, err := json.Marshal(hidden)
	if err != nil {
		t.Fatal(err)
	}
	again := &spec3.OpenAPI{}
	if err := json.Unmarshal(b, again); err != nil {
		t.Fatal(err)
	}
	if _, ok := again.Components.Schemas[rollingUpdate].Properties["maxUnavailable"]; ok {
		t.Errorf("maxUnavailable is in the served JSON")
	}
}

// TestV2HidesAndShows is TestV3HidesAndShows for the v2 document.
func TestV2HidesAndShows(t *testing.T) {
	doc := &spec.Swagger{}
	readJSON(t, filepath.Join(openAPIDir, "swagger.json"), doc)
	v := NewV2(doc, fields(t))
	hidden := v.Apply(Visibilities{maxUnavailable: {Hidden: true}})
	if _, ok := hidden.Definitions[rollingUpdate].Properties["maxUnavailable"]; ok {
		t.Errorf("maxUnavailable is served while its gate is hidden")
	}
	if _, ok := doc.Definitions[rollingUpdate].Properties["maxUnavailable"]; !ok {
		t.Fatalf("the document as built lost maxUnavailable")
	}
	if got := v.Apply(Visibilities{}); len(got.Definitions[rollingUpdate].Properties["maxUnavailable"].Extensions) != 0 {
		t.Errorf("a gate without a Feature got extensions")
	}
}

// TestEveryFieldFound: every inventoried field is found in a served
// document, v2 and v3, so that hiding it can work.
func TestEveryFieldFound(t *testing.T) {
	all := fields(t)
	doc := &spec.Swagger{}
	readJSON(t, filepath.Join(openAPIDir, "swagger.json"), doc)
	v2 := NewV2(doc, all)
	entries, err := os.ReadDir(filepath.Join(openAPIDir, "v3"))
	if err != nil {
		t.Fatal(err)
	}
	var v3 []target
	for _, e := range entries {
		gv := strings.ReplaceAll(strings.TrimSuffix(e.Name(), "_openapi.json"), "__", "/")
		v3 = append(v3, NewV3(readV3(t, gv), all).targets...)
	}
	for name, targets := range map[string][]target{"v2": v2.targets, "v3": v3} {
		var missing []string
		for _, f := range all {
			if !slices.ContainsFunc(targets, func(t target) bool {
				return t.gate == f.Gate && t.property == f.Path[len(f.Path)-1].Field
			}) {
				missing = append(missing, string(f.Gate)+" "+f.Resource.String()+" "+f.Path.String())
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: %d of %d fields are not found:\n%s", name, len(missing), len(all), strings.Join(missing, "\n"))
		}
		t.Logf("%s: %d fields, %d schema properties", name, len(all), len(targets))
	}
}

// TestEnumValues: a gate's refused values leave its field's enum, and a
// field whose strategy keeps some values keeps only those.
func TestEnumValues(t *testing.T) {
	prop := spec.Schema{SchemaProps: spec.SchemaProps{Enum: []interface{}{"A", "B", "C"}}}
	got := withEnum(prop, func(e interface{}) bool { return e != "B" })
	if !slices.Equal(got.Enum, []interface{}{"A", "C"}) || len(prop.Enum) != 3 {
		t.Errorf("enum %v (original %v)", got.Enum, prop.Enum)
	}
	list := spec.Schema{SchemaProps: spec.SchemaProps{Items: &spec.SchemaOrArray{Schema: &prop}}}
	got = withEnum(list, func(e interface{}) bool { return e == "C" })
	if !slices.Equal(got.Items.Schema.Enum, []interface{}{"C"}) || len(prop.Enum) != 3 {
		t.Errorf("items enum %v (original %v)", got.Items.Schema.Enum, prop.Enum)
	}
}

// TestRecorder: documents are grouped by the longest web service root
// holding all their paths, others are left out, and nothing is kept once
// they are taken.
func TestRecorder(t *testing.T) {
	doc := func(paths ...string) *spec3.OpenAPI {
		d := &spec3.OpenAPI{Paths: &spec3.Paths{Paths: map[string]*spec3.Path{}}}
		for _, p := range paths {
			d.Paths.Paths[p] = &spec3.Path{}
		}
		return d
	}
	r := NewRecorder(nil)
	apps, group, other := doc("/apis/apps/v1/", "/apis/apps/v1/namespaces/{namespace}/statefulsets"), doc("/apis/apps/"), doc("/apis/apiextensions.k8s.io/v1/")
	for _, d := range []*spec3.OpenAPI{apps, group, other} {
		if got, err := r.PostProcessSpec(d); err != nil || got != d {
			t.Fatalf("PostProcessSpec: %v %v", got, err)
		}
	}
	got := r.ByGroupVersion([]string{"/apis/apps", "/apis/apps/v1", "/api/v1"})
	if len(got) != 2 || got["apis/apps/v1"] != apps || got["apis/apps"] != group {
		t.Errorf("by group-version: %v", got)
	}
	_, _ = r.PostProcessSpec(doc("/apis/apps/v1/"))
	if got := r.ByGroupVersion([]string{"/apis/apps/v1"}); len(got) != 0 {
		t.Errorf("documents built after they were taken are kept: %v", got)
	}
}
