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

// Package turningoffapi serves, while a Feature is TurningOff, the
// resources its gate serves: upstream stops serving a resource as soon as
// its gate is off, and the objects stored while it was on would stay in
// etcd where nobody can see or delete them. The resource's own registry
// store is installed, read and delete only (ReadDelete), with upstream's
// API installer into a container of its own, and a handler in front of
// kube-apiserver's director sends the resource's requests to it only while
// the Feature is TurningOff; at any other time the request goes on to the
// director, which answers as upstream (404). Requests have passed the
// normal handler chain (authentication, audit, authorization by RBAC,
// priority and fairness) before they get here, and deletes go through the
// apiserver's admission chain, as for every other resource.
package turningoffapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	restful "github.com/emicklei/go-restful/v3"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/endpoints"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	"k8s.io/features/gatename"
)

// Resource is a resource upstream serves only while its gate is on, and
// this apiserver does not serve now.
type Resource struct {
	schema.GroupVersionResource
	// Gates are the gates whose Feature, while TurningOff, keeps it served
	// (any of them).
	Gates []string
	// Storage is its read and delete only storage (ReadDelete).
	Storage rest.Storage
}

// States answers what state the Feature of a gate is in.
type States interface {
	// State returns the state of the Feature of gate, false when it is not
	// known (no Feature, or not synced yet).
	State(gate string) (featuresv1alpha1.FeatureState, bool)
}

// Priority is the aggregated discovery priority of a group-version.
type Priority struct {
	Group, Version int
}

// Config is what a Handler needs.
type Config struct {
	// Resources are the resources to serve while their Feature is
	// TurningOff.
	Resources []Resource
	// Template gives the fields every group-version shares (serializers,
	// scheme, admission, authorizer, limits), as the generic apiserver
	// fills them for its own group-versions; Root, GroupVersion, Storage,
	// AllServedVersionsByResource and TypeConverter are set here.
	Template endpoints.APIGroupVersion
	// Delegate is the handler requests go to when not served here:
	// kube-apiserver's director.
	Delegate http.Handler
	// Upstream reports whether kube-apiserver serves gv itself (other
	// resources of the group-version): then its discovery document is
	// upstream's, and only the aggregated one lists our resources.
	Upstream func(gv schema.GroupVersion) bool
	// Discovery is kube-apiserver's aggregated discovery manager; nil
	// leaves discovery alone.
	Discovery aggregated.ResourceManager
	// Priorities are the aggregated discovery priorities of group-versions
	// upstream does not serve now.
	Priorities map[schema.GroupVersion]Priority
	// States is where the Features' states are read.
	States States
	// Namespace is the Features' namespace, for messages.
	Namespace string
}

// Handler serves the resources of Config while their Feature is
// TurningOff, and hands every other request to the delegate.
type Handler struct {
	cfg       Config
	container *restful.Container
	byGVR     map[schema.GroupVersionResource]*Resource
	// ours are the group-versions upstream does not serve: their version
	// discovery document is ours.
	ours map[schema.GroupVersion]bool
	// discovery are each group-version's aggregated discovery entries:
	// upstream's (nil when upstream does not serve it) and ours.
	base      map[schema.GroupVersion]*apidiscoveryv2.APIVersionDiscovery
	resources map[schema.GroupVersionResource]apidiscoveryv2.APIResourceDiscovery

	// states holds a statesBox: cfg.States, or what Start set.
	states atomic.Value

	mu      sync.Mutex
	serving map[schema.GroupVersionResource]bool
}

type statesBox struct{ States }

// SetStates makes the handler read the Features' states from s.
func (h *Handler) SetStates(s States) { h.states.Store(statesBox{s}) }

