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

package lifecycle

import (
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/apis/apps"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/resource"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"
)

// TestDerivedRelational checks the tasks derived from the inventory's
// relationalValues, with each gate off as in its transition: they hold
// the objects validation refuses only in relation to other values, and
// no other; what kube-apiserver wrote into pods needs no task.
func TestDerivedRelational(t *testing.T) {
	pod := func(hostNetwork bool, hostUsers *bool) *api.Pod {
		return &api.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Spec: api.PodSpec{HostNetwork: hostNetwork, HostUsers: hostUsers, RestartPolicy: api.RestartPolicyAlways, DNSPolicy: api.DNSClusterFirst,
				Containers: []api.Container{{Name: "c", Image: "i", ImagePullPolicy: api.PullAlways, TerminationMessagePolicy: api.TerminationMessageReadFile}}},
		}
	}
	deployment := func(spec api.PodSpec) *apps.Deployment {
		return &apps.Deployment{Spec: apps.DeploymentSpec{Template: api.PodTemplateSpec{Spec: spec}}}
	}
	slice := func(policy resource.CapacityRequestPolicy) *resource.ResourceSlice {
		q := apiresource.MustParse
		return &resource.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: "s"},
			Spec: resource.ResourceSliceSpec{Driver: "example.com", NodeName: ptr.To("n"), Pool: resource.ResourcePool{Name: "p", ResourceSliceCount: 1},
				Devices: []resource.Device{{Name: "d", AllowMultipleAllocations: ptr.To(true), Capacity: map[resource.QualifiedName]resource.DeviceCapacity{
					"memory": {Value: q("3"), RequestPolicy: &policy}}}}},
		}
	}
	q := func(s string) *apiresource.Quantity { v := apiresource.MustParse(s); return &v }
	for _, c := range []struct {
		gate featuregate.Feature
		task string
		obj  runtime.Object
		want bool
	}{
		{kubefeatures.UserNamespacesHostNetworkSupport, "wait-for-writable-pods", pod(true, ptr.To(false)), true},
		{kubefeatures.UserNamespacesHostNetworkSupport, "wait-for-writable-pods", pod(true, nil), false},
		{kubefeatures.UserNamespacesHostNetworkSupport, "wait-for-writable-pods", pod(false, ptr.To(false)), false},
		{kubefeatures.UserNamespacesHostNetworkSupport, "wait-for-writable-deployments-apps", deployment(pod(true, ptr.To(false)).Spec), true},
		{kubefeatures.UserNamespacesHostNetworkSupport, "wait-for-writable-deployments-apps", deployment(pod(false, ptr.To(false)).Spec), false},
		{kubefeatures.DRAFractionalCapacityRange, "wait-for-writable-resourceslices-resource-k8s-io",
			slice(resource.CapacityRequestPolicy{Default: q("1500m"), ValidRange: &resource.CapacityRequestPolicyRange{Min: q("1500m"), Max: q("3"), Step: q("1500m")}}), true},
		{kubefeatures.DRAFractionalCapacityRange, "wait-for-writable-resourceslices-resource-k8s-io",
			slice(resource.CapacityRequestPolicy{Default: q("1"), ValidValues: []apiresource.Quantity{*q("500m"), *q("1")}}), true},
		{kubefeatures.DRAFractionalCapacityRange, "wait-for-writable-resourceslices-resource-k8s-io",
			slice(resource.CapacityRequestPolicy{Default: q("1"), ValidRange: &resource.CapacityRequestPolicyRange{Min: q("1"), Max: q("3"), Step: q("1")}}), false},
	} {
		t.Run(string(c.gate)+"/"+c.task, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, c.gate, false)
			if !ValidatesWithGateOff(c.task) {
				t.Errorf("%s does not say it validates with the gate off", c.task)
			}
			in := inspector(t, derivedOf(t, c.gate), c.task)
			if got := in.Holds(c.obj); got != c.want {
				t.Errorf("%s holds %#v: %t, want %t", c.task, c.obj, got, c.want)
			}
		})
	}

	// The selector requirement kube-apiserver merges into pods needs no
	// task; a template that holds one (copied from a pod) is held.
	lc := derivedOf(t, kubefeatures.MatchLabelKeysInPodTopologySpreadSelectorMerge)
	names := taskNames(lc.OnDisable)
	for _, n := range names {
		if n == "wait-for-writable-pods" {
			t.Errorf("MatchLabelKeysInPodTopologySpreadSelectorMerge holds pods: %v", names)
		}
	}
	inspector(t, lc, "wait-for-writable-deployments-apps")
}
