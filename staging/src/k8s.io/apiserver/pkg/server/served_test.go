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

package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
)

// conditionalGetter is a testGetterStorage served while served is true.
type conditionalGetter struct {
	testGetterStorage
	served   atomic.Bool
	mu       sync.Mutex
	handlers []func()
}

var _ rest.ConditionallyServed = &conditionalGetter{}

func (c *conditionalGetter) Served() bool { return c.served.Load() }

func (c *conditionalGetter) AddServedHandler(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers = append(c.handlers, f)
}

func (c *conditionalGetter) set(served bool) {
	c.served.Store(served)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.handlers {
		f()
	}
}

func servedTestGroup(versions map[string]map[string]rest.Storage, prioritized ...schema.GroupVersion) *APIGroupInfo {
	scheme := runtime.NewScheme()
	for _, gv := range prioritized {
		scheme.AddKnownTypeWithName(gv.WithKind("Getter"), (&testGetterStorage{}).New())
	}
	scheme.AddKnownTypes(v1GroupVersion, &metav1.Status{})
	metav1.AddToGroupVersion(scheme, v1GroupVersion)
	return &APIGroupInfo{
		PrioritizedVersions:          prioritized,
		VersionedResourcesStorageMap: versions,
		OptionsExternalVersion:       &schema.GroupVersion{Version: "v1"},
		ParameterCodec:               parameterCodec,
		NegotiatedSerializer:         codecs,
		Scheme:                       scheme,
	}
}

