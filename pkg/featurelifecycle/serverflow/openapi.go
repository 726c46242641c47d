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

package serverflow

import (
	"context"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/informers"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kube-openapi/pkg/spec3"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/pkg/featurelifecycle/servedopenapi"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// storedFeaturesTimeout bounds the read of the stored Features as the
// server builds its OpenAPI documents.
const storedFeaturesTimeout = 5 * time.Second

// installOpenAPIByState records the OpenAPI v3 documents server builds (at
// PrepareRun, through its configuration's PostProcessSpec), hands it, in
// place of those holding gated fields, the documents as the stored
// Features show them, and adds the post-start hook that publishes them by
// the Feature states from then on.
func installOpenAPIByState(server *genericapiserver.GenericAPIServer, config genericapiserver.CompletedConfig, factory informers.SharedInformerFactory,
	gate featuregate.FeatureGate, stores *storecatalog.Catalog, gateChanges *listeners) error {
	inv, err := inventory.Load()
	if err != nil {
		return err
	}
	fields := servedopenapi.FieldsOf(inv)
	roots := func() []string {
		var out []string
		for _, ws := range server.Handler.GoRestfulContainer.RegisteredWebServices() {
			out = append(out, ws.RootPath())
		}
		return out
	}
	var recorder *servedopenapi.Recorder
	if v3 := config.OpenAPIV3Config; v3 != nil {
		// The server holds this configuration and builds its documents
		// from it when it is prepared to run: it serves them by the
		// Features' states from the start.
		recorder = servedopenapi.NewRecorder(v3.PostProcessSpec)
		recorder.ServeFromStart(fields, roots, func(gates []featuregate.Feature) servedopenapi.Visibilities {
			return servedopenapi.VisibilitiesOf(gates, gate, featurelifecycle.KubeNamespace, storedFeatures(stores))
		})
		v3.PostProcessSpec = recorder.PostProcessSpec
	}
	return server.AddPostStartHook(OpenAPIHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		var v3 map[string]*spec3.OpenAPI
		if recorder != nil {
			v3 = recorder.ByGroupVersion(roots())
		}
		publisher := servedopenapi.NewPublisher(fields, gate, featurelifecycle.KubeNamespace,
			server.OpenAPIVersionedService, server.StaticOpenAPISpec, server.OpenAPIV3VersionedService, v3)
		if recorder != nil {
			publisher.Served(recorder.Shown())
		}
		gateChanges.add(publisher.GateChanged)
		go publisher.Run(hookContext, factory.Features().V1alpha1().Features())
		factory.Start(hookContext.Done())
		return nil
	})
}

// storedFeatures reads the Features of kube-system through the server's
// own store (it does not serve yet when it builds its documents) and
// returns them by name, or nil when they cannot be read: the documents are
// then served by the server's gates alone until the first publication.
func storedFeatures(stores *storecatalog.Catalog) func(name string) (*featuresv1alpha1.Feature, error) {
	ctx, cancel := context.WithTimeout(context.Background(), storedFeaturesTimeout)
	defer cancel()
	logger := klog.FromContext(ctx)
	resource := featuresv1alpha1.SchemeGroupVersion.WithResource("features").GroupResource()
	store, err := stores.Store(resource)
	if err != nil {
		logger.Error(err, "Serving OpenAPI by the gates alone until the Features are read")
		return nil
	}
	list, err := store.List(genericapirequest.WithNamespace(ctx, featurelifecycle.KubeNamespace), &metainternalversion.ListOptions{})
	if err != nil {
		logger.Error(err, "Serving OpenAPI by the gates alone until the Features are read")
		return nil
	}
	var features featuresv1alpha1.FeatureList
	if err := legacyscheme.Scheme.Convert(list, &features, nil); err != nil {
		logger.Error(err, "Serving OpenAPI by the gates alone until the Features are read")
		return nil
	}
	byName := make(map[string]*featuresv1alpha1.Feature, len(features.Items))
	for i := range features.Items {
		byName[features.Items[i].Name] = &features.Items[i]
	}
	return func(name string) (*featuresv1alpha1.Feature, error) {
		if f, ok := byName[name]; ok {
			return f, nil
		}
		return nil, apierrors.NewNotFound(resource, name)
	}
}
