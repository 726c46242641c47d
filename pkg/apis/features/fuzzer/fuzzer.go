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

// Package fuzzer holds the fuzzer functions of the features.k8s.io API group,
// used by the round-trip serialization tests.
package fuzzer

import (
	"sigs.k8s.io/randfill"

	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"

	"k8s.io/kubernetes/pkg/apis/features"
)

// Funcs returns the fuzzer functions for the features.k8s.io API group.
//
// They fill the internal types so that an object survives a round trip
// internal -> v1alpha1 -> wire -> v1alpha1 (defaulted) -> internal: fields
// the v1alpha1 defaulter sets when empty are never left empty, and enum
// fields hold one of their values.
func Funcs(codecs runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(m *features.FeatureManagement, c randfill.Continue) {
			// spec.management has +default="CommandLine": decoding v1alpha1
			// turns "" into CommandLine, so "" does not round-trip.
			*m = oneOf(c, features.FeatureManagementCommandLine, features.FeatureManagementDynamic)
		},
		func(s *features.FeatureDesiredState, c randfill.Continue) {
			*s = oneOf(c, "", features.FeatureDesiredStateEnabled, features.FeatureDesiredStateDisabled)
		},
		func(s *features.FeatureState, c randfill.Continue) {
			*s = oneOf(c, "", features.FeatureStateEnabled, features.FeatureStateDisabled,
				features.FeatureStateEnabling, features.FeatureStateDisabling)
		},
		func(p *features.FeaturePreRelease, c randfill.Continue) {
			*p = oneOf(c, "", features.FeaturePreReleaseAlpha, features.FeaturePreReleaseBeta,
				features.FeaturePreReleaseGA, features.FeaturePreReleaseDeprecated)
		},
	}
}

// oneOf picks one of values at random.
func oneOf[T any](c randfill.Continue, values ...T) T {
	return values[c.Rand.Intn(len(values))]
}
