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

	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubefeatures "k8s.io/kubernetes/pkg/features"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// benchDeployment is a Deployment whose template uses PodLevelResources.
func benchDeployment() *apps.Deployment {
	d := &apps.Deployment{}
	d.Name, d.Namespace = "web", "default"
	d.Spec.Selector = nil
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec = api.PodSpec{
		Resources: &api.ResourceRequirements{Limits: api.ResourceList{api.ResourceCPU: resource.MustParse("2")}},
		Containers: []api.Container{{
			Name: "app", Image: "registry.k8s.io/pause:3.10",
			Env:   []api.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}},
			Ports: []api.ContainerPort{{ContainerPort: 8080, Protocol: api.ProtocolTCP}},
		}},
		Volumes: []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}},
	}
	return d
}

// BenchmarkClearTemplateField compares, per object, clearing what
// PodLevelResources guards from a Deployment's pod template: ours, the
// derived clear function (to the served version, unstructured, back), with
// upstream's own drop rule, DropDisabledTemplateFields with the gate off,
// which a hand-written registration would call. Both start from a copy.
func BenchmarkClearTemplateField(b *testing.B) {
	inv, err := inventory.Load()
	if err != nil {
		b.Fatal(err)
	}
	clearer, err := pathClearer(inv, testCatalog(b), apps.Resource("deployments"), []gatedfield.Path{gatedfield.MustParse("spec.template.spec.resources")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	d := benchDeployment()
	b.Run("upstream/deployment", func(b *testing.B) {
		featuregatetesting.SetFeatureGatesDuringTest(b, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
			kubefeatures.PodLevelResources: false, kubefeatures.InPlacePodLevelResourcesVerticalScaling: false,
			kubefeatures.PodLevelResourcesFixDefaulting: false, kubefeatures.PodLevelResourcesFixKubeletQOSClass: false,
			kubefeatures.PodLevelResourceManagers: false,
		})
		b.ReportAllocs()
		for b.Loop() {
			c := d.DeepCopy()
			podutil.DropDisabledTemplateFields(&c.Spec.Template, nil)
			if c.Spec.Template.Spec.Resources != nil {
				b.Fatal("not dropped")
			}
		}
	})
	b.Run("ours/deployment", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := d.DeepCopy()
			if !clearer.Clear(c) {
				b.Fatal("not cleared")
			}
		}
	})
}
