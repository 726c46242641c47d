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
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	featuresinformers "k8s.io/features/client/informers/externalversions"
	featureslisters "k8s.io/features/client/listers/api/v1alpha1"
	"k8s.io/features/gatename"
)

// ListerStates reads the Features' states from an informer's lister.
type ListerStates struct {
	lister    featureslisters.FeatureNamespaceLister
	hasSynced cache.InformerSynced
}

// State returns the state of gate's Feature; false before the informer
// synced or when there is no Feature.
func (s *ListerStates) State(gate string) (featuresv1alpha1.FeatureState, bool) {
	if s.hasSynced == nil || !s.hasSynced() {
		return "", false
	}
	f, err := s.lister.Get(gatename.ObjectName(gate))
	if err != nil {
		return "", false
	}
	return f.Status.State, true
}

// Start watches the Features of namespace, sets h's States to them and
// calls h.Sync on every change, until ctx is done. Until the informer has
// synced nothing is served.
func Start(ctx context.Context, h *Handler, client featuresclient.Interface, namespace string) error {
	factory := featuresinformers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute, featuresinformers.WithNamespace(namespace))
	informer := factory.Features().V1alpha1().Features()
	states := &ListerStates{lister: informer.Lister().Features(namespace), hasSynced: informer.Informer().HasSynced}
	h.SetStates(states)
	sync := func(any) { h.Sync() }
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    sync,
		UpdateFunc: func(_, obj any) { h.Sync() },
		DeleteFunc: sync,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
			klog.V(2).InfoS("Features synced for the resources served while a Feature turns off")
			h.Sync()
		}
		<-ctx.Done()
		factory.Shutdown()
	}()
	return nil
}
