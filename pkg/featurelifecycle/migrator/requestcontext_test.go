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

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/apis/apps"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/resource"
	"k8s.io/kubernetes/pkg/apis/scheduling"

	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
)

// TestRequestContextVersion checks that a store call is made in a version
// that serves the resource: declarative validation converts the object to
// the request's version, and scheduling.k8s.io's preferred version, v1,
// has no Workload (seen in the on -> use -> off harness: "no kind Workload
// is registered for version scheduling.k8s.io/v1").
func TestRequestContextVersion(t *testing.T) {
	for _, c := range []struct {
		gr      schema.GroupResource
		example runtime.Object
		want    string
	}{
		{schema.GroupResource{Group: "scheduling.k8s.io", Resource: "workloads"}, &scheduling.Workload{}, "v1beta1"},
		{schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, &scheduling.PriorityClass{}, "v1"},
		{schema.GroupResource{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}, &resource.ResourcePoolStatusRequest{}, "v1alpha3"},
		{schema.GroupResource{Group: "apps", Resource: "statefulsets"}, &apps.StatefulSet{}, "v1"},
		{schema.GroupResource{Resource: "pods"}, &api.Pod{}, "v1"},
		// Without an object: the group's first version.
		{schema.GroupResource{Group: "scheduling.k8s.io", Resource: "workloads"}, nil, "v1"},
	} {
		info, ok := genericapirequest.RequestInfoFrom(RequestContext(context.Background(), ServedResource(c.gr, c.example), "update", "ns", "name"))
		if !ok {
			t.Fatalf("%s: no request info", c.gr)
		}
		if info.APIVersion != c.want || info.APIGroup != c.gr.Group || info.Resource != c.gr.Resource {
			t.Errorf("%s (%T): the request is made in %s/%s %s, want version %s", c.gr, c.example, info.APIGroup, info.APIVersion, info.Resource, c.want)
		}
	}
}
