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

// Package api holds the serialization tests of the features.k8s.io API
// versions, as k8s.io/api does for the built-in groups.
package api

import (
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	genericfuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

var groups = []runtime.SchemeBuilder{
	featuresv1alpha1.SchemeBuilder,
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, builder := range groups {
		if err := builder.AddToScheme(scheme); err != nil {
			t.Fatalf("unexpected error adding to scheme: %v", err)
		}
	}
	return scheme
}

// TestRoundTripExternalTypes fuzzes every external kind and checks that it
// survives a round trip through JSON and protobuf.
func TestRoundTripExternalTypes(t *testing.T) {
	scheme := newScheme(t)
	codecs := serializer.NewCodecFactory(scheme)
	seed := rand.Int63()
	t.Logf("seed: %d", seed)
	// The generic fuzzer funcs are enough here: no defaulting or conversion
	// is involved when external types are encoded and decoded directly.
	f := fuzzer.FuzzerFor(genericfuzzer.Funcs, rand.NewSource(seed), codecs)

	roundtrip.RoundTripExternalTypes(t, scheme, codecs, f, nil)
}

// TestCompatibility checks every external kind against the serialized
// fixtures in testdata: HEAD must match what the current types produce, and
// the fixtures of previous releases (testdata/v*) must still decode and
// re-encode to the same bytes. To regenerate the HEAD fixtures after an
// intended change of the API, run
//
//	UPDATE_COMPATIBILITY_FIXTURE_DATA=true go test k8s.io/features/api -run //HEAD
func TestCompatibility(t *testing.T) {
	opts := roundtrip.NewCompatibilityTestOptions(newScheme(t)).Complete(t)

	// Limit to the kinds of features.k8s.io: the meta kinds that
	// metav1.AddToGroupVersion registers (Status, APIGroup, ...) have their
	// fixtures in k8s.io/api.
	kinds := []schema.GroupVersionKind{}
	for _, gvk := range opts.Kinds {
		if gvk.Group == featuresv1alpha1.GroupName {
			kinds = append(kinds, gvk)
		}
	}
	opts.Kinds = kinds

	opts.Run(t)
}
