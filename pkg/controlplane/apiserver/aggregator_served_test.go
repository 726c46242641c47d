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
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	genericapiserver "k8s.io/apiserver/pkg/server"
	v1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"
)

// servedDelegate is a delegate whose group-versions' serving the test
// changes.
type servedDelegate struct {
	genericapiserver.DelegationTarget
	handlers []func(schema.GroupVersion, bool)
}

func (d *servedDelegate) AddGroupVersionServedHandler(f func(schema.GroupVersion, bool)) {
	d.handlers = append(d.handlers, f)
}

func (d *servedDelegate) set(gv schema.GroupVersion, served bool) {
	for _, f := range d.handlers {
		f(gv, served)
	}
}

// recordingRegistration records the APIServices to sync.
type recordingRegistration struct{ calls []string }

func (r *recordingRegistration) AddAPIServiceToSyncOnStart(in *v1.APIService) {
	r.calls = append(r.calls, "onstart "+in.Name)
}
func (r *recordingRegistration) AddAPIServiceToSync(in *v1.APIService) {
	r.calls = append(r.calls, "add "+in.Name)
}
func (r *recordingRegistration) RemoveAPIServiceToSync(name string) {
	r.calls = append(r.calls, "remove "+name)
}

// TestFollowServedGroupVersions checks that the local APIService of a
// group-version follows whether the delegate serves it, that group-versions
// without a priority get none, and that a delegate that cannot tell is left
// alone.
func TestFollowServedGroupVersions(t *testing.T) {
	gv := schema.GroupVersion{Group: "storagemigration.k8s.io", Version: "v1"}
	priorities := map[schema.GroupVersion]APIServicePriority{gv: {Group: 15800, Version: 15}}
	delegate := &servedDelegate{DelegationTarget: genericapiserver.NewEmptyDelegate()}
	registration := &recordingRegistration{}
	followServedGroupVersions(delegate, registration, nil, aggregated.NewResourceManager("apis"), priorities)
	delegate.set(gv, true)
	delegate.set(schema.GroupVersion{Group: "unknown.example.com", Version: "v1"}, true)
	delegate.set(gv, false)
	if want := []string{"add v1.storagemigration.k8s.io", "remove v1.storagemigration.k8s.io"}; !slices.Equal(registration.calls, want) {
		t.Errorf("registration calls %v, want %v", registration.calls, want)
	}

	registration = &recordingRegistration{}
	followServedGroupVersions(genericapiserver.NewEmptyDelegate(), registration, nil, nil, priorities)
	if len(registration.calls) != 0 {
		t.Errorf("a delegate with fixed group-versions: %v", registration.calls)
	}
}

// localAPIService is a local APIService labelled for the autoregister
// controller with value (none if empty).
func localAPIService(name, value string) *v1.APIService {
	apiService := &v1.APIService{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}}
	if value != "" {
		apiService.Labels = map[string]string{autoregister.AutoRegisterManagedLabel: value}
	}
	return apiService
}

// TestRemoveSyncedOnStart checks that the APIService of a group-version no
// longer served is deleted when the autoregister controller synced it once
// (at this start or an earlier process's) and so will not, and only then.
func TestRemoveSyncedOnStart(t *testing.T) {
	withService := localAPIService("v1.remote.example.com", "onstart")
	withService.Spec.Service = &v1.ServiceReference{Namespace: "default", Name: "remote"}
	for _, tc := range []struct {
		name        string
		apiService  *v1.APIService
		wantDeleted bool
	}{
		{"synced on start", localAPIService("v1.storagemigration.k8s.io", "onstart"), true},
		{"synced continuously: the controller deletes it", localAPIService("v1.storagemigration.k8s.io", "true"), false},
		{"not managed", localAPIService("v1.storagemigration.k8s.io", ""), false},
		{"has a service", withService, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.apiService)
			removeSyncedOnStart(context.Background(), client.ApiregistrationV1(), tc.apiService.Name)
			_, err := client.ApiregistrationV1().APIServices().Get(context.Background(), tc.apiService.Name, metav1.GetOptions{})
			if deleted := apierrors.IsNotFound(err); deleted != tc.wantDeleted {
				t.Errorf("deleted: %t (%v), want %t", deleted, err, tc.wantDeleted)
			}
		})
	}
	// Absent: nothing to do, and no error logged over retries.
	client := fake.NewClientset()
	removeSyncedOnStart(context.Background(), client.ApiregistrationV1(), "v1.storagemigration.k8s.io")
	if n := len(client.Actions()); n != 1 {
		t.Errorf("%d requests for an absent APIService, want one get: %v", n, client.Actions())
	}
}

// TestFollowServedGroupVersionsRemovesSyncedOnStart checks that a
// group-version that stops being served loses an APIService the autoregister
// controller synced on start.
func TestFollowServedGroupVersionsRemovesSyncedOnStart(t *testing.T) {
	gv := schema.GroupVersion{Group: "storagemigration.k8s.io", Version: "v1"}
	priorities := map[schema.GroupVersion]APIServicePriority{gv: {Group: 15800, Version: 15}}
	client := fake.NewClientset(localAPIService("v1.storagemigration.k8s.io", "onstart"))
	delegate := &servedDelegate{DelegationTarget: genericapiserver.NewEmptyDelegate()}
	followServedGroupVersions(delegate, &recordingRegistration{}, client.ApiregistrationV1(), nil, priorities)
	delegate.set(gv, false)
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.ApiregistrationV1().APIServices().Get(ctx, "v1.storagemigration.k8s.io", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("the APIService of a group-version no longer served is still there: %v", err)
	}
}
