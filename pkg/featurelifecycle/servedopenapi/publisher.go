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
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	featuresinformers "k8s.io/client-go/informers/features/v1alpha1"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

var (
	publications = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      "feature_lifecycle",
		Name:           "openapi_publications_total",
		Help:           "OpenAPI documents this kube-apiserver republished because a Feature whose fields they hold changed (openapi: v2, or the v3 group-version).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"openapi"})
	registerMetrics sync.Once
)

// Recorder keeps the OpenAPI v3 document of each group-version a server
// builds. It is the server's OpenAPIV3Config.PostProcessSpec (kube-openapi
// calls it with each document as it is built, before it is served), so
// that the Publisher republishes from the documents as built.
type Recorder struct {
	mu     sync.Mutex
	docs   []*spec3.OpenAPI
	next   func(*spec3.OpenAPI) (*spec3.OpenAPI, error)
	sealed bool

	// Set by ServeFromStart.
	fields []Field
	roots  func() []string
	first  func(gates []featuregate.Feature) Visibilities
	// rootPaths is roots(), once a document is built; shown is first(),
	// once a document holding gated fields is built.
	rootPaths []string
	shown     Visibilities
}

// NewRecorder returns a Recorder that passes each document on to next (the
// PostProcessSpec it replaces; nil: none).
func NewRecorder(next func(*spec3.OpenAPI) (*spec3.OpenAPI, error)) *Recorder {
	return &Recorder{next: next}
}

// ServeFromStart makes the recorder hand the server, in place of each of
// its documents that holds gated fields, the document as the Visibilities
// first returns show it, so that the server serves its documents by
// Feature state from the start: kube-aggregator hashes (marshals) every
// document once as the server is prepared to run, and a first publication
// after that would make it marshal again each document it changes. first
// is called once, with the gates of fields, when the first such document
// is built; roots returns the root paths of the server's web services (a
// document of another server sharing the configuration is handed back as
// built). The documents the recorder keeps stay as built. Tell the
// Publisher what was served (Publisher.Served with Shown), so that it
// republishes only what changed since. Call it before the server builds
// its documents.
func (r *Recorder) ServeFromStart(fields []Field, roots func() []string, first func(gates []featuregate.Feature) Visibilities) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fields, r.roots, r.first = fields, roots, first
}

