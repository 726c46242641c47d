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

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// addDefaultingFuncs registers the defaulters generated from the +default
// markers of k8s.io/api/features/v1alpha1 (spec.management: CommandLine) and
// the SetDefaults_ functions below.
func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

// SetDefaults_CustomResourceFieldBinding defaults what a binding does while
// its Feature is off: a kind is refused and held; a field or value is
// dropped (whenOff Drop), and what is stored is cleared when it is dropped
// and held when it is refused, as built-in gates do with the fields their
// strategies drop and the values their validation refuses.
func SetDefaults_CustomResourceFieldBinding(obj *featuresv1alpha1.CustomResourceFieldBinding) {
	if obj.Path == "" {
		if obj.WhenOff == "" {
			obj.WhenOff = featuresv1alpha1.CustomResourceWhenOffRefuse
		}
		if obj.WhenStored == "" {
			obj.WhenStored = featuresv1alpha1.CustomResourceWhenStoredHold
		}
		return
	}
	if obj.WhenOff == "" {
		obj.WhenOff = featuresv1alpha1.CustomResourceWhenOffDrop
	}
	if obj.WhenStored == "" {
		obj.WhenStored = featuresv1alpha1.CustomResourceWhenStoredClear
		if obj.WhenOff == featuresv1alpha1.CustomResourceWhenOffRefuse {
			obj.WhenStored = featuresv1alpha1.CustomResourceWhenStoredHold
		}
	}
}
