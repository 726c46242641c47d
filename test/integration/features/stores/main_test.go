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

// Package stores holds integration tests of the feature lifecycle
// (KEP-3920): the registry stores its server flow works with are those
// kube-apiserver installed (pkg/featurelifecycle/storecatalog), a resource
// added to kube-apiserver is covered with no change to the lifecycle, and
// the catalog built without a kube-apiserver (for generators and unit
// tests) is kube-apiserver's.
package stores

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/test/integration/features/harness"
)

// carpGate is a gate of this test: its Feature is Dynamic, and turning it
// off clears spec.hostname from the Carps of testapigroup.apimachinery.k8s.io,
// a resource no list of the feature lifecycle names.
const carpGate featuregate.Feature = "LifecycleTestCarpHostnames"

func TestMain(m *testing.M) {
	// Before any server adds the gates to its flags.
	if err := utilfeature.DefaultFeatureGate.(featuregate.MutableVersionedFeatureGate).AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		carpGate: {{Version: version.MajorMinor(1, 0), Default: true, PreRelease: featuregate.Beta}},
	}); err != nil {
		panic(err)
	}
	harness.EtcdMain(m.Run)
}
