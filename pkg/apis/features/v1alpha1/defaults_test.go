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

package v1alpha1_test

import (
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/apis/features/install"
)

// TestCustomResourceFieldBindingDefaults: a kind is refused and held; a
// field or value is dropped unless refused, and what is stored is cleared
// when dropped and held when refused; what is set stays.
func TestCustomResourceFieldBindingDefaults(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	const (
		drop, refuse = featuresv1alpha1.CustomResourceWhenOffDrop, featuresv1alpha1.CustomResourceWhenOffRefuse
		clear, hold  = featuresv1alpha1.CustomResourceWhenStoredClear, featuresv1alpha1.CustomResourceWhenStoredHold
	)
	for _, tc := range []struct {
		name       string
		in         featuresv1alpha1.CustomResourceFieldBinding
		whenOff    featuresv1alpha1.CustomResourceWhenOff
		whenStored featuresv1alpha1.CustomResourceWhenStored
	}{
		{"a kind", featuresv1alpha1.CustomResourceFieldBinding{}, refuse, hold},
		{"a field", featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.color"}, drop, clear},
		{"a value", featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.size", Value: ptr.To("Huge")}, drop, clear},
		{"a refused value", featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.size", Value: ptr.To("Huge"), WhenOff: refuse}, refuse, hold},
		{"a refused value cleared", featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.size", WhenOff: refuse, WhenStored: clear}, refuse, clear},
		{"a dropped field held", featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.color", WhenStored: hold}, drop, hold},
		{"a kind as written", featuresv1alpha1.CustomResourceFieldBinding{WhenOff: drop, WhenStored: clear}, drop, clear},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &featuresv1alpha1.CustomResourceFeatureBinding{Spec: featuresv1alpha1.CustomResourceFeatureBindingSpec{
				Bindings: []featuresv1alpha1.CustomResourceFieldBinding{tc.in}}}
			scheme.Default(b)
			got := b.Spec.Bindings[0]
			if got.WhenOff != tc.whenOff || got.WhenStored != tc.whenStored {
				t.Errorf("defaulted to whenOff %q, whenStored %q; want %q, %q", got.WhenOff, got.WhenStored, tc.whenOff, tc.whenStored)
			}
		})
	}
}
