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

package endpoints

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/registry/rest"
)

// conditionalStorage is a SimpleRESTStorage served while served is true.
type conditionalStorage struct {
	*SimpleRESTStorage
	served   atomic.Bool
	mu       sync.Mutex
	handlers []func()
}

var _ rest.ConditionallyServed = &conditionalStorage{}

func (c *conditionalStorage) Served() bool { return c.served.Load() }

func (c *conditionalStorage) AddServedHandler(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers = append(c.handlers, f)
}

func (c *conditionalStorage) set(served bool) {
	c.served.Store(served)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.handlers {
		f()
	}
}

func get(t *testing.T, server *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(server.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// listed returns the names the version discovery document at path lists.
func listed(t *testing.T, server *httptest.Server, path string) []string {
	t.Helper()
	code, body := get(t, server, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	list := &metav1.APIResourceList{}
	if err := json.Unmarshal([]byte(body), list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list.APIResources {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// TestConditionallyServedResource checks that a conditionally served
// resource and its subresource answer 404, and are left out of the version
// discovery document, while not served, next to a resource always served.
func TestConditionallyServedResource(t *testing.T) {
	conditional := &conditionalStorage{SimpleRESTStorage: &SimpleRESTStorage{}}
	server := httptest.NewServer(handle(map[string]rest.Storage{
		"simple":          &SimpleRESTStorage{},
		"conditional":     conditional,
		"conditional/sub": &SimpleRESTStorage{},
	}))
	defer server.Close()
	version := "/" + prefix + "/" + testGroupVersion.Group + "/" + testGroupVersion.Version
	resource := version + "/namespaces/default/conditional"

	for _, path := range []string{resource, resource + "/id", resource + "/id/sub"} {
		if code, body := get(t, server, path); code != http.StatusNotFound || !strings.Contains(body, `"reason":"NotFound"`) {
			t.Errorf("GET %s while not served: %d %s, want a 404 Status", path, code, body)
		}
	}
	if code, _ := get(t, server, version+"/namespaces/default/simple"); code != http.StatusOK {
		t.Errorf("a resource always served answers %d", code)
	}
	if got := listed(t, server, version); !slices.Equal(got, []string{"simple"}) {
		t.Errorf("version discovery while not served: %v", got)
	}

	conditional.set(true)
	for _, path := range []string{resource, resource + "/id", resource + "/id/sub"} {
		if code, body := get(t, server, path); code != http.StatusOK {
			t.Errorf("GET %s while served: %d %s", path, code, body)
		}
	}
	if got := listed(t, server, version); !slices.Equal(got, []string{"conditional", "conditional/sub", "simple"}) {
		t.Errorf("version discovery while served: %v", got)
	}

	conditional.set(false)
	if code, _ := get(t, server, resource); code != http.StatusNotFound {
		t.Errorf("GET %s once no longer served: %d", resource, code)
	}
}

// TestConditionallyServedGroupVersion checks that a group-version whose
// only resource is conditionally served answers 404, its version discovery
// document included, while the resource is not served.
func TestConditionallyServedGroupVersion(t *testing.T) {
	conditional := &conditionalStorage{SimpleRESTStorage: &SimpleRESTStorage{}}
	server := httptest.NewServer(handle(map[string]rest.Storage{"conditional": conditional}))
	defer server.Close()
	version := "/" + prefix + "/" + testGroupVersion.Group + "/" + testGroupVersion.Version
	for _, path := range []string{version, version + "/namespaces/default/conditional"} {
		if code, body := get(t, server, path); code != http.StatusNotFound {
			t.Errorf("GET %s while nothing is served: %d %s", path, code, body)
		}
	}
	conditional.set(true)
	if got := listed(t, server, version); !slices.Equal(got, []string{"conditional"}) {
		t.Errorf("version discovery while served: %v", got)
	}
}

// TestAPIGroupVersionServed checks Served, ServedDiscovery and
// AddServedHandler, and that storage not conditionally served is left
// alone.
func TestAPIGroupVersionServed(t *testing.T) {
	conditional := &conditionalStorage{SimpleRESTStorage: &SimpleRESTStorage{}}
	g := &APIGroupVersion{Storage: map[string]rest.Storage{"conditional": conditional, "conditional/status": &SimpleRESTStorage{}}}
	resources := []apidiscoveryv2.APIResourceDiscovery{{Resource: "conditional",
		Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status"}}}}
	if g.Served() || len(g.ServedDiscovery(resources)) != 0 {
		t.Errorf("not served: Served %t, ServedDiscovery %v", g.Served(), g.ServedDiscovery(resources))
	}
	called := 0
	if !g.AddServedHandler(func() { called++ }) {
		t.Fatal("AddServedHandler found no conditionally served storage")
	}
	conditional.set(true)
	if called != 1 || !g.Served() || len(g.ServedDiscovery(resources)) != 1 || len(g.ServedDiscovery(resources)[0].Subresources) != 1 {
		t.Errorf("served: handler called %d times, Served %t, ServedDiscovery %v", called, g.Served(), g.ServedDiscovery(resources))
	}

	plain := &APIGroupVersion{Storage: map[string]rest.Storage{"simple": &SimpleRESTStorage{}}}
	if plain.AddServedHandler(func() {}) || !plain.Served() || len(plain.ServedDiscovery(resources)) != 1 {
		t.Error("a group-version without conditionally served storage is not served as installed")
	}
	if _, ok := plain.resourceLister(nil).(staticLister); !ok {
		t.Error("a group-version without conditionally served storage does not list its resources statically")
	}
}
