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

package featurelifecycle

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// versions is the job of the emulation versions: the version a Feature is
// described at, the version-keyed tasks of its gate (versiontasks.go) and
// its UpgradeSafe and DowngradeSafe conditions (versionsafety.go).
type versions struct {
	self       string
	gates      *gateSpecs
	lifecycles map[featuregate.Feature]lifecycle.Lifecycle
	recorder   record.EventRecorder
	// safety sets the version conditions; nil sets none.
	safety *versionSafety
}

func newVersions(self string, gates *gateSpecs, lifecycles map[featuregate.Feature]lifecycle.Lifecycle, recorder record.EventRecorder, vc *inventory.VersionChanges) *versions {
	v := &versions{self: self, gates: gates, lifecycles: lifecycles, recorder: recorder}
	if vc != nil {
		v.safety = newVersionSafety(vc)
	}
	return v
}

// LowestVersion returns the lowest of own and the emulation versions
// ("major.minor") in versions, the version the cluster can still fall back
// to while its apiservers emulate different versions (a rolling change of
// --emulated-version). Versions that do not parse are ignored.
func LowestVersion(own string, versions map[string]string) string {
	lowest, err := version.Parse(own)
	if err != nil {
		return own
	}
	out := own
	for _, s := range versions {
		v, err := version.Parse(s)
		if err != nil {
			continue
		}
		if v.LessThan(lowest) {
			lowest, out = v, fmt.Sprintf("%d.%d", v.Major(), v.Minor())
		}
	}
	return out
}

// description returns the spec a Feature of gate is described with, and
// its version: the gate at the lowest emulation version among this
// apiserver and the voters (what the cluster can still fall back to), or
// own (this apiserver's spec) at its own version when the gate does not
// exist at that lower version.
func (v *versions) description(gate string, own featuregate.FeatureSpec, versions map[string]string) (featuregate.FeatureSpec, string) {
	self := v.gates.emulationVersion()
	lowest := LowestVersion(self, versions)
	if lowest == self {
		return own, self
	}
	if spec, ok := inventory.SpecAt(v.gates.versionedSpecs(gate), lowest); ok {
		return spec, lowest
	}
	return own, self
}