// New installs the resources into a container of their own with upstream's
// API installer and returns the handler. The aggregated discovery document
// is read from cfg.Discovery now, so New must run after kube-apiserver
// installed its groups.
func New(cfg Config) (*Handler, error) {
	RegisterMetrics()
	h := &Handler{
		cfg:       cfg,
		container: restful.NewContainer(),
		byGVR:     map[schema.GroupVersionResource]*Resource{},
		ours:      map[schema.GroupVersion]bool{},
		base:      map[schema.GroupVersion]*apidiscoveryv2.APIVersionDiscovery{},
		resources: map[schema.GroupVersionResource]apidiscoveryv2.APIResourceDiscovery{},
		serving:   map[schema.GroupVersionResource]bool{},
	}
	if cfg.States != nil {
		h.SetStates(cfg.States)
	}
	// As the generic apiserver's own container.
	h.container.ServeMux = http.NewServeMux()
	h.container.Router(restful.CurlyRouter{})

	byGV := map[schema.GroupVersion]map[string]rest.Storage{}
	for i := range cfg.Resources {
		r := &cfg.Resources[i]
		if _, dup := h.byGVR[r.GroupVersionResource]; dup {
			return nil, fmt.Errorf("resource %s is listed twice", r.GroupVersionResource.String())
		}
		h.byGVR[r.GroupVersionResource] = r
		gv := r.GroupVersion()
		if byGV[gv] == nil {
			byGV[gv] = map[string]rest.Storage{}
		}
		byGV[gv][r.Resource] = r.Storage
	}
	var base map[schema.GroupVersion]*apidiscoveryv2.APIVersionDiscovery
	if cfg.Discovery != nil {
		var err error
		if base, err = readDiscovery(cfg.Discovery); err != nil {
			return nil, err
		}
	}
	for _, gv := range sortedGVs(byGV) {
		storage := byGV[gv]
		version := cfg.Template
		version.Root = "/apis"
		if gv.Group == "" {
			version.Root = "/api"
		}
		if version.EquivalentResourceRegistry == nil {
			version.EquivalentResourceRegistry = runtime.NewEquivalentResourceRegistry()
		}
		version.GroupVersion = gv
		version.Storage = storage
		version.AllServedVersionsByResource = map[string][]string{}
		for name := range storage {
			version.AllServedVersionsByResource[name] = []string{gv.String()}
		}
		// No apply (no write at all): the deduced converter is enough for
		// the field manager the installer builds.
		version.TypeConverter = managedfields.NewDeducedTypeConverter()
		discovered, _, err := version.InstallREST(h.container)
		if err != nil {
			return nil, fmt.Errorf("installing %s: %w", gv.String(), err)
		}
		for _, d := range discovered {
			h.resources[gv.WithResource(d.Resource)] = d
		}
		if cfg.Upstream == nil || !cfg.Upstream(gv) {
			h.ours[gv] = true
		}
		if b, ok := base[gv]; ok {
			h.base[gv] = b
		}
	}
	return h, nil
}

// readDiscovery reads the aggregated discovery document the manager
// serves now, by group-version.
func readDiscovery(m aggregated.ResourceManager) (map[schema.GroupVersion]*apidiscoveryv2.APIVersionDiscovery, error) {
	req, err := http.NewRequest(http.MethodGet, "/apis", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("reading the aggregated discovery document: status %d", rec.Code)
	}
	list := &apidiscoveryv2.APIGroupDiscoveryList{}
	if err := json.Unmarshal(rec.Body.Bytes(), list); err != nil {
		return nil, fmt.Errorf("reading the aggregated discovery document: %w", err)
	}
	out := map[schema.GroupVersion]*apidiscoveryv2.APIVersionDiscovery{}
	for _, g := range list.Items {
		for i := range g.Versions {
			out[schema.GroupVersion{Group: g.Name, Version: g.Versions[i].Version}] = &g.Versions[i]
		}
	}
	return out, nil
}

