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

package featuregate

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const benchFeatures = 300

// benchSpecs generates benchFeatures features with realistic version
// histories: alpha, beta (some default-on, some needing a min compatibility
// version), GA locked, and deprecated features.
func benchSpecs() map[featuregate.Feature]featuregate.VersionedSpecs {
	v := func(minor int) *version.Version { return version.MajorMinor(1, uint(minor)) }
	specs := map[featuregate.Feature]featuregate.VersionedSpecs{}
	for i := range benchFeatures {
		name := featuregate.Feature(fmt.Sprintf("BenchFeature%03d", i))
		intro := 20 + i%17 // 1.20 .. 1.36
		var s featuregate.VersionedSpecs
		switch i % 5 {
		case 0: // alpha
			s = featuregate.VersionedSpecs{{Version: v(intro), PreRelease: featuregate.Alpha}}
		case 1: // alpha, then beta on
			s = featuregate.VersionedSpecs{
				{Version: v(intro - 1), PreRelease: featuregate.Alpha},
				{Version: v(intro), Default: true, PreRelease: featuregate.Beta},
			}
		case 2: // beta off, on from a min compatibility version
			s = featuregate.VersionedSpecs{
				{Version: v(intro), PreRelease: featuregate.Beta},
				{Version: v(intro), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: v(intro)},
			}
		case 3: // alpha, beta, GA locked
			s = featuregate.VersionedSpecs{
				{Version: v(intro - 3), PreRelease: featuregate.Alpha},
				{Version: v(intro - 2), Default: true, PreRelease: featuregate.Beta},
				{Version: v(intro), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
			}
		case 4: // GA, then deprecated
			s = featuregate.VersionedSpecs{
				{Version: v(intro - 5), Default: true, PreRelease: featuregate.GA},
				{Version: v(intro), PreRelease: featuregate.Deprecated},
			}
		}
		specs[name] = s
	}
	return specs
}

// The features the benchmark checks: one set explicitly through SetFromMap,
// one left at its default.
const (
	benchExplicit featuregate.Feature = "BenchFeature150" // alpha
	benchDefault  featuregate.Feature = "BenchFeature151" // beta, on by default
)

func newBenchGate(b *testing.B) featuregate.MutableVersionedFeatureGate {
	b.Helper()
	g := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	if err := g.AddVersioned(benchSpecs()); err != nil {
		b.Fatal(err)
	}
	if err := g.SetFromMap(map[string]bool{string(benchExplicit): true}); err != nil {
		b.Fatal(err)
	}
	return g
}

var benchSink bool

// BenchmarkEnabled compares upstream's Enabled with the reporting gate's in
// one run, so that the ratios can be read off.
func BenchmarkEnabled(b *testing.B) {
	gates := []struct {
		name string
		gate featuregate.FeatureGate
	}{
		{"upstream", newBenchGate(b)},
		{"reporting", Wrap(newBenchGate(b), "bench")},
	}
	for _, feature := range []struct {
		name    string
		feature featuregate.Feature
	}{{"explicit", benchExplicit}, {"default", benchDefault}} {
		for _, g := range gates {
			b.Run(g.name+"/"+feature.name, func(b *testing.B) {
				if !g.gate.Enabled(feature.feature) { // also the first use
					b.Fatalf("%s is not enabled", feature.feature)
				}
				b.ReportAllocs()
				var v bool
				for b.Loop() {
					v = g.gate.Enabled(feature.feature)
				}
				benchSink = v
			})
		}
	}
}