// PostProcessSpec records doc, as a server built it, and returns what the
// server is to serve: doc, or, after ServeFromStart, the document as first
// shows it when it is one of the server's and holds gated fields. The
// schemas the returned document changes are copies that share their
// extensions with doc's, so a change the server makes to the extensions
// after this (kube-apiserver narrows the group-version-kinds of the meta
// types it registers in every group) reaches the document kept as well.
func (r *Recorder) PostProcessSpec(doc *spec3.OpenAPI) (*spec3.OpenAPI, error) {
	if r.next != nil {
		var err error
		if doc, err = r.next(doc); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sealed {
		return doc, nil
	}
	r.docs = append(r.docs, doc)
	if r.first == nil {
		return doc, nil
	}
	if r.rootPaths == nil {
		r.rootPaths = r.roots()
	}
	if groupVersionOf(doc, r.rootPaths) == "" {
		return doc, nil
	}
	d := NewV3(doc, r.fields)
	if !d.Gated() {
		return doc, nil
	}
	if r.shown == nil {
		r.shown = r.first(gatesOfFields(r.fields))
		if r.shown == nil {
			r.shown = Visibilities{}
		}
	}
	return d.Apply(r.shown), nil
}

// Shown returns the Visibilities of the documents the recorder handed the
// server in place of those it built (ServeFromStart), or nil when it
// handed none.
func (r *Recorder) Shown() Visibilities {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shown
}

// ByGroupVersion returns the recorded documents by the root path of the
// server's web service each was built from ("apis/apps/v1", "api/v1"), as
// the server publishes them: a document belongs to the longest of roots
// that prefixes each of its paths. Documents of other servers sharing the
// configuration match none. The recorder then stops recording: what is
// built later is not kept.
func (r *Recorder) ByGroupVersion(roots []string) map[string]*spec3.OpenAPI {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() { r.docs, r.sealed = nil, true }()
	out := map[string]*spec3.OpenAPI{}
	for _, doc := range r.docs {
		if gv := groupVersionOf(doc, roots); gv != "" {
			out[gv] = doc
		}
	}
	return out
}

// groupVersionOf returns the group-version path ("apis/apps/v1") of doc:
// the longest of roots that prefixes each of its paths, without its
// leading slash, or "" when none does.
func groupVersionOf(doc *spec3.OpenAPI, roots []string) string {
	if doc.Paths == nil || len(doc.Paths.Paths) == 0 {
		return ""
	}
	best := ""
	for _, root := range roots {
		if len(root) > len(best) && underRoot(doc, root) {
			best = root
		}
	}
	return strings.TrimPrefix(best, "/")
}

func underRoot(doc *spec3.OpenAPI, root string) bool {
	for p := range doc.Paths.Paths {
		if p != root && !strings.HasPrefix(p, root+"/") {
			return false
		}
	}
	return true
}

// Publisher republishes a server's OpenAPI documents, v2 and each v3
// group-version holding gated fields, whenever the Visibility of one of
// their gates changes: a gate's fields are hidden while this server's gate
// is off, or its Feature in kube-system is Disabled or asked to be Disabled (its
// desired state; Disabling included), and shown, with the Feature and its
// state as extensions, otherwise. The documents as built stay as they are;
// each publication is a copy (and, for v3, a new hash in /openapi/v3, which
// is what makes clients such as kubectl fetch it again).
type Publisher struct {
	gate      featuregate.FeatureGate
	namespace string
	v2        *handler.OpenAPIService
	v2doc     *V2
	v3        *handler3.OpenAPIService
	v3docs    map[string]*V3
	features  featureslisters.FeatureNamespaceLister
	queue     workqueue.TypedRateLimitingInterface[string]
	// v2published and v3published are the Visibilities the documents were
	// last published with (nil: never, as built).
	v2published, v3published Visibilities
	// v2generation counts the publications of the v2 document (its etag).
	v2generation int
	// gateChanged has an element when the server's gate changed since the
	// publishing loop last looked (GateChanged).
	gateChanged chan struct{}
}

// NewPublisher returns a Publisher of the documents of one server: v2 its
// document as built, served by v2service (either may be nil), v3 its v3
// documents as built by group-version path, served by v3service. fields
// are the gated fields; gate the server's gate; namespace the Features'.
func NewPublisher(fields []Field, gate featuregate.FeatureGate, namespace string,
	v2service *handler.OpenAPIService, v2 *spec.Swagger, v3service *handler3.OpenAPIService, v3 map[string]*spec3.OpenAPI) *Publisher {
	p := &Publisher{gate: gate, namespace: namespace, v3docs: map[string]*V3{}, gateChanged: make(chan struct{}, 1)}
	if v2service != nil && v2 != nil {
		p.v2, p.v2doc = v2service, NewV2(v2, fields)
	}
	if v3service != nil {
		p.v3 = v3service
		for gv, doc := range v3 {
			if d := NewV3(doc, fields); d.Gated() {
				p.v3docs[gv] = d
			}
		}
	}
	return p
}

// Served tells the publisher that the server serves its v3 documents as
// vis shows them already (the Recorder handed them to the server so:
// Recorder.Shown), so that its first publication republishes only those
// holding a gate whose Visibility differs. Call it before Run.
func (p *Publisher) Served(vis Visibilities) { p.v3published = vis }

// GroupVersions returns the v3 group-versions holding gated fields.
func (p *Publisher) GroupVersions() []string { return slices.Sorted(maps.Keys(p.v3docs)) }

// Run feeds the publisher from features, an informer of Features (the
// server's shared one: the caller starts it), and publishes until ctx is
// done.
func (p *Publisher) Run(ctx context.Context, features featuresinformers.FeatureInformer) {
	registerMetrics.Do(func() { legacyregistry.MustRegister(publications) })
	logger := klog.FromContext(ctx)
	p.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "feature_lifecycle_openapi"})
	defer p.queue.ShutDown()
	// Get blocks until an item comes or the queue shuts down: shut it down
	// when ctx is done, or the publishing loop would outlive the server.
	go func() {
		<-ctx.Done()
		p.queue.ShutDown()
	}()
	p.features = features.Lister().Features(p.namespace)
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if f, ok := obj.(*featuresv1alpha1.Feature); ok && f.Namespace == p.namespace {
			p.queue.Add("")
		}
	}
	registration, err := features.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue,
	})
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Not publishing OpenAPI by Feature state")
		return
	}
	defer func() { _ = features.Informer().RemoveEventHandler(registration) }()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, registration.HasSynced) {
		return
	}
	logger.V(2).Info("Publishing OpenAPI by Feature state", "v3GroupVersions", p.GroupVersions(), "v2", p.v2doc != nil)
	// A Dynamic gate changes in the server after its Feature's event:
	// GateChanged says so.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-p.gateChanged:
				p.queue.Add("")
			}
		}
	}()
	p.queue.Add("")
	for p.next(ctx) {
	}
}

