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
	"strconv"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"k8s.io/kubernetes/pkg/apis/features"
)

// Bounds of a rollout.
const (
	// MaxRolloutSteps bounds spec.rollout.steps.
	MaxRolloutSteps = 20
	// MaxRolloutSeconds bounds a rollout's durations: a day.
	MaxRolloutSeconds = 24 * 60 * 60
	// MaxCohortSelectors bounds status.rollout.cohort.selectors.
	MaxCohortSelectors = MaxRolloutSteps
)

var (
	rolloutPhases = sets.New("Progressing", "Paused", "Failed", "RolledBack", "Aborted", "Complete")
	rolloutScopes = sets.New("Nodes", "APIServers")
)

// validateRollout validates spec.rollout. Whether the Feature can roll out
// in steps at all (Dynamic, a gate that can canary) is the FeatureStatus
// admission plugin's to say for a user's request: it knows the lifecycle
// registry, and kube-apiserver's own write of spec.management must not fail
// on it.
func validateRollout(spec *features.FeatureSpec, fldPath *field.Path) field.ErrorList {
	r := spec.Rollout
	var allErrs field.ErrorList
	stepsPath := fldPath.Child("steps")
	if len(r.Steps) > MaxRolloutSteps {
		allErrs = append(allErrs, field.TooMany(stepsPath, len(r.Steps), MaxRolloutSteps))
	}
	lastPercent := int32(0)
	for i, st := range r.Steps {
		p := stepsPath.Index(i)
		set := 0
		if st.Count != 0 {
			set++
			if st.Count < 0 {
				allErrs = append(allErrs, field.Invalid(p.Child("count"), st.Count, "must be greater than 0"))
			}
		}
		if st.Percent != 0 {
			set++
			if st.Percent < 0 || st.Percent > 100 {
				allErrs = append(allErrs, field.Invalid(p.Child("percent"), st.Percent, "must be between 1 and 100"))
			} else if st.Percent < lastPercent {
				allErrs = append(allErrs, field.Invalid(p.Child("percent"), st.Percent, "must not be lower than an earlier step's: a cohort never shrinks"))
			} else {
				lastPercent = st.Percent
			}
		}
		if st.Selector != nil {
			set++
			allErrs = append(allErrs, metav1validation.ValidateLabelSelector(st.Selector,
				metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))...)
		}
		if set != 1 {
			allErrs = append(allErrs, field.Invalid(p, "", "exactly one of count, percent and selector must be set"))
		}
		allErrs = append(allErrs, validateSeconds(st.SoakSeconds, 0, p.Child("soakSeconds"))...)
	}
	if a := r.Analysis; a != nil {
		p := fldPath.Child("analysis")
		allErrs = append(allErrs, validateSeconds(a.IntervalSeconds, 1, p.Child("intervalSeconds"))...)
		allErrs = append(allErrs, validateSeconds(a.ReportTimeoutSeconds, 1, p.Child("reportTimeoutSeconds"))...)
		if a.MaxNotReady < 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("maxNotReady"), a.MaxNotReady, "must be greater than or equal to 0"))
		}
		if a.MaxRestarts < 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("maxRestarts"), a.MaxRestarts, "must be greater than or equal to 0"))
		}
		if v := a.MaxErrorRateIncreasePercent; v != nil && (*v < 0 || *v > 100) {
			allErrs = append(allErrs, field.Invalid(p.Child("maxErrorRateIncreasePercent"), *v, "must be between 0 and 100, inclusive"))
		}
		if v := a.MinRequests; v != nil && *v < 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("minRequests"), *v, "must be greater than or equal to 0"))
		}
	}
	return allErrs
}

// validateSeconds checks an optional duration in seconds against
// [least, MaxRolloutSeconds].
func validateSeconds(v *int32, least int32, p *field.Path) field.ErrorList {
	if v == nil || (*v >= least && *v <= MaxRolloutSeconds) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, *v, "must be between "+strconv.Itoa(int(least))+" and "+strconv.Itoa(MaxRolloutSeconds))}
}

// validateRolloutStatus validates status.rollout, which kube-apiserver writes
// and components read.
func validateRolloutStatus(r *features.FeatureRolloutStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !rolloutPhases.Has(string(r.Phase)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("phase"), r.Phase, sets.List(rolloutPhases)))
	}
	if !rolloutScopes.Has(string(r.Scope)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scope"), r.Scope, sets.List(rolloutScopes)))
	}
	if !desiredStates.Has(string(r.From)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("from"), r.From, sets.List(desiredStates)))
	}
	if !desiredStates.Has(string(r.To)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("to"), r.To, sets.List(desiredStates)))
	}
	if r.Step < 0 || r.Step > MaxRolloutSteps {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("step"), r.Step, "must be between 0 and the number of steps"))
	}
	if r.Candidates < 0 || r.Members < 0 || r.Members > r.Candidates {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("members"), r.Members, "must be between 0 and candidates"))
	}
	allErrs = append(allErrs, validateCohort(r.Scope, &r.Cohort, fldPath.Child("cohort"))...)
	allErrs = append(allErrs, maxLen(fldPath.Child("reason"), r.Reason, 128)...)
	allErrs = append(allErrs, maxLen(fldPath.Child("message"), r.Message, MaxMessageLength)...)
	return allErrs
}

// validateCohort validates a rollout's cohort in scope, which components
// read to decide whether they are members.
func validateCohort(scope features.FeatureRolloutScope, cohort *features.FeatureCohort, c *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if scope == features.FeatureRolloutScopeAPIServers && len(cohort.Selectors) > 0 {
		allErrs = append(allErrs, field.Forbidden(c.Child("selectors"), "apiservers have no labels: a rollout on APIServers cannot select by label"))
	}
	if cohort.Below != "" {
		if _, err := strconv.ParseUint(cohort.Below, 10, 64); err != nil {
			allErrs = append(allErrs, field.Invalid(c.Child("below"), cohort.Below, "must be a decimal unsigned 64-bit integer"))
		}
	}
	allErrs = append(allErrs, maxLen(c.Child("seed"), cohort.Seed, 128)...)
	if len(cohort.Selectors) > MaxCohortSelectors {
		allErrs = append(allErrs, field.TooMany(c.Child("selectors"), len(cohort.Selectors), MaxCohortSelectors))
	}
	for i := range cohort.Selectors {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(&cohort.Selectors[i],
			metav1validation.LabelSelectorValidationOptions{}, c.Child("selectors").Index(i))...)
	}
	return allErrs
}
