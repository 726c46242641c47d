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

package apiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"
)

// groupVersionServedNotifier is implemented by a delegate whose
// group-versions may start and stop being served while it runs
// (*genericapiserver.GenericAPIServer, for conditionally served storage).
type groupVersionServedNotifier interface {
	AddGroupVersionServedHandler(f func(gv schema.GroupVersion, served bool))
}

// followServedGroupVersions keeps the local APIService of each of the
// delegate's group-versions that start or stop being served after start
// (apiServicesToRegister registers those served at start) registered while
// it serves something and removed otherwise, and gives it its aggregated
// discovery priority again when it is served (the discovery manager forgets
// it with the group-version). A delegate whose group-versions are fixed is
// left alone.
func followServedGroupVersions(delegate genericapiserver.DelegationTarget, registration autoregister.AutoAPIServiceRegistration,
	discovery aggregated.ResourceManager, apiVersionPriorities map[schema.GroupVersion]APIServicePriority) {
	notifier, ok := delegate.(groupVersionServedNotifier)
	if !ok {
		return
	}
	notifier.AddGroupVersionServedHandler(func(gv schema.GroupVersion, served bool) {
		apiService := makeAPIService(gv, apiVersionPriorities)
		if apiService == nil {
			return
		}
		if !served {
			registration.RemoveAPIServiceToSync(apiService.Name)
			return
		}
		registration.AddAPIServiceToSync(apiService)
		if discovery != nil {
			priority := apiVersionPriorities[gv]
			discovery.SetGroupVersionPriority(metav1.GroupVersion(gv), int(priority.Group), int(priority.Version))
		}
	})
}
