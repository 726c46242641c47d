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

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	lifecyclefixtures "k8s.io/kubernetes/test/integration/features/lifecycle"
)

// changeableAt returns the newest version this binary can emulate at which
// gate can be turned on and off (lifecyclefixtures.ChangeableAt).
func changeableAt(gate featuregate.Feature) (*version.Version, bool) {
	return lifecyclefixtures.ChangeableAt(utilfeature.DefaultFeatureGate.DeepCopy(), gate)
}

// emulateChangeable sets the emulation version for the duration of the test
// to the newest at which gate can change, when the default cannot.
func emulateChangeable(t *testing.T, gate featuregate.Feature) {
	t.Helper()
	v, ok := changeableAt(gate)
	if !ok {
		t.Fatalf("%s cannot change at any version this binary emulates", gate)
	}
	if !v.EqualTo(utilfeature.DefaultFeatureGate.DeepCopy().EmulationVersion()) {
		t.Logf("%s is locked at %s: testing at emulation version %s", gate, utilfeature.DefaultFeatureGate.DeepCopy().EmulationVersion(), v)
		featuregatetesting.SetFeatureGateEmulationVersionDuringTest(t, utilfeature.DefaultFeatureGate, v)
	}
}
