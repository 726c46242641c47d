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

package features

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// emulatableMinors is how many minor versions below its own a kube-apiserver
// can emulate (KEP-4330: --emulated-version from binary-3 to binary).
const emulatableMinors = 3

// changeableAt returns the newest version this binary can emulate at which
// gate can be turned on and off (known, not pre-alpha, not locked): a
// registration is needed exactly when there is one. A gate GA and locked at
// the binary's version (HostnameOverride at 1.37) can still change while the
// binary emulates an older release, which is how an upgrade is rolled back.
func changeableAt(gate featuregate.Feature) (*version.Version, bool) {
	specs, ok := utilfeature.DefaultMutableFeatureGate.GetAllVersioned()[gate]
	if !ok {
		return nil, false
	}
	top := utilfeature.DefaultMutableFeatureGate.EmulationVersion()
	for minor := int(top.Minor()); minor >= max(0, int(top.Minor())-emulatableMinors); minor-- {
		v := version.MajorMinor(top.Major(), uint(minor))
		var at *featuregate.FeatureSpec
		for i := range specs {
			if specs[i].Version != nil && !specs[i].Version.GreaterThan(v) {
				at = &specs[i]
			}
		}
		if at != nil && !at.LockToDefault && at.PreRelease != featuregate.PreAlpha {
			return v, true
		}
	}
	return nil, false
}

// emulateChangeable sets the emulation version for the duration of the test
// to the newest at which gate can change, when the default cannot.
func emulateChangeable(t *testing.T, gate featuregate.Feature) {
	t.Helper()
	v, ok := changeableAt(gate)
	if !ok {
		t.Fatalf("%s cannot change at any version this binary emulates", gate)
	}
	if !v.EqualTo(utilfeature.DefaultMutableFeatureGate.EmulationVersion()) {
		t.Logf("%s is locked at %s: testing at emulation version %s", gate, utilfeature.DefaultMutableFeatureGate.EmulationVersion(), v)
		featuregatetesting.SetFeatureGateEmulationVersionDuringTest(t, utilfeature.DefaultFeatureGate, v)
	}
}