// TestConditionallyServedDiscovery checks that discovery follows
// conditionally served storage: a version whose only resource is not
// served is absent from the group's entries, a group with no version served
// is absent, and both come back, with a new ETag, once served; and that the
// handlers of AddGroupVersionServedHandler hear of it.
func TestConditionallyServedDiscovery(t *testing.T) {
	s, _, _ := newMaster(t)
	mixed := schema.GroupVersion{Group: "mixed.example.com", Version: "v1"}
	mixedV2 := schema.GroupVersion{Group: "mixed.example.com", Version: "v2"}
	solo := schema.GroupVersion{Group: "solo.example.com", Version: "v1"}
	inMixed := &conditionalGetter{testGetterStorage: testGetterStorage{Version: "v2"}}
	inSolo := &conditionalGetter{testGetterStorage: testGetterStorage{Version: "v1"}}
	if err := s.InstallAPIGroup(servedTestGroup(map[string]map[string]rest.Storage{
		"v1": {"getters": &testGetterStorage{Version: "v1"}},
		"v2": {"conditionals": inMixed},
	}, mixedV2, mixed)); err != nil {
		t.Fatal(err)
	}
	if err := s.InstallAPIGroup(servedTestGroup(map[string]map[string]rest.Storage{"v1": {"conditionals": inSolo}}, solo)); err != nil {
		t.Fatal(err)
	}
	var heard []string
	s.AddGroupVersionServedHandler(func(gv schema.GroupVersion, served bool) {
		state := "off"
		if served {
			state = "on"
		}
		heard = append(heard, gv.String()+" "+state)
	})
	server := httptest.NewServer(s.Handler)
	defer server.Close()

	check := func(when string, wantAggregated map[string][]string, wantGroups map[string][]string, wantPaths, wantNoPaths []string) string {
		t.Helper()
		// Aggregated discovery.
		req, _ := http.NewRequest(http.MethodGet, server.URL+"/apis", nil)
		req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		list := &apidiscoveryv2.APIGroupDiscoveryList{}
		if err := json.Unmarshal(body, list); err != nil {
			t.Fatalf("%s: aggregated discovery: %v: %s", when, err, body)
		}
		got := map[string][]string{}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					got[g.Name+"/"+v.Version] = append(got[g.Name+"/"+v.Version], r.Resource)
				}
			}
		}
		for gv, want := range wantAggregated {
			if !slices.Equal(got[gv], want) {
				t.Errorf("%s: aggregated discovery lists %v in %s, want %v", when, got[gv], gv, want)
			}
		}
		// Legacy group list and group documents.
		groups := &metav1.APIGroupList{}
		code := getJSON(t, server.URL+"/apis", groups)
		if code != http.StatusOK {
			t.Fatalf("%s: /apis: %d", when, code)
		}
		for name, want := range wantGroups {
			var versions []string
			for _, g := range groups.Groups {
				if g.Name == name {
					for _, v := range g.Versions {
						versions = append(versions, v.Version)
					}
				}
			}
			if !slices.Equal(versions, want) {
				t.Errorf("%s: /apis lists %s with %v, want %v", when, name, versions, want)
			}
			group := &metav1.APIGroup{}
			code := getJSON(t, server.URL+"/apis/"+name, group)
			switch {
			case len(want) == 0 && code != http.StatusNotFound:
				t.Errorf("%s: /apis/%s: %d, want 404", when, name, code)
			case len(want) > 0 && code != http.StatusOK:
				t.Errorf("%s: /apis/%s: %d", when, name, code)
			case len(want) > 0 && len(group.Versions) != len(want):
				t.Errorf("%s: /apis/%s lists %v, want %v", when, name, group.Versions, want)
			}
		}
		paths := s.ListedPaths()
		for _, p := range wantPaths {
			if !slices.Contains(paths, p) {
				t.Errorf("%s: ListedPaths lacks %s", when, p)
			}
		}
		for _, p := range wantNoPaths {
			if slices.Contains(paths, p) {
				t.Errorf("%s: ListedPaths lists %s", when, p)
			}
		}
		return resp.Header.Get("ETag")
	}

	before := check("not served",
		map[string][]string{"mixed.example.com/v1": {"getters"}, "mixed.example.com/v2": nil, "solo.example.com/v1": nil},
		map[string][]string{"mixed.example.com": {"v1"}, "solo.example.com": nil},
		[]string{"/apis/mixed.example.com", "/apis/mixed.example.com/v1"},
		[]string{"/apis/mixed.example.com/v2", "/apis/solo.example.com", "/apis/solo.example.com/v1"})
	if code := getJSON(t, server.URL+"/apis/solo.example.com/v1", &metav1.APIResourceList{}); code != http.StatusNotFound {
		t.Errorf("/apis/solo.example.com/v1 while not served: %d", code)
	}

	inMixed.set(true)
	inSolo.set(true)
	after := check("served",
		map[string][]string{"mixed.example.com/v1": {"getters"}, "mixed.example.com/v2": {"conditionals"}, "solo.example.com/v1": {"conditionals"}},
		map[string][]string{"mixed.example.com": {"v2", "v1"}, "solo.example.com": {"v1"}},
		[]string{"/apis/mixed.example.com/v2", "/apis/solo.example.com", "/apis/solo.example.com/v1"}, nil)
	if before == after || after == "" {
		t.Errorf("aggregated discovery ETag %q -> %q, want a new one", before, after)
	}
	if want := []string{"mixed.example.com/v2 on", "solo.example.com/v1 on"}; !slices.Equal(heard, want) {
		t.Errorf("handlers heard %v, want %v", heard, want)
	}

	inSolo.set(false)
	check("solo no longer served",
		map[string][]string{"mixed.example.com/v2": {"conditionals"}, "solo.example.com/v1": nil},
		map[string][]string{"mixed.example.com": {"v2", "v1"}, "solo.example.com": nil},
		nil, []string{"/apis/solo.example.com", "/apis/solo.example.com/v1"})
	if heard[len(heard)-1] != "solo.example.com/v1 off" {
		t.Errorf("handlers heard %v", heard)
	}
}

func getJSON(t *testing.T, url string, into any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("%s: %v: %s", url, err, body)
		}
	}
	return resp.StatusCode
}
