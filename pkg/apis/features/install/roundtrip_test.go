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

package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"k8s.io/kubernetes/pkg/apis/features/fuzzer"
	"k8s.io/kubernetes/pkg/apis/features/v1alpha1"
)

// TestRoundTrip fuzzes every internal kind of the group and checks that it
// survives internal -> v1alpha1 -> JSON -> v1alpha1 -> internal, and the same
// through protobuf.
func TestRoundTrip(t *testing.T) {
	roundtrip.RoundTripTestForAPIGroup(t, Install, fuzzer.Funcs)
	roundtrip.RoundTripProtobufTestForAPIGroup(t, Install, fuzzer.Funcs)
}

// TestRoundtripToUnstructured checks that every external kind of the group,
// fuzzed as its internal type and converted, reaches the same unstructured
// object through JSON and through CBOR, and comes back unchanged from it.
func TestRoundtripToUnstructured(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)

	roundtrip.RoundtripToUnstructured(t, scheme, fuzzer.Funcs, sets.New(
		// Options kinds registered by metav1.AddToGroupVersion have no
		// internal type in this group and are never a request body here.
		v1alpha1.SchemeGroupVersion.WithKind("CreateOptions"),
		v1alpha1.SchemeGroupVersion.WithKind("PatchOptions"),
		v1alpha1.SchemeGroupVersion.WithKind("UpdateOptions"),
	), nil)
}
