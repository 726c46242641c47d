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
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

func TestSpecAt(t *testing.T) {
	specs := featuregate.VersionedSpecs{
		{Version: version.MajorMinor(1, 35), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MajorMinor(1, 37), Default: true, PreRelease: featuregate.Beta},
	}
	alpha, beta := specs[0], specs[1]
	cases := []struct {
		at     string
		want   featuregate.FeatureSpec
		wantOK bool
	}{
		{"1.34", featuregate.FeatureSpec{}, false},
		{"1.35", alpha, true},
		{"1.36", alpha, true},
		{"1.37", beta, true},
		{"1.38", beta, true},
		{"x", featuregate.FeatureSpec{}, false},
	}
	for _, tc := range cases {
		spec, ok := SpecAt(specs, tc.at)
		if ok != tc.wantOK || (ok && (spec.Default != tc.want.Default || spec.PreRelease != tc.want.PreRelease)) {
			t.Errorf("SpecAt(%s) = %t/%s, %t; want %t/%s, %t", tc.at, spec.Default, spec.PreRelease, ok, tc.want.Default, tc.want.PreRelease, tc.wantOK)
		}
	}
	preAlpha := featuregate.VersionedSpecs{{Version: version.MajorMinor(1, 36), PreRelease: featuregate.PreAlpha}}
	if _, ok := SpecAt(preAlpha, "1.36"); ok {
		t.Error("a PreAlpha gate must not exist")
	}
}

func TestPreRelease(t *testing.T) {
	cases := []struct {
		spec featuregate.FeatureSpec
		want featuresv1alpha1.FeaturePreRelease
	}{
		{featuregate.FeatureSpec{PreRelease: featuregate.Alpha}, featuresv1alpha1.FeaturePreReleaseAlpha},
		{featuregate.FeatureSpec{PreRelease: featuregate.Beta}, featuresv1alpha1.FeaturePreReleaseBeta},
		{featuregate.FeatureSpec{PreRelease: featuregate.Deprecated}, featuresv1alpha1.FeaturePreReleaseDeprecated},
		{featuregate.FeatureSpec{PreRelease: featuregate.GA}, featuresv1alpha1.FeaturePreReleaseGA},
	}
	for _, tc := range cases {
		if got := PreRelease(tc.spec); got != tc.want {
			t.Errorf("PreRelease(%s) = %s, want %s", tc.spec.PreRelease, got, tc.want)
		}
	}
}
