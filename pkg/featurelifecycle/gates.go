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
	"sync"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

// gateSpecs are the specs of this apiserver's gates, as a pass over one
// Feature reads them: the feature gate's GetAll and GetAllVersioned copy
// every gate, so they are read once per emulation version, not once per
// pass. kube-apiserver registers its gates and their specs before it
// serves; while it runs a gate's value may change (a Dynamic gate follows
// its Feature), its spec does not. A new emulation version (a pointer the
// gate replaces when it is set) is read anew.
type gateSpecs struct {
	gate featuregate.MutableVersionedFeatureGate

	mu sync.Mutex
	// at and minCompat are the versions the snapshot was read at.
	at, minCompat *version.Version
	// version is at as "major.minor" (VersionOf).
	version   string
	specs     map[featuregate.Feature]featuregate.FeatureSpec
	versioned map[featuregate.Feature]featuregate.VersionedSpecs
}

func newGateSpecs(gate featuregate.MutableVersionedFeatureGate) *gateSpecs {
	return &gateSpecs{gate: gate}
}

// current returns the snapshot, read anew when the emulation version
// changed. The maps it returns are never written again.
func (g *gateSpecs) current() (string, map[featuregate.Feature]featuregate.FeatureSpec, map[featuregate.Feature]featuregate.VersionedSpecs) {
	at, minCompat := g.gate.EmulationVersion(), g.gate.MinCompatibilityVersion()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.specs == nil || at != g.at || minCompat != g.minCompat {
		g.at, g.minCompat = at, minCompat
		g.version = fmt.Sprintf("%d.%d", at.Major(), at.Minor())
		g.specs, g.versioned = g.gate.GetAll(), g.gate.GetAllVersioned()
	}
	return g.version, g.specs, g.versioned
}

// spec returns the gate's spec at this apiserver's emulation version and
// whether this apiserver knows the gate there.
func (g *gateSpecs) spec(gate string) (featuregate.FeatureSpec, bool) {
	_, specs, _ := g.current()
	spec, ok := specs[featuregate.Feature(gate)]
	return spec, ok && spec.PreRelease != featuregate.PreAlpha
}

// versionedSpecs returns the gate's specs at every version.
func (g *gateSpecs) versionedSpecs(gate string) featuregate.VersionedSpecs {
	_, _, versioned := g.current()
	return versioned[featuregate.Feature(gate)]
}

// emulationVersion returns this apiserver's emulation version as
// "major.minor" (VersionOf).
func (g *gateSpecs) emulationVersion() string {
	v, _, _ := g.current()
	return v
}
