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
	"strings"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/apis/features"
)

// Bounds of a CustomResourceFeatureBinding.
const (
	// MaxCustomResourceFieldBindings bounds spec.bindings.
	MaxCustomResourceFieldBindings = featuresv1alpha1.MaxCustomResourceFieldBindings
	// MaxBindingPathLength bounds a binding's path.
	MaxBindingPathLength = 256
	// MaxBindingValueLength bounds a binding's value.
	MaxBindingValueLength = 256
)

var (
	whenOffs    = sets.New(string(features.CustomResourceWhenOffDrop), string(features.CustomResourceWhenOffRefuse))
	whenStoreds = sets.New(string(features.CustomResourceWhenStoredClear), string(features.CustomResourceWhenStoredHold))
)

// ValidateCustomResourceFeatureBinding validates a new
// CustomResourceFeatureBinding: what can be told without the cluster. The
// FeatureCustomFields admission plugin checks the rest (the CRD and its
// schema, the Features, the user's rights).
func ValidateCustomResourceFeatureBinding(b *features.CustomResourceFeatureBinding) field.ErrorList {
	allErrs := validation.ValidateObjectMeta(&b.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if b.GenerateName == "" {
		allErrs = append(allErrs, validateCRDName(b.Name, field.NewPath("metadata", "name"))...)
	}
	return append(allErrs, validateBindingSpec(&b.Spec, field.NewPath("spec"))...)
}

// ValidateCustomResourceFeatureBindingUpdate validates an update of a
// CustomResourceFeatureBinding: any binding may change.
func ValidateCustomResourceFeatureBindingUpdate(b, old *features.CustomResourceFeatureBinding) field.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateBindingSpec(&b.Spec, field.NewPath("spec"))...)
}

// validateCRDName checks that name can be a CustomResourceDefinition's:
// <plural>.<group>, the group a domain with at least one dot.
func validateCRDName(name string, p *field.Path) field.ErrorList {
	plural, group, _ := strings.Cut(name, ".")
	if len(utilvalidation.IsDNS1035Label(plural)) == 0 && strings.Contains(group, ".") && len(utilvalidation.IsDNS1123Subdomain(group)) == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, name, "must be the name of the CustomResourceDefinition whose custom resources it binds, <plural>.<group>, e.g. widgets.example.com")}
}

func validateBindingSpec(s *features.CustomResourceFeatureBindingSpec, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	bp := p.Child("bindings")
	switch {
	case len(s.Bindings) == 0:
		return field.ErrorList{field.Required(bp, "at least one binding of a field, a value or the kind")}
	case len(s.Bindings) > MaxCustomResourceFieldBindings:
		allErrs = append(allErrs, field.TooMany(bp, len(s.Bindings), MaxCustomResourceFieldBindings))
	}
	names := sets.New[string]()
	bound := map[string]int{}
	for i := range s.Bindings {
		b := &s.Bindings[i]
		ip := bp.Index(i)
		allErrs = append(allErrs, validateFieldBinding(b, ip)...)
		if names.Has(b.Name) {
			allErrs = append(allErrs, field.Duplicate(ip.Child("name"), b.Name))
		}
		names.Insert(b.Name)
		key, what := b.Path, "the field "+b.Path
		switch {
		case b.Path == "":
			what = "the kind"
		case b.Value != nil:
			key += "=" + *b.Value
			what = fmt.Sprintf("the value %q of %s", *b.Value, b.Path)
		}
		if j, ok := bound[key]; ok {
			allErrs = append(allErrs, field.Invalid(ip, b.Name, fmt.Sprintf("binds %s, which bindings[%d] (%s) binds already", what, j, s.Bindings[j].Name)))
			continue
		}
		bound[key] = i
	}
	return allErrs
}

func validateFieldBinding(b *features.CustomResourceFieldBinding, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if b.Name == "" {
		allErrs = append(allErrs, field.Required(p.Child("name"), "a DNS label that identifies the binding"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Label(b.Name) {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), b.Name, msg))
		}
	}
	allErrs = append(allErrs, validateFeatureReference(&b.Feature, p.Child("feature"))...)
	if b.WhenOff != "" && !whenOffs.Has(string(b.WhenOff)) {
		allErrs = append(allErrs, field.NotSupported(p.Child("whenOff"), b.WhenOff, sets.List(whenOffs)))
	}
	if b.WhenStored != "" && !whenStoreds.Has(string(b.WhenStored)) {
		allErrs = append(allErrs, field.NotSupported(p.Child("whenStored"), b.WhenStored, sets.List(whenStoreds)))
	}
	if b.Path == "" {
		if b.Value != nil {
			allErrs = append(allErrs, field.Required(p.Child("path"), "a value is bound with the field that holds it"))
		}
		if b.WhenOff == features.CustomResourceWhenOffDrop {
			allErrs = append(allErrs, field.Forbidden(p.Child("whenOff"), "a kind is refused while its Feature is off: Refuse"))
		}
		if b.WhenStored == features.CustomResourceWhenStoredClear {
			allErrs = append(allErrs, field.Forbidden(p.Child("whenStored"), "objects of a kind are never deleted: Hold"))
		}
		return allErrs
	}
	allErrs = append(allErrs, validateBindingPath(b.Path, p.Child("path"))...)
	if b.Value != nil {
		allErrs = append(allErrs, maxLen(p.Child("value"), *b.Value, MaxBindingValueLength)...)
	}
	return allErrs
}

// validateBindingPath checks a path's form: field names joined by dots,
// under spec or status.
func validateBindingPath(path string, p *field.Path) field.ErrorList {
	if len(path) > MaxBindingPathLength {
		return field.ErrorList{field.TooLong(p, "", MaxBindingPathLength)}
	}
	fields := strings.Split(path, ".")
	if len(fields) < 2 || (fields[0] != "spec" && fields[0] != "status") {
		return field.ErrorList{field.Invalid(p, path, "must be a field under spec or status, its names joined by dots, e.g. spec.color")}
	}
	for _, f := range fields {
		if f == "" {
			return field.ErrorList{field.Invalid(p, path, "must not have an empty field name: its names are joined by single dots")}
		}
	}
	return nil
}

// validateFeatureReference checks the form of a Feature's namespace and
// name; the admission plugin checks that it exists and that the user may
// get it.
func validateFeatureReference(r *features.FeatureReference, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if r.Namespace == "" {
		allErrs = append(allErrs, field.Required(p.Child("namespace"), "the Feature's namespace"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Label(r.Namespace) {
			allErrs = append(allErrs, field.Invalid(p.Child("namespace"), r.Namespace, msg))
		}
	}
	if r.Name == "" {
		allErrs = append(allErrs, field.Required(p.Child("name"), "the Feature's name"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(r.Name) {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), r.Name, msg))
		}
	}
	return allErrs
}