func sortedGVs[V any](m map[schema.GroupVersion]V) []schema.GroupVersion {
	out := make([]schema.GroupVersion, 0, len(m))
	for gv := range m {
		out = append(out, gv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// turningOff returns the first gate of r whose Feature is TurningOff.
func (h *Handler) turningOff(r *Resource) (string, bool) {
	states, _ := h.states.Load().(statesBox)
	if states.States == nil {
		return "", false
	}
	for _, g := range r.Gates {
		if s, ok := states.State(g); ok && s == featuresv1alpha1.FeatureStateTurningOff {
			return g, true
		}
	}
	return "", false
}

// readDelete are the verbs served while a Feature is TurningOff; an
// update or a patch is served only if it removes finalizers and changes
// nothing else (ReadDelete.Update).
var readDelete = []string{"get", "list", "watch", "delete", "deletecollection", "update", "patch"}

// ServeHTTP serves the resources' requests while their Feature is
// TurningOff and hands every other request to the delegate.
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok {
		h.cfg.Delegate.ServeHTTP(w, req)
		return
	}
	if !info.IsResourceRequest {
		// The version discovery document of a group-version with a
		// resource served now.
		if info.Verb != "get" || !strings.HasPrefix(info.Path, "/apis/") {
			h.cfg.Delegate.ServeHTTP(w, req)
			return
		}
		gv, ok := versionPath(info.Path)
		if ok && h.anyServed(gv) {
			h.serveVersionDiscovery(w, req, gv)
			return
		}
		h.cfg.Delegate.ServeHTTP(w, req)
		return
	}
	gvr := schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}
	r, ok := h.byGVR[gvr]
	if !ok {
		h.cfg.Delegate.ServeHTTP(w, req)
		return
	}
	gate, ok := h.turningOff(r)
	if !ok || info.Subresource != "" {
		h.cfg.Delegate.ServeHTTP(w, req)
		return
	}
	if !slices.Contains(readDelete, info.Verb) {
		responsewriters.ErrorNegotiated(h.refusal(gvr, gate, info), h.cfg.Template.Serializer, gvr.GroupVersion(), w, req)
		return
	}
	if info.Verb == "update" || info.Verb == "patch" {
		// ReadDelete.Update refuses anything but removing finalizers with
		// the handler's reason.
		req = req.WithContext(context.WithValue(req.Context(), refusalKey{}, h.refusal(gvr, gate, info).Error()))
	}
	h.container.ServeHTTP(w, req)
}

// refusal is the error of a request that would write an object of gvr
// while gate's Feature is TurningOff.
func (h *Handler) refusal(gvr schema.GroupVersionResource, gate string, info *request.RequestInfo) error {
	gr := gvr.GroupResource()
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusMethodNotAllowed,
		Reason: metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{
			Group: gr.Group,
			Kind:  gr.Resource,
			Name:  info.Name,
		},
		Message: fmt.Sprintf("%s: %s is not allowed: Feature %s/%s (gate %s) is %s, and its resource is served only to read and delete the objects stored while it was on (get, list, watch, delete, deletecollection, and updates that only remove finalizers)",
			gr.String(), info.Verb, h.cfg.Namespace, gatename.ObjectName(gate), gate, featuresv1alpha1.FeatureStateTurningOff),
	}}
}

// versionPath returns the group-version of a version discovery path
// (/apis/<group>/<version>).
func versionPath(p string) (schema.GroupVersion, bool) {
	parts := strings.Split(strings.Trim(path.Clean(p), "/"), "/")
	if len(parts) == 3 && parts[0] == "apis" {
		return schema.GroupVersion{Group: parts[1], Version: parts[2]}, true
	}
	return schema.GroupVersion{}, false
}

