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

// Package features declares the feature gates of this project and, in later
// stages, the lifecycle registry where feature authors declare the tasks a
// gate's transitions need.
package features

import (
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

// FeatureLifecycle turns on the features.k8s.io API group's machinery in
// kube-apiserver: Feature objects announced for every known gate (KEP-3920).
// The group is served only when this gate is on and the runtime-config
// enables features.k8s.io/v1alpha1.
const FeatureLifecycle featuregate.Feature = "FeatureLifecycle"

// defaultVersionedFeatureGates are this project's gates with their history.
//
// FeatureLifecycle is declared from the oldest release this binary can
// emulate (KEP-4330: binary-3, 1.34 for 1.37): a binary upgraded to a new
// release that still emulates the old one is exactly the state the lifecycle
// has to manage, so it must be available at every emulated version
// (TestLifecycleAtEveryEmulatedVersion).
var defaultVersionedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	FeatureLifecycle: {
		{Version: version.MustParse("1.34"), Default: false, PreRelease: featuregate.Alpha},
	},
}

func init() {
	utilruntime.Must(utilfeature.DefaultMutableFeatureGate.AddVersioned(defaultVersionedFeatureGates))
}
