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

// Package featurestates is the registry of the Features' states that
// kube-apiserver's REST storage providers read: whether the Feature of a
// gate is Disabling, when a provider serves the gate's resources, with the
// gate off, to read and delete (servewhiledisabling). kube-apiserver makes
// one Registry and passes it to the providers that read it and to the
// feature lifecycle, which feeds it from the shared Feature informer (Run).
package featurestates

import (
	"context"
	"sync"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	featuresinformers "k8s.io/client-go/informers/features/v1alpha1"
)

// Registry knows which gates' Features are Disabling, and tells the
// storage served while they are when that changes.
type Registry struct {
	mu         sync.RWMutex
	namespace  string
	turningOff map[string]bool
	handlers   map[string][]func(turningOff bool)
}

// NewRegistry returns a registry in which no Feature is Disabling, for
// Features in namespace.
func NewRegistry(namespace string) *Registry {
	return &Registry{namespace: namespace, turningOff: map[string]bool{}, handlers: map[string][]func(bool){}}
}

// Namespace returns the namespace of the Features.
func (r *Registry) Namespace() string { return r.namespace }

// Disabling reports whether the Feature of gate is Disabling (false
// before the states are known).
func (r *Registry) Disabling(gate string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.turningOff[gate]
}

// AddHandler registers f, called with the new answer of Disabling(gate)
// whenever it changes.
func (r *Registry) AddHandler(gate string, f func(turningOff bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers[gate] = append(r.handlers[gate], f)
}

// Set makes the gates of turningOff the ones whose Feature is Disabling,
// and calls the handlers of the gates whose answer changed.
func (r *Registry) Set(turningOff map[string]bool) {
	r.mu.Lock()
	changed := map[string]bool{}
	for gate := range r.turningOff {
		if !turningOff[gate] {
			changed[gate] = false
		}
	}
	for gate, on := range turningOff {
		if on && !r.turningOff[gate] {
			changed[gate] = true
		}
	}
	r.mu.Unlock()
	for gate, on := range changed {
		r.set(gate, on)
	}
}

// set records whether gate's Feature is Disabling and calls its handlers
// when that changed.
func (r *Registry) set(gate string, on bool) {
	r.mu.Lock()
	if r.turningOff[gate] == on {
		r.mu.Unlock()
		return
	}
	if on {
		r.turningOff[gate] = true
	} else {
		delete(r.turningOff, gate)
	}
	handlers := r.handlers[gate]
	r.mu.Unlock()
	if len(handlers) > 0 {
		if on {
			klog.InfoS("Serving, to read and delete, the resources of a Feature that is turning off", "namespace", r.namespace, "feature", featuresv1alpha1.FeatureName(gate), "gate", gate)
		} else {
			klog.InfoS("No longer serving the resources of a Feature that is not turning off", "namespace", r.namespace, "feature", featuresv1alpha1.FeatureName(gate), "gate", gate)
		}
	}
	for _, f := range handlers {
		f(on)
	}
}

// observe records the state of f, a Feature of the registry's namespace
// named after its gate (another is not a gate's).
func (r *Registry) observe(f *featuresv1alpha1.Feature, deleted bool) {
	if f.Namespace != r.namespace || f.Spec.Gate == "" || f.Name != featuresv1alpha1.FeatureName(f.Spec.Gate) {
		return
	}
	r.set(f.Spec.Gate, !deleted && f.Status.State == featuresv1alpha1.FeatureStateDisabling)
}

// Run feeds the registry from features, an informer of Features (the
// server's shared one: the caller starts it), one Feature per event, until
// ctx is done. Until the informer has synced, no Feature is Disabling and
// nothing is served.
func (r *Registry) Run(ctx context.Context, features featuresinformers.FeatureInformer) error {
	observe := func(obj any, deleted bool) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj, deleted = d.Obj, true
		}
		if f, ok := obj.(*featuresv1alpha1.Feature); ok {
			r.observe(f, deleted)
		}
	}
	registration, err := features.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { observe(obj, false) },
		UpdateFunc: func(_, obj any) { observe(obj, false) },
		DeleteFunc: func(obj any) { observe(obj, true) },
	})
	if err != nil {
		return err
	}
	go func() {
		defer func() { _ = features.Informer().RemoveEventHandler(registration) }()
		if cache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
			klog.V(2).InfoS("Features synced for the resources served while a Feature turns off", "namespace", r.namespace)
		}
		<-ctx.Done()
	}()
	return nil
}