// serveVersionDiscovery serves the APIResourceList of gv: upstream's, when
// upstream serves gv, with the resources served here now added.
func (h *Handler) serveVersionDiscovery(w http.ResponseWriter, req *http.Request, gv schema.GroupVersion) {
	list := &metav1.APIResourceList{GroupVersion: gv.String()}
	if !h.ours[gv] {
		if !h.readResourceList(h.cfg.Delegate, req, list) {
			h.cfg.Delegate.ServeHTTP(w, req)
			return
		}
	}
	ours := &metav1.APIResourceList{}
	if !h.readResourceList(h.container, req, ours) {
		h.cfg.Delegate.ServeHTTP(w, req)
		return
	}
	for _, r := range ours.APIResources {
		name, _, _ := strings.Cut(r.Name, "/")
		if res, ok := h.byGVR[gv.WithResource(name)]; ok {
			if _, on := h.turningOff(res); on {
				list.APIResources = append(list.APIResources, r)
			}
		}
	}
	responsewriters.WriteObjectNegotiated(h.cfg.Template.Serializer, negotiation.DefaultEndpointRestrictions, schema.GroupVersion{}, w, req, http.StatusOK, list, false)
}

// readResourceList reads the JSON APIResourceList handler serves for req.
func (h *Handler) readResourceList(handler http.Handler, req *http.Request, into *metav1.APIResourceList) bool {
	r := req.Clone(req.Context())
	r.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		return false
	}
	if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
		klog.ErrorS(err, "Reading a version discovery document", "path", req.URL.Path)
		return false
	}
	return true
}

func (h *Handler) anyServed(gv schema.GroupVersion) bool {
	for gvr, r := range h.byGVR {
		if gvr.GroupVersion() == gv {
			if _, ok := h.turningOff(r); ok {
				return true
			}
		}
	}
	return false
}

// Sync brings aggregated discovery in line with the Features' states: a
// resource is listed while it is served; a group-version upstream does not
// serve is listed while one of its resources is, and removed after. Call
// it whenever a Feature changes.
func (h *Handler) Sync() {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := map[schema.GroupVersion]bool{}
	for gvr, r := range h.byGVR {
		gate, on := h.turningOff(r)
		served, known := h.serving[gvr]
		if !known {
			servedGauge.WithLabelValues(gvr.Group, gvr.Version, gvr.Resource).Set(0)
		}
		if on == served {
			h.serving[gvr] = on
			continue
		}
		h.serving[gvr] = on
		changed[gvr.GroupVersion()] = true
		servedGauge.WithLabelValues(gvr.Group, gvr.Version, gvr.Resource).Set(gauge(on))
		if on {
			klog.InfoS("Serving a resource to read and delete while its Feature turns off", "resource", gvr.String(), "gate", gate)
		} else {
			klog.InfoS("No longer serving a resource whose Feature is not turning off", "resource", gvr.String())
		}
	}
	if h.cfg.Discovery == nil {
		return
	}
	for _, gv := range sortedGVs(changed) {
		h.syncDiscovery(gv)
	}
}

// syncDiscovery sets gv's aggregated discovery entry to upstream's plus the
// resources served now.
func (h *Handler) syncDiscovery(gv schema.GroupVersion) {
	entry := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
	if b := h.base[gv]; b != nil {
		entry = *b.DeepCopy()
	}
	added := 0
	for gvr, on := range h.serving {
		if on && gvr.GroupVersion() == gv {
			entry.Resources = append(entry.Resources, h.resources[gvr])
			added++
		}
	}
	sort.Slice(entry.Resources, func(i, j int) bool { return entry.Resources[i].Resource < entry.Resources[j].Resource })
	switch {
	case added == 0 && h.base[gv] == nil:
		h.cfg.Discovery.RemoveGroupVersion(metav1.GroupVersion{Group: gv.Group, Version: gv.Version})
	default:
		h.cfg.Discovery.AddGroupVersion(gv.Group, entry)
		if p, ok := h.cfg.Priorities[gv]; ok && h.base[gv] == nil {
			h.cfg.Discovery.SetGroupVersionPriority(metav1.GroupVersion{Group: gv.Group, Version: gv.Version}, p.Group, p.Version)
		}
	}
}

func gauge(on bool) float64 {
	if on {
		return 1
	}
	return 0
}

// Serving returns the resources served now, sorted.
func (h *Handler) Serving() []schema.GroupVersionResource {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []schema.GroupVersionResource
	for gvr, on := range h.serving {
		if on {
			out = append(out, gvr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
