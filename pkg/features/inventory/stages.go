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

package inventory

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// SpecAt returns the spec of a gate at the emulation version at ("major.minor"),
// from its versioned specs, with the min-compatibility version one below (as
// kube-apiserver defaults it), and false when the gate does not exist there
// (no spec at or below at, or PreAlpha).
func SpecAt(specs featuregate.VersionedSpecs, at string) (featuregate.FeatureSpec, bool) {
	v, err := version.Parse(at)
	if err != nil {
		return featuregate.FeatureSpec{}, false
	}
	minCompat := v.SubtractMinor(1)
	for i := len(specs) - 1; i >= 0; i-- {
		s := specs[i]
		if s.Version == nil || s.Version.GreaterThan(v) ||
			(s.MinCompatibilityVersion != nil && minCompat.LessThan(s.MinCompatibilityVersion)) {
			continue
		}
		return s, s.PreRelease != featuregate.PreAlpha
	}
	return featuregate.FeatureSpec{}, false
}

// PreRelease maps component-base's prerelease of a gate to the API's.
func PreRelease(spec featuregate.FeatureSpec) featuresv1alpha1.FeaturePreRelease {
	switch spec.PreRelease {
	case featuregate.Alpha:
		return featuresv1alpha1.FeaturePreReleaseAlpha
	case featuregate.Beta:
		return featuresv1alpha1.FeaturePreReleaseBeta
	case featuregate.Deprecated:
		return featuresv1alpha1.FeaturePreReleaseDeprecated
	default:
		return featuresv1alpha1.FeaturePreReleaseGA
	}
}
