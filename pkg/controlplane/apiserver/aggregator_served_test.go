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
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	genericapiserver "k8s.io/apiserver/pkg/server"
	v1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
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
	followServedGroupVersions(delegate, registration, aggregated.NewResourceManager("apis"), priorities)
	delegate.set(gv, true)
	delegate.set(schema.GroupVersion{Group: "unknown.example.com", Version: "v1"}, true)
	delegate.set(gv, false)
	if want := []string{"add v1.storagemigration.k8s.io", "remove v1.storagemigration.k8s.io"}; !slices.Equal(registration.calls, want) {
		t.Errorf("registration calls %v, want %v", registration.calls, want)
	}

	registration = &recordingRegistration{}
	followServedGroupVersions(genericapiserver.NewEmptyDelegate(), registration, nil, priorities)
	if len(registration.calls) != 0 {
		t.Errorf("a delegate with fixed group-versions: %v", registration.calls)
	}
}
