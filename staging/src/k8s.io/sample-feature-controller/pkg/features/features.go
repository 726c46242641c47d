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

// Package features holds the feature gates of the sample operator, as any
// component built on k8s.io/component-base declares its own.
package features

import (
	"k8s.io/component-base/featuregate"
)

const (
	// WidgetColors lets a Widget have a color (spec.color) and the size
	// Huge, which the operator copies into the Widget's ConfigMap. The
	// Widget CRD binds both to the Feature widget-colors.
	WidgetColors featuregate.Feature = "WidgetColors"

	// Gadgets lets the operator serve Gadgets. The Gadget CRD binds the
	// whole kind to the Feature gadgets.
	Gadgets featuregate.Feature = "Gadgets"
)

// Specs are the operator's gates, as its Features declare them in
// artifacts/examples/features.yaml.
var Specs = map[featuregate.Feature]featuregate.FeatureSpec{
	WidgetColors: {Default: true, PreRelease: featuregate.Beta},
	Gadgets:      {Default: false, PreRelease: featuregate.Alpha},
}

// NewGate returns a feature gate holding the operator's gates.
func NewGate() featuregate.MutableFeatureGate {
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(Specs); err != nil {
		panic(err) // Specs are constant and valid
	}
	return gate
}
