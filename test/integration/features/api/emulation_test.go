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

package api

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/integration/features/lifecycle"
)

// TestLifecycleAtEveryEmulatedVersion starts our kube-apiserver at every
// version it can emulate (--emulated-version, KEP-4330): the lifecycle must
// run there too, since a binary upgraded to a new release that still
// emulates the old one is the state an upgrade or a rollback passes through.
// At each version the apiserver announces exactly the gates it knows there,
// each described as of that version.
func TestLifecycleAtEveryEmulatedVersion(t *testing.T) {
	top := utilfeature.DefaultFeatureGate.DeepCopy().EmulationVersion()
	for minor := int(top.Minor()) - lifecycle.EmulatableMinors; minor <= int(top.Minor()); minor++ {
		v := version.MajorMinor(top.Major(), uint(minor))
		t.Run(v.String(), func(t *testing.T) {
			gate := utilfeature.DefaultFeatureGate.DeepCopy()
			if err := gate.SetEmulationVersion(v); err != nil {
				t.Fatal(err)
			}
			want := (&featurelifecycle.Announcer{Gate: gate}).Gates()
			specs := gate.GetAll()
			apiserver := harness.StartAPIServerProcess(t, "emulated", harness.SharedEtcd().Prefix,
				append(harness.LifecycleFlags, "--emulated-version="+v.String())...)
			client := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
			items := harness.WaitForFeatures(t, client, len(want))
			byName := map[string]featuresv1alpha1.Feature{}
			for _, f := range items {
				byName[f.Name] = f
			}
			for _, g := range want {
				f, ok := byName[featuresv1alpha1.FeatureName(string(g))]
				if !ok {
					t.Errorf("%s: no Feature of %s", v, g)
					continue
				}
				spec := specs[g]
				if f.Status.Version != v.String() || *f.Status.Default != spec.Default || f.Status.PreRelease != inventory.PreRelease(spec) {
					t.Errorf("%s: Feature %s is described as %s/%t/%s, the gate at %s is %t/%s",
						v, f.Name, f.Status.Version, *f.Status.Default, f.Status.PreRelease, v, spec.Default, spec.PreRelease)
				}
			}
			if f := byName[featuresv1alpha1.FeatureName("FeatureLifecycle")]; f.Status.State != featuresv1alpha1.FeatureStateEnabled {
				t.Errorf("%s: FeatureLifecycle is %q, want Enabled", v, f.Status.State)
			}
			t.Logf("emulating %s: %d Features announced", v, len(items))
		})
	}
}
