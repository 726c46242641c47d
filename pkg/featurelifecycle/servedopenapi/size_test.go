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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// staticV3 returns the tree's static v3 documents by group-version path.
func staticV3(t testing.TB) map[string]*spec3.OpenAPI {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(openAPIDir, "v3"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*spec3.OpenAPI{}
	for _, e := range entries {
		gv := strings.ReplaceAll(strings.TrimSuffix(e.Name(), "_openapi.json"), "__", "/")
		out[gv] = readV3(t, gv)
	}
	return out
}

// everyGate returns vis for every gate the documents hold, each gate's
// Feature named as the server flow names it.
func everyGate(docs map[string]*V3, vis func(name string) Visibility) Visibilities {
	out := Visibilities{}
	for _, d := range docs {
		for _, g := range d.Gates() {
			out[g] = vis("kube-system/" + featuresv1alpha1.FeatureName(string(g)))
		}
	}
	return out
}

func jsonSize(t testing.TB, doc *spec3.OpenAPI) int {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestServedSize: serving every gated field with its Feature and state
// (the longest state, Disabling) makes /openapi/v3 at most 1 % larger in
// all, and no group-version document more than 2 % larger; hiding every
// gate never makes a document larger (a gate of values with no enum, such
// as HPAScaleToZero's minReplicas 0, leaves it as it was).
func TestServedSize(t *testing.T) {
	docs := map[string]*V3{}
	all := fields(t)
	for gv, doc := range staticV3(t) {
		docs[gv] = NewV3(doc, all)
	}
	shown := everyGate(docs, func(f string) Visibility {
		return Visibility{Feature: f, State: string(featuresv1alpha1.FeatureStateDisabling)}
	})
	hidden := everyGate(docs, func(f string) Visibility { return Visibility{Hidden: true, Feature: f, State: "Disabled"} })
	var built, served, pruned int
	for gv, d := range docs {
		b, s, h := jsonSize(t, d.original), jsonSize(t, d.Apply(shown)), jsonSize(t, d.Apply(hidden))
		built, served, pruned = built+b, served+s, pruned+h
		if !d.Gated() {
			if s != b || h != b {
				t.Errorf("%s holds no gated field, but is served at %d/%d bytes, not %d", gv, s, h, b)
			}
			continue
		}
		growth := float64(s-b) / float64(b)
		t.Logf("%s: %d bytes as built, %d with extensions (%+.2f%%), %d with every gate hidden (%+.2f%%)",
			gv, b, s, 100*growth, h, 100*float64(h-b)/float64(b))
		if growth > 0.02 {
			t.Errorf("%s grows %.2f%% with the Feature extensions (at most 2%%)", gv, 100*growth)
		}
		if h > b {
			t.Errorf("%s is larger with every gate hidden: %d > %d bytes", gv, h, b)
		}
	}
	growth := float64(served-built) / float64(built)
	t.Logf("all of /openapi/v3: %d bytes as built, %d with extensions (%+.2f%%), %d with every gate hidden (%+.2f%%)",
		built, served, 100*growth, pruned, 100*float64(pruned-built)/float64(built))
	if growth > 0.01 {
		t.Errorf("/openapi/v3 grows %.2f%% with the Feature extensions (goal at most 1%%)", 100*growth)
	}
}

// BenchmarkRepublish is the CPU cost of republishing one group-version's
// v3 document and serving it once (kube-openapi marshals it on the first
// request). upstream: the document as built, as upstream republishes a
// group-version whose definitions change (a CRD); ours: the same after
// hiding one gate (a Feature turned Disabled), with every other gate shown with
// its Feature and state.
func BenchmarkRepublish(b *testing.B) {
	all := fields(b)
	for _, gv := range []string{"apis/apps/v1", "api/v1"} {
		doc := readV3(b, gv)
		d := NewV3(doc, all)
		docs := map[string]*V3{gv: d}
		vis := everyGate(docs, func(f string) Visibility { return Visibility{Feature: f, State: "Enabled"} })
		gate := d.Gates()[0]
		name := strings.ReplaceAll(gv, "/", "-")
		for _, c := range []struct {
			kind    string
			publish func(i int) *spec3.OpenAPI
		}{
			{"upstream", func(int) *spec3.OpenAPI { return doc }},
			{"ours", func(i int) *spec3.OpenAPI {
				v := vis[gate]
				v.Hidden = i%2 == 0
				vis[gate] = v
				return d.Apply(vis)
			}},
		} {
			b.Run(c.kind+"/"+name, func(b *testing.B) {
				service := handler3.NewOpenAPIService()
				m := mux.NewPathRecorderMux("bench")
				if err := service.RegisterOpenAPIV3VersionedService("/openapi/v3", m); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					service.UpdateGroupVersion(gv, c.publish(i))
					rec := httptest.NewRecorder()
					m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3/"+gv, nil))
					if rec.Code != http.StatusOK {
						b.Fatalf("GET %s: %d", gv, rec.Code)
					}
				}
			})
		}
	}
}
