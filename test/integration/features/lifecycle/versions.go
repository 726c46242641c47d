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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// EmulatableMinors is how many minor versions below its own a kube-apiserver
// can emulate (KEP-4330: --emulated-version from binary-3 to binary).
const EmulatableMinors = 3

// ChangeableAt returns the newest version gate's binary can emulate (from
// its default emulation version down) at which feature can be turned on and
// off: known, not pre-alpha, not locked. A registration is needed exactly
// when there is one. A gate GA and locked at the binary's version
// (HostnameOverride at 1.37) can still change while the binary emulates an
// older release, which is how an upgrade is rolled back.
func ChangeableAt(gate featuregate.MutableVersionedFeatureGate, feature featuregate.Feature) (*version.Version, bool) {
	specs, ok := gate.GetAllVersioned()[feature]
	if !ok {
		return nil, false
	}
	top := gate.EmulationVersion()
	for minor := int(top.Minor()); minor >= max(0, int(top.Minor())-EmulatableMinors); minor-- {
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

// DecodeStored decodes an object as etcd holds it into its internal type,
// without defaulting: a check of what is stored must not see what the test
// process's defaulting (with its own gates) would add on reading, such as
// apps/v1's maxUnavailable: 1 while MaxUnavailableStatefulSet is on.
func DecodeStored(data []byte) (runtime.Object, *schema.GroupVersionKind, error) {
	external, gvk, err := legacyscheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, gvk, err
	}
	internal, err := legacyscheme.Scheme.ConvertToVersion(external, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	return internal, gvk, err
}
