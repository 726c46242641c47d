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

package migrator

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// TestRequestContextVersion checks that a store call is made in a version
// that serves the resource: declarative validation converts the object to
// the request's version, and scheduling.k8s.io's preferred version, v1,
// has no Workload (seen in the on -> use -> off harness: "no kind Workload
// is registered for version scheduling.k8s.io/v1").
func TestRequestContextVersion(t *testing.T) {
	for gr, want := range map[schema.GroupResource]string{
		{Group: "scheduling.k8s.io", Resource: "workloads"}:                "v1beta1",
		{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:          "v1",
		{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}: "v1alpha3",
		{Group: "apps", Resource: "statefulsets"}:                          "v1",
		{Resource: "pods"}: "v1",
	} {
		info, ok := genericapirequest.RequestInfoFrom(RequestContext(context.Background(), gr, "update", "ns", "name"))
		if !ok {
			t.Fatalf("%s: no request info", gr)
		}
		if info.APIVersion != want {
			t.Errorf("%s: the request is made in version %s, want %s", gr, info.APIVersion, want)
		}
	}
}
