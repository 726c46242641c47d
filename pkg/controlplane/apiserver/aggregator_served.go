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
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
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
//
// The autoregister controller syncs an APIService registered at start
// (apiServicesToRegister) once, and never deletes one labelled so after that
// sync, whichever process created it: a group-version served at this start,
// or at an earlier process's, would stay listed by the aggregator once it is
// not served. apiServices removes such an APIService itself.
func followServedGroupVersions(delegate genericapiserver.DelegationTarget, registration autoregister.AutoAPIServiceRegistration,
	apiServices apiregistrationclient.APIServicesGetter, discovery aggregated.ResourceManager, apiVersionPriorities map[schema.GroupVersion]APIServicePriority) {
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
			if apiServices != nil {
				go removeSyncedOnStart(context.Background(), apiServices, apiService.Name)
			}
			return
		}
		registration.AddAPIServiceToSync(apiService)
		if discovery != nil {
			priority := apiVersionPriorities[gv]
			discovery.SetGroupVersionPriority(metav1.GroupVersion(gv), int(priority.Group), int(priority.Version))
		}
	})
}

// removeSyncedOnStart deletes the local APIService name if the autoregister
// controller manages it but will not delete it (any value of its label but
// the continuous one), retrying conflicts and errors a few times. An
// APIService that has a service, or no such label, is not ours to delete;
// one the controller syncs continuously it deletes itself. If the
// group-version is served again meanwhile, the controller, which hears of the
// delete, creates it again.
func removeSyncedOnStart(ctx context.Context, apiServices apiregistrationclient.APIServicesGetter, name string) {
	deleted := false
	err := retry.OnError(retry.DefaultBackoff, func(error) bool { return true }, func() error {
		current, err := apiServices.APIServices().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		value, managed := current.Labels[autoregister.AutoRegisterManagedLabel]
		if !managed || value == "true" || current.Spec.Service != nil {
			return nil
		}
		err = apiServices.APIServices().Delete(ctx, name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(current.UID))})
		if apierrors.IsNotFound(err) {
			return nil
		}
		deleted = err == nil
		return err
	})
	if err != nil {
		klog.ErrorS(err, "Could not remove the APIService of a group-version no longer served", "apiService", name)
		return
	}
	if deleted {
		klog.InfoS("Removed the APIService of a group-version no longer served", "apiService", name)
	}
}
