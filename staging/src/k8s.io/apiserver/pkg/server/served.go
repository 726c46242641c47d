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
	"path"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	genericapi "k8s.io/apiserver/pkg/endpoints"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/klog/v2"
)

// servedGroupVersions keeps discovery in line with the group-versions that
// have conditionally served storage (rest.ConditionallyServed): aggregated
// discovery lists their resources served now, the legacy group list and
// group documents their versions that serve anything, and ListedPaths
// leaves out those that serve nothing. Group-versions without such storage
// are not tracked and discovery lists them as installed.
type servedGroupVersions struct {
	mu       sync.Mutex
	versions map[schema.GroupVersion]*servedGroupVersion
	groups   map[string]*servedAPIGroup
	handlers []func(gv schema.GroupVersion, served bool)
}

// servedGroupVersion is a tracked group-version.
type servedGroupVersion struct {
	prefix  string
	version *genericapi.APIGroupVersion
	// resources is its aggregated discovery with every resource installed.
	resources []apidiscoveryv2.APIResourceDiscovery
	// served is whether it serves anything, as last published.
	served bool
}

// servedAPIGroup is a group with a tracked version.
type servedAPIGroup struct {
	// group lists every version installed.
	group   metav1.APIGroup
	handler *discovery.APIGroupHandler
}

// AddGroupVersionServedHandler registers f, called (in order of
// registration, after discovery was updated) whenever a group-version whose
// resources are all conditionally served (rest.ConditionallyServed) starts
// or stops serving any of them. ListedPaths lists such a group-version only
// while it serves something: f lets a server that registers what
// ListedPaths lists (the aggregator's APIServices) follow.
func (s *GenericAPIServer) AddGroupVersionServedHandler(f func(gv schema.GroupVersion, served bool)) {
	s.served.mu.Lock()
	defer s.served.mu.Unlock()
	s.served.handlers = append(s.served.handlers, f)
}

// followServed tracks a group-version installed under apiPrefix if it has
// conditionally served storage: it sets *resources, its aggregated
// discovery, to the resources served now, keeps discovery in line when that
// changes, and returns whether the group-version serves anything now (if
// not, it must not be added to aggregated discovery). Other group-versions
// are left as they are (true).
func (s *GenericAPIServer) followServed(apiPrefix string, version *genericapi.APIGroupVersion, resources *[]apidiscoveryv2.APIResourceDiscovery) bool {
	t := &s.served
	gv := version.GroupVersion
	t.mu.Lock()
	if t.versions == nil {
		t.versions = map[schema.GroupVersion]*servedGroupVersion{}
	}
	entry := &servedGroupVersion{prefix: apiPrefix, version: version, resources: *resources, served: version.Served()}
	t.versions[gv] = entry
	t.mu.Unlock()
	if !version.AddServedHandler(func() { s.servedChanged(gv) }) {
		t.mu.Lock()
		delete(t.versions, gv)
		t.mu.Unlock()
		return true
	}
	*resources = version.ServedDiscovery(*resources)
	klog.V(2).InfoS("Installed a group-version served while its resources say so", "groupVersion", gv.String(), "served", entry.served)
	return entry.served
}

// followServedGroup adds apiGroup to the legacy group list and makes handler
// serve it, with only the versions served now if some are tracked, and keeps
// both in line.
func (s *GenericAPIServer) followServedGroup(apiGroup metav1.APIGroup, handler *discovery.APIGroupHandler) {
	t := &s.served
	t.mu.Lock()
	defer t.mu.Unlock()
	tracked := false
	for _, v := range apiGroup.Versions {
		if _, ok := t.versions[schema.GroupVersion{Group: apiGroup.Name, Version: v.Version}]; ok {
			tracked = true
		}
	}
	if !tracked {
		s.DiscoveryGroupManager.AddGroup(apiGroup)
		return
	}
	if t.groups == nil {
		t.groups = map[string]*servedAPIGroup{}
	}
	t.groups[apiGroup.Name] = &servedAPIGroup{group: apiGroup, handler: handler}
	s.publishGroupLocked(apiGroup.Name)
}

// servedVersionsLocked returns the versions of a tracked group served now.
func (t *servedGroupVersions) servedVersionsLocked(g *servedAPIGroup) []metav1.GroupVersionForDiscovery {
	var out []metav1.GroupVersionForDiscovery
	for _, v := range g.group.Versions {
		if e, ok := t.versions[schema.GroupVersion{Group: g.group.Name, Version: v.Version}]; !ok || e.served {
			out = append(out, v)
		}
	}
	return out
}

// publishGroupLocked lists a tracked group with the versions served now, or
// removes it from the legacy group list and its handler when none is.
func (s *GenericAPIServer) publishGroupLocked(name string) {
	g, ok := s.served.groups[name]
	if !ok {
		return
	}
	versions := s.served.servedVersionsLocked(g)
	if len(versions) == 0 {
		s.DiscoveryGroupManager.RemoveGroup(name)
		g.handler.SetServed(nil)
		return
	}
	group := g.group.DeepCopy()
	group.Versions = versions
	s.DiscoveryGroupManager.AddGroup(*group)
	g.handler.SetServed(group)
}

// servedChanged brings discovery in line with what gv serves now, and tells
// the handlers when gv starts or stops serving anything.
func (s *GenericAPIServer) servedChanged(gv schema.GroupVersion) {
	t := &s.served
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.versions[gv]
	if !ok {
		return
	}
	served := e.version.Served()
	manager := s.AggregatedDiscoveryGroupManager
	if e.prefix != APIGroupPrefix {
		manager = s.AggregatedLegacyDiscoveryGroupManager
	}
	if manager != nil {
		if served {
			manager.AddGroupVersion(gv.Group, apidiscoveryv2.APIVersionDiscovery{
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
				Version:   gv.Version,
				Resources: e.version.ServedDiscovery(e.resources),
			})
		} else {
			manager.RemoveGroupVersion(metav1.GroupVersion{Group: gv.Group, Version: gv.Version})
		}
	}
	if served == e.served {
		return
	}
	e.served = served
	klog.InfoS("A group-version whose resources are served conditionally changed", "groupVersion", gv.String(), "served", served)
	s.publishGroupLocked(gv.Group)
	for _, f := range t.handlers {
		f(gv, served)
	}
}

// servedPaths returns paths without the tracked group-versions that serve
// nothing now, and without the tracked groups none of whose versions does.
func (s *GenericAPIServer) servedPaths(paths []string) []string {
	t := &s.served
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.versions) == 0 {
		return paths
	}
	hidden := sets.New[string]()
	for gv, e := range t.versions {
		if !e.served {
			hidden.Insert(path.Join(e.prefix, gv.Group, gv.Version))
		}
	}
	for name, g := range t.groups {
		if len(t.servedVersionsLocked(g)) == 0 {
			hidden.Insert(path.Join(APIGroupPrefix, name))
		}
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !hidden.Has(p) {
			out = append(out, p)
		}
	}
	return out
}
