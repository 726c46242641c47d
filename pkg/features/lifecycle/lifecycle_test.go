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

	"k8s.io/apimachinery/pkg/util/intstr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/apis/apps"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/utils/ptr"

	lifecyclefixtures "k8s.io/kubernetes/test/integration/features/lifecycle"
)

// TestLifecycles checks the declarations of the lifecycle registry: real,
// kube gates that can change at some version the binary emulates, well-named tasks on resources the migrator's stores
// can open, and a fixture for every gate.
func TestLifecycles(t *testing.T) {
	if len(Lifecycles) == 0 {
		t.Fatal("the registry is empty")
	}
	known := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	supported := testCatalog(t).GroupResources()
	fixtures := lifecyclefixtures.Dir()
	for gate, lc := range Lifecycles {
		t.Run(string(gate), func(t *testing.T) {
			spec, ok := known[gate]
			if !ok {
				t.Fatalf("%s is not a gate of kube-apiserver", gate)
			}
			if _, ok := changeableAt(gate); !ok {
				t.Errorf("%s is locked to %t at every version this binary can emulate: it cannot change, it needs no lifecycle", gate, spec.Default)
			}
			if spec.PreRelease == featuregate.Deprecated {
				t.Logf("%s is deprecated", gate)
			}
			checkTasks(t, lc, supported)
			if _, err := lifecyclefixtures.Load(fixtures, gate); err != nil {
				t.Errorf("a registration needs a fixture in testdata/%s (see testdata/README.md): %v", gate, err)
			}
		})
	}

	// Every fixture belongs to a registration.
	gates, err := lifecyclefixtures.Gates(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	registry := testRegistry(t)
	for _, gate := range gates {
		if _, ok := registry[gate]; !ok {
			t.Errorf("testdata/%s is the fixture of no registration, explicit or derived", gate)
		}
	}
}

// TestLifecyclePredicates checks the declared predicates on hand-made
// objects, including cases the fixtures do not show.
func TestLifecyclePredicates(t *testing.T) {
	ss := &apps.StatefulSet{}
	if clearStatefulSetMaxUnavailable(ss) {
		t.Error("OnDelete: nothing to clear")
	}
	ss.Spec.UpdateStrategy.RollingUpdate = &apps.RollingUpdateStatefulSetStrategy{Partition: 2}
	if clearStatefulSetMaxUnavailable(ss) {
		t.Error("no maxUnavailable: nothing to clear")
	}
	ss.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(2))
	if !clearStatefulSetMaxUnavailable(ss) || ss.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil || ss.Spec.UpdateStrategy.RollingUpdate.Partition != 2 {
		t.Errorf("maxUnavailable must be cleared, and only it: %+v", ss.Spec.UpdateStrategy)
	}

	pod := &api.Pod{Spec: api.PodSpec{Volumes: []api.Volume{
		{Name: "empty", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
		{Name: "projected", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
			{ConfigMap: &api.ConfigMapProjection{}},
			{PodCertificate: &api.PodCertificateProjection{}},
		}}}},
	}}}
	if !usesPodCertificateProjection(pod) || usesClusterTrustBundleProjection(pod) || usesHostnameOverride(pod) {
		t.Error("a podCertificate source in the second source of the second volume")
	}
	pod.Spec.Volumes[1].Projected.Sources[1] = api.VolumeProjection{ClusterTrustBundle: &api.ClusterTrustBundleProjection{}}
	if usesPodCertificateProjection(pod) || !usesClusterTrustBundleProjection(pod) {
		t.Error("a clusterTrustBundle source in the second source of the second volume")
	}

	spec := &api.PodSpec{Hostname: "h"}
	if clearHostnameOverride(spec) {
		t.Error("no hostnameOverride: nothing to clear")
	}
	spec.HostnameOverride = ptr.To("o")
	if !usesHostnameOverride(&api.Pod{Spec: *spec}) || !clearHostnameOverride(spec) || spec.HostnameOverride != nil || spec.Hostname != "h" {
		t.Errorf("hostnameOverride must be cleared, and only it: %+v", spec)
	}
}
