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
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apivalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/apis/features"
)

// Bounds on the size of a FeatureReport.
const (
	// MaxReportedGates bounds spec.gates: kube-apiserver reports every gate
	// it knows (253 in v1.37).
	MaxReportedGates = 1024
	// MaxReportLeaseDurationSeconds bounds spec.leaseDurationSeconds.
	MaxReportLeaseDurationSeconds = 3600
)

// ValidateFeatureReport validates a new FeatureReport.
func ValidateFeatureReport(r *features.FeatureReport) field.ErrorList {
	allErrs := validation.ValidateObjectMeta(&r.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	allErrs = append(allErrs, validateReportSpec(&r.Spec, spec)...)
	if len(allErrs) == 0 && r.GenerateName == "" {
		if want := featuresv1alpha1.FeatureReportName(r.Spec.Component, r.Spec.Identity); r.Name != want {
			allErrs = append(allErrs, field.Invalid(field.NewPath("metadata", "name"), r.Name,
				fmt.Sprintf("must be %q: <spec.component>.<spec.identity>", want)))
		}
	}
	return allErrs
}

// ValidateFeatureReportUpdate validates an update of a FeatureReport.
func ValidateFeatureReportUpdate(r, old *features.FeatureReport) field.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	allErrs = append(allErrs, validateReportSpec(&r.Spec, spec)...)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(r.Spec.Component, old.Spec.Component, spec.Child("component"))...)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(r.Spec.Identity, old.Spec.Identity, spec.Child("identity"))...)
	return allErrs
}

func validateReportSpec(s *features.FeatureReportSpec, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if s.Component == "" {
		allErrs = append(allErrs, field.Required(path.Child("component"), "the reporting component, e.g. kubelet"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Label(s.Component) {
			allErrs = append(allErrs, field.Invalid(path.Child("component"), s.Component, msg))
		}
	}
	if s.Identity == "" {
		allErrs = append(allErrs, field.Required(path.Child("identity"), "the reporting process, e.g. a kubelet's node name"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(s.Identity) {
			allErrs = append(allErrs, field.Invalid(path.Child("identity"), s.Identity, msg))
		}
	}
	gates := path.Child("gates")
	if len(s.Gates) > MaxReportedGates {
		allErrs = append(allErrs, field.TooMany(gates, len(s.Gates), MaxReportedGates))
	}
	seen := sets.New[string]()
	for i, g := range s.Gates {
		name := gates.Index(i).Child("name")
		switch {
		case g.Name == "":
			allErrs = append(allErrs, field.Required(name, ""))
		case !isGateName(g.Name):
			allErrs = append(allErrs, field.Invalid(name, g.Name, fmt.Sprintf("must be a feature gate name: a letter followed by letters and digits, at most %d", MaxGateNameLength)))
		case seen.Has(g.Name):
			allErrs = append(allErrs, field.Duplicate(name, g.Name))
		}
		seen.Insert(g.Name)
		if g.Management != "" && !managements.Has(string(g.Management)) {
			allErrs = append(allErrs, field.NotSupported(gates.Index(i).Child("management"), g.Management, sets.List(managements)))
		}
	}
	if d := s.LeaseDurationSeconds; d != nil && (*d <= 0 || *d > MaxReportLeaseDurationSeconds) {
		allErrs = append(allErrs, field.Invalid(path.Child("leaseDurationSeconds"), *d,
			fmt.Sprintf("must be between 1 and %d", MaxReportLeaseDurationSeconds)))
	}
	if l := s.HolderLease; l != nil {
		lease := path.Child("holderLease")
		if l.Namespace == "" {
			allErrs = append(allErrs, field.Required(lease.Child("namespace"), ""))
		} else {
			for _, msg := range utilvalidation.IsDNS1123Label(l.Namespace) {
				allErrs = append(allErrs, field.Invalid(lease.Child("namespace"), l.Namespace, msg))
			}
		}
		if l.Name == "" {
			allErrs = append(allErrs, field.Required(lease.Child("name"), ""))
		} else {
			for _, msg := range utilvalidation.IsDNS1123Subdomain(l.Name) {
				allErrs = append(allErrs, field.Invalid(lease.Child("name"), l.Name, msg))
			}
		}
	}
	return allErrs
}
