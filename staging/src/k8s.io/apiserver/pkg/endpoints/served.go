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
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/registry/rest"
)

// This file serves storage that implements rest.ConditionallyServed: its
// routes answer 404 while it is not served, and discovery leaves it out.

// conditionallyServed returns the rest.ConditionallyServed that decide
// whether the storage at path (a resource or resource/subresource) of
// storage is served: its own and its parent resource's.
func conditionallyServed(storage map[string]rest.Storage, path string) []rest.ConditionallyServed {
	var out []rest.ConditionallyServed
	if c, ok := storage[path].(rest.ConditionallyServed); ok {
		out = append(out, c)
	}
	if resource, _, found := strings.Cut(path, "/"); found {
		if c, ok := storage[resource].(rest.ConditionallyServed); ok {
			out = append(out, c)
		}
	}
	return out
}

// servedNow reports whether every one of cs says it is served.
func servedNow(cs []rest.ConditionallyServed) bool {
	for _, c := range cs {
		if !c.Served() {
			return false
		}
	}
	return true
}

// notServedRouteFilter answers 404 while served returns false, as the
// server does for a path of a served group-version that has no route (see
// the generic apiserver's go-restful service error handler).
func notServedRouteFilter(serializer runtime.NegotiatedSerializer, served func() bool) restful.FilterFunction {
	return func(req *restful.Request, resp *restful.Response, chain *restful.FilterChain) {
		if served() {
			chain.ProcessFilter(req, resp)
			return
		}
		err := apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "404: Page Not Found", 0, false)
		responsewriters.ErrorNegotiated(err, serializer, schema.GroupVersion{}, resp.ResponseWriter, req.Request)
	}
}

// notServedGroupVersionFilter answers 404 while served returns false, as the
// server does for a group-version it does not serve at all.
func notServedGroupVersionFilter(served func() bool) restful.FilterFunction {
	return func(req *restful.Request, resp *restful.Response, chain *restful.FilterChain) {
		if served() {
			chain.ProcessFilter(req, resp)
			return
		}
		http.NotFound(resp.ResponseWriter, req.Request)
	}
}

// conditional returns the storages of g that are conditionally served.
func (g *APIGroupVersion) conditional() []rest.ConditionallyServed {
	var out []rest.ConditionallyServed
	for _, s := range g.Storage {
		if c, ok := s.(rest.ConditionallyServed); ok {
			out = append(out, c)
		}
	}
	return out
}

// Served reports whether g serves anything now: false only when every
// resource of g is conditionally served (rest.ConditionallyServed) and none
// is served. A group-version that is not served answers 404 and is left out
// of discovery.
func (g *APIGroupVersion) Served() bool {
	for path, s := range g.Storage {
		if strings.Contains(path, "/") {
			continue
		}
		c, ok := s.(rest.ConditionallyServed)
		if !ok || c.Served() {
			return true
		}
	}
	return false
}

// AddServedHandler registers f to be called after one of g's conditionally
// served storages may have changed whether it is served, and reports
// whether g has any such storage (if not, f is never called).
func (g *APIGroupVersion) AddServedHandler(f func()) bool {
	cs := g.conditional()
	for _, c := range cs {
		c.AddServedHandler(f)
	}
	return len(cs) > 0
}

// ServedDiscovery returns the entries of resources (g's aggregated
// discovery, as InstallREST returns it) that are served now, with only their
// served subresources.
func (g *APIGroupVersion) ServedDiscovery(resources []apidiscoveryv2.APIResourceDiscovery) []apidiscoveryv2.APIResourceDiscovery {
	if len(g.conditional()) == 0 {
		return resources
	}
	out := make([]apidiscoveryv2.APIResourceDiscovery, 0, len(resources))
	for _, r := range resources {
		if !servedNow(conditionallyServed(g.Storage, r.Resource)) {
			continue
		}
		subresources := make([]apidiscoveryv2.APISubresourceDiscovery, 0, len(r.Subresources))
		for _, sub := range r.Subresources {
			if servedNow(conditionallyServed(g.Storage, r.Resource+"/"+sub.Subresource)) {
				subresources = append(subresources, sub)
			}
		}
		if len(r.Subresources) > 0 {
			r.Subresources = subresources
		}
		out = append(out, r)
	}
	return out
}

// servedLister lists the resources of a group-version that are served now.
type servedLister struct {
	storage map[string]rest.Storage
	list    []metav1.APIResource
}

// ListAPIResources returns the resources and subresources served now.
func (s servedLister) ListAPIResources() []metav1.APIResource {
	out := make([]metav1.APIResource, 0, len(s.list))
	for _, r := range s.list {
		if servedNow(conditionallyServed(s.storage, r.Name)) {
			out = append(out, r)
		}
	}
	return out
}

// resourceLister returns the lister of the version discovery document of g:
// every resource in list, or, when some of g's storage is conditionally
// served, those served at the time of the request.
func (g *APIGroupVersion) resourceLister(list []metav1.APIResource) discovery.APIResourceLister {
	if len(g.conditional()) == 0 {
		return staticLister{list}
	}
	return servedLister{storage: g.Storage, list: list}
}

// addServedFilters makes ws answer 404 while g serves nothing, when g has
// conditionally served storage.
func (g *APIGroupVersion) addServedFilters(ws *restful.WebService) {
	if len(g.conditional()) > 0 {
		ws.Filter(notServedGroupVersionFilter(g.Served))
	}
}

// addServedRouteFilter makes route answer 404 while the storage at path is
// not served, when it or its parent resource is conditionally served.
func (a *APIInstaller) addServedRouteFilter(route *restful.RouteBuilder, path string) {
	if cs := conditionallyServed(a.group.Storage, path); len(cs) > 0 {
		route.Filter(notServedRouteFilter(a.group.Serializer, func() bool { return servedNow(cs) }))
	}
}
