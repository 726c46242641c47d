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

package standalone

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/certificates"
	"k8s.io/kubernetes/pkg/apis/lifecycle"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	"k8s.io/kubernetes/pkg/apis/storagemigration"
	clustertrustbundlestore "k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle/storage"
	podcertificaterequeststore "k8s.io/kubernetes/pkg/registry/certificates/podcertificaterequest/storage"
	evictionstore "k8s.io/kubernetes/pkg/registry/lifecycle/eviction/storage"
	evictionrequeststore "k8s.io/kubernetes/pkg/registry/lifecycle/evictionrequest/storage"
	compositepodgroupstore "k8s.io/kubernetes/pkg/registry/scheduling/compositepodgroup/storage"
	podgroupstore "k8s.io/kubernetes/pkg/registry/scheduling/podgroup/storage"
	workloadstore "k8s.io/kubernetes/pkg/registry/scheduling/workload/storage"
	svmstore "k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration/storage"
	"k8s.io/utils/clock"
)

// gatedStore builds, with upstream's own constructor, the store of a
// resource that upstream's provider builds only while a feature gate is on.
type gatedStore struct {
	// version is the first version, in the group's priority order, that
	// serves the resource.
	version schema.GroupVersion
	build   func(generic.RESTOptionsGetter, Config) (rest.Storage, error)
}

// gatedStores are the resources upstream's REST storage providers build
// only while their gate is on (the gate inventory's resourcesServedOnlyWith;
// pkg/features' TestDerived fails when one is missing). While such a gate
// is turning off, the process's gate is already off, yet the objects stored
// while it was on must still be found: Build adds these stores to their
// group's when its provider left them out. This is the one table of
// constructors kept here; the provider's own check of the gate is what it
// works around, and the process's feature gates must never be flipped to
// get past it (they serve requests). With FeatureLifecycle on (in
// kube-apiserver, where the lifecycle's tasks run) the providers build these
// resources themselves, wrapped to be served while their Feature is
// Disabling (pkg/featurelifecycle/servewhiledisabling), and Build finds their
// stores through genericregistry.StoreAccessor, so the table is not used:
// it serves processes without the feature lifecycle (the gate inventory
// generator, unit tests).
var gatedStores = map[schema.GroupResource]gatedStore{
	certificates.Resource("clustertrustbundles"): {schema.GroupVersion{Group: certificates.GroupName, Version: "v1"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		return clustertrustbundlestore.NewREST(g)
	}},
	certificates.Resource("podcertificaterequests"): {schema.GroupVersion{Group: certificates.GroupName, Version: "v1"}, func(g generic.RESTOptionsGetter, c Config) (rest.Storage, error) {
		authz := c.Authorizer
		if authz == nil {
			authz = authorizerfactory.NewAlwaysDenyAuthorizer()
		}
		s, _, err := podcertificaterequeststore.NewREST(g, authz, clock.RealClock{})
		return s, err
	}},
	lifecycle.Resource("evictions"): {schema.GroupVersion{Group: lifecycle.GroupName, Version: "v1alpha1"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		s, _, err := evictionstore.NewREST(g, clock.RealClock{})
		return s, err
	}},
	lifecycle.Resource("evictionrequests"): {schema.GroupVersion{Group: lifecycle.GroupName, Version: "v1alpha1"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		s, _, err := evictionrequeststore.NewREST(g)
		return s, err
	}},
	scheduling.Resource("compositepodgroups"): {schema.GroupVersion{Group: scheduling.GroupName, Version: "v1alpha3"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		s, _, err := compositepodgroupstore.NewREST(g)
		return s, err
	}},
	scheduling.Resource("podgroups"): {schema.GroupVersion{Group: scheduling.GroupName, Version: "v1beta1"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		s, _, err := podgroupstore.NewREST(g)
		return s, err
	}},
	scheduling.Resource("workloads"): {schema.GroupVersion{Group: scheduling.GroupName, Version: "v1beta1"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		return workloadstore.NewREST(g)
	}},
	storagemigration.Resource("storageversionmigrations"): {schema.GroupVersion{Group: storagemigration.GroupName, Version: "v1"}, func(g generic.RESTOptionsGetter, _ Config) (rest.Storage, error) {
		s, _, err := svmstore.NewREST(g)
		return s, err
	}},
}