// GateChanged tells the publisher that a gate of the server changed while
// it runs (a Dynamic gate followed its Feature), so that it publishes again.
// It does not block.
func (p *Publisher) GateChanged() {
	select {
	case p.gateChanged <- struct{}{}:
	default:
	}
}

func (p *Publisher) next(ctx context.Context) bool {
	key, quit := p.queue.Get()
	if quit {
		return false
	}
	defer p.queue.Done(key)
	p.Publish(ctx, p.visibilities())
	return true
}

// visibilities returns the current Visibility of every gate the documents
// hold.
func (p *Publisher) visibilities() Visibilities {
	var gates []featuregate.Feature
	if p.v2doc != nil {
		gates = append(gates, p.v2doc.Gates()...)
	}
	for _, d := range p.v3docs {
		gates = append(gates, d.Gates()...)
	}
	var get func(string) (*featuresv1alpha1.Feature, error)
	if p.features != nil {
		get = p.features.Get
	}
	return VisibilitiesOf(gates, p.gate, p.namespace, get)
}

// VisibilitiesOf returns the Visibility of each of gates: hidden while
// gate (the server's; nil: every gate on) has it off, or while its Feature
// in namespace, which get returns by name (nil: no Feature is known), is
// Disabled or asked to be Disabled; shown otherwise, with the Feature and
// its state when it has one.
func VisibilitiesOf(gates []featuregate.Feature, gate featuregate.FeatureGate, namespace string, get func(name string) (*featuresv1alpha1.Feature, error)) Visibilities {
	out := Visibilities{}
	for _, g := range gates {
		if _, ok := out[g]; ok {
			continue
		}
		name := featuresv1alpha1.FeatureName(string(g))
		v := Visibility{Hidden: gate != nil && !gate.Enabled(g)}
		if get != nil {
			if f, err := get(name); err == nil {
				v.Feature, v.State = namespace+"/"+name, string(f.Status.State)
				v.Hidden = v.Hidden || f.Status.State == featuresv1alpha1.FeatureStateDisabled ||
					f.Spec.DesiredState == featuresv1alpha1.FeatureDesiredStateDisabled
			}
		}
		out[g] = v
	}
	return out
}

// Publish republishes the documents holding a gate whose Visibility
// differs from what was last published.
func (p *Publisher) Publish(ctx context.Context, vis Visibilities) {
	changed := func(published Visibilities, gates []featuregate.Feature) bool {
		if published == nil {
			return true
		}
		return slices.ContainsFunc(gates, func(g featuregate.Feature) bool { return vis[g] != published[g] })
	}
	var hidden []string
	for g, v := range vis {
		if v.Hidden {
			hidden = append(hidden, string(g))
		}
	}
	slices.Sort(hidden)
	if p.v2doc != nil && changed(p.v2published, p.v2doc.Gates()) {
		// The v2 document is made when it is asked for, once: nothing
		// reads /openapi/v2 at start (the aggregator merges it on a
		// request), so a server nobody asks holds no copy of it.
		p.v2generation++
		doc, etag := p.v2doc, fmt.Sprintf("feature-lifecycle-%d", p.v2generation)
		p.v2.UpdateSpecLazy(cached.Once(cached.Func(func() (*spec.Swagger, string, error) { return doc.Apply(vis), etag, nil })))
		publications.WithLabelValues("v2").Inc()
	}
	var republished []string
	for _, gv := range p.GroupVersions() {
		d := p.v3docs[gv]
		if !changed(p.v3published, d.Gates()) {
			continue
		}
		p.v3.UpdateGroupVersion(gv, d.Apply(vis))
		publications.WithLabelValues(gv).Inc()
		republished = append(republished, gv)
	}
	if len(republished) > 0 {
		klog.FromContext(ctx).V(2).Info("Republished OpenAPI by Feature state", "v3GroupVersions", republished, "hiddenGates", hidden)
	}
	p.v2published, p.v3published = vis, vis
}
