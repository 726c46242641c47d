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

package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apivalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/apis/features"
)

// followedManagements are the managements whose Features have a target.
var followedManagements = sets.New(string(features.FeatureManagementCentral), string(features.FeatureManagementDynamic))

// ValidateFeatureTarget validates a new FeatureTarget.
func ValidateFeatureTarget(t *features.FeatureTarget) field.ErrorList {
	allErrs := validation.ValidateObjectMeta(&t.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validateTargetSpec(&t.Spec, field.NewPath("spec"))...)
	if len(allErrs) == 0 && t.GenerateName == "" {
		if want := featuresv1alpha1.FeatureName(t.Spec.Gate); t.Name != want {
			allErrs = append(allErrs, field.Invalid(field.NewPath("metadata", "name"), t.Name,
				fmt.Sprintf("must be %q, the name of the Feature of spec.gate %q", want, t.Spec.Gate)))
		}
	}
	return allErrs
}

// ValidateFeatureTargetUpdate validates an update of a FeatureTarget.
func ValidateFeatureTargetUpdate(t, old *features.FeatureTarget) field.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	allErrs = append(allErrs, validateTargetSpec(&t.Spec, spec)...)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(t.Spec.Gate, old.Spec.Gate, spec.Child("gate"))...)
	return allErrs
}

func validateTargetSpec(s *features.FeatureTargetSpec, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	gatePath := path.Child("gate")
	switch {
	case s.Gate == "":
		allErrs = append(allErrs, field.Required(gatePath, "the Feature's spec.gate"))
	case !isGateName(s.Gate):
		allErrs = append(allErrs, field.Invalid(gatePath, s.Gate,
			"must be a feature gate name: a letter followed by letters and digits, e.g. MaxUnavailableStatefulSet"))
	}
	if s.Management == "" {
		allErrs = append(allErrs, field.Required(path.Child("management"), "Central or Dynamic"))
	} else if !followedManagements.Has(string(s.Management)) {
		allErrs = append(allErrs, field.NotSupported(path.Child("management"), s.Management, sets.List(followedManagements)))
	}
	allErrs = append(allErrs, validateTargetState(s.DesiredState, path.Child("desiredState"))...)
	if r := s.Rollout; r != nil {
		rp := path.Child("rollout")
		if s.Management != features.FeatureManagementDynamic {
			allErrs = append(allErrs, field.Forbidden(rp, "only a Dynamic Feature rolls out in steps"))
		}
		if !rolloutScopes.Has(string(r.Scope)) {
			allErrs = append(allErrs, field.NotSupported(rp.Child("scope"), r.Scope, sets.List(rolloutScopes)))
		}
		allErrs = append(allErrs, validateTargetState(r.DesiredState, rp.Child("desiredState"))...)
		allErrs = append(allErrs, validateCohort(r.Scope, &r.Cohort, rp.Child("cohort"))...)
	}
	return allErrs
}

func validateTargetState(s features.FeatureDesiredState, p *field.Path) field.ErrorList {
	if s == "" {
		return field.ErrorList{field.Required(p, "Enabled or Disabled")}
	}
	if !desiredStates.Has(string(s)) {
		return field.ErrorList{field.NotSupported(p, s, sets.List(desiredStates))}
	}
	return nil
}
