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

package turningoffapi

import (
	"context"
	"sync"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Registry knows which gates' Features are Disabling, and tells the
// storage served while they are (ReadDelete) when that changes. The
// process has one, defaultRegistry, which Start feeds from an informer.
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

// defaultRegistry is the process's registry, for Kubernetes' own gates.
var defaultRegistry = NewRegistry(metav1.NamespaceSystem)

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
	type call struct {
		gate string
		fs   []func(bool)
		on   bool
	}
	var calls []call
	r.mu.Lock()
	for gate := range r.turningOff {
		if !turningOff[gate] {
			calls = append(calls, call{gate, r.handlers[gate], false})
		}
	}
	for gate, on := range turningOff {
		if on && !r.turningOff[gate] {
			calls = append(calls, call{gate, r.handlers[gate], true})
		}
	}
	next := make(map[string]bool, len(turningOff))
	for gate, on := range turningOff {
		if on {
			next[gate] = true
		}
	}
	r.turningOff = next
	r.mu.Unlock()
	for _, c := range calls {
		if len(c.fs) > 0 {
			if c.on {
				klog.InfoS("Serving, to read and delete, the resources of a Feature that is turning off", "namespace", r.namespace, "feature", featuresv1alpha1.FeatureName(c.gate), "gate", c.gate)
			} else {
				klog.InfoS("No longer serving the resources of a Feature that is not turning off", "namespace", r.namespace, "feature", featuresv1alpha1.FeatureName(c.gate), "gate", c.gate)
			}
		}
		for _, f := range c.fs {
			f(c.on)
		}
	}
}

// setFrom sets the states from the Features the lister holds.
func (r *Registry) setFrom(lister featureslisters.FeatureNamespaceLister) {
	features, err := lister.List(labels.Everything())
	if err != nil {
		klog.ErrorS(err, "Listing the Features whose resources are served while turning off")
		return
	}
	turningOff := map[string]bool{}
	for _, f := range features {
		if f.Status.State == featuresv1alpha1.FeatureStateDisabling && f.Spec.Gate != "" && f.Name == featuresv1alpha1.FeatureName(f.Spec.Gate) {
			turningOff[f.Spec.Gate] = true
		}
	}
	r.Set(turningOff)
}

// Start feeds the process's registry from an informer on the Features of
// its namespace (kube-system) until ctx is done. Until the informer has
// synced, no Feature is Disabling and nothing is served.
func Start(ctx context.Context, client kubernetes.Interface) error {
	return defaultRegistry.Start(ctx, client)
}

// Start feeds the registry from an informer on the Features of its
// namespace until ctx is done.
func (r *Registry) Start(ctx context.Context, client kubernetes.Interface) error {
	RegisterMetrics()
	factory := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute, informers.WithNamespace(r.namespace))
	informer := factory.Features().V1alpha1().Features()
	lister := informer.Lister().Features(r.namespace)
	hasSynced := informer.Informer().HasSynced
	sync := func() {
		if hasSynced() {
			r.setFrom(lister)
		}
	}
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { sync() },
		UpdateFunc: func(_, _ any) { sync() },
		DeleteFunc: func(any) { sync() },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() {
		defer factory.Shutdown()
		if cache.WaitForCacheSync(ctx.Done(), hasSynced) {
			klog.V(2).InfoS("Features synced for the resources served while a Feature turns off", "namespace", r.namespace)
			r.setFrom(lister)
		}
		<-ctx.Done()
	}()
	return nil
}
