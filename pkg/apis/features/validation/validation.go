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

// Package validation validates Feature objects of the features.k8s.io group.
package validation

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apivalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/apis/features"
)

// Bounds on the size of a Feature. They keep a Feature small enough to be read
// on every transition and bounded however many components report.
const (
	// MaxGateNameLength bounds spec.gate.
	MaxGateNameLength = 128
	// MaxTasks bounds status.tasks.
	MaxTasks = 32
	// MaxUses bounds status.uses: two values for each of 32 components.
	MaxUses = 64
	// MaxAPIServerReporters bounds the reporters of kube-apiserver's uses,
	// which list every apiserver identity.
	MaxAPIServerReporters = featuresv1alpha1.MaxAPIServerReporters
	// MaxSampledReporters bounds the reporters of every other component's
	// uses, which keep a sample.
	MaxSampledReporters = featuresv1alpha1.MaxSampledReporters
	// MaxReporterLength bounds one reporter identity.
	MaxReporterLength = 253
	// MaxMessageLength bounds a task's description and message.
	MaxMessageLength = 1024
	// MaxProgressLength bounds a task's progress.
	MaxProgressLength = 256
	// MaxCheckpointLength bounds a task's checkpoint (a continue token and counts).
	MaxCheckpointLength = 8192
	// MaxConditions bounds status.conditions.
	MaxConditions = 16
	// MaxDeclaredComponents bounds spec.declaration.components.
	MaxDeclaredComponents = 16
	// MaxDeclaredTasks bounds spec.declaration.tasks.
	MaxDeclaredTasks = 16
)

// APIServerComponent is the component name kube-apiserver reports its uses under.
const APIServerComponent = featuresv1alpha1.APIServerComponent

var (
	gateNameRegexp = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	versionRegexp  = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

	desiredStates = sets.New(string(features.FeatureDesiredStateEnabled), string(features.FeatureDesiredStateDisabled))
	managements   = sets.New(string(features.FeatureManagementCommandLine), string(features.FeatureManagementCentral), string(features.FeatureManagementDynamic))
	states        = sets.New(string(features.FeatureStateEnabled), string(features.FeatureStateDisabled),
		string(features.FeatureStateEnabling), string(features.FeatureStateDisabling))
	preReleases = sets.New(string(features.FeaturePreReleaseAlpha), string(features.FeaturePreReleaseBeta),
		string(features.FeaturePreReleaseGA), string(features.FeaturePreReleaseDeprecated))
)

// ValidateFeature validates a new Feature.
func ValidateFeature(f *features.Feature) field.ErrorList {
	allErrs := validation.ValidateObjectMeta(&f.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validateName(f)...)
	allErrs = append(allErrs, validateSpec(&f.Spec, f.Namespace, field.NewPath("spec"))...)
	allErrs = append(allErrs, ValidateFeatureStatus(&f.Status, field.NewPath("status"))...)
	return allErrs
}

// ValidateFeatureUpdate validates an update of a Feature's spec and metadata.
func ValidateFeatureUpdate(f, old *features.Feature) field.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&f.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateSpec(&f.Spec, f.Namespace, field.NewPath("spec"))...)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(f.Spec.Gate, old.Spec.Gate, field.NewPath("spec", "gate"))...)
	allErrs = append(allErrs, ValidateFeatureStatus(&f.Status, field.NewPath("status"))...)
	return allErrs
}

// ValidateFeatureStatusUpdate validates an update through the status subresource.
func ValidateFeatureStatusUpdate(f, old *features.Feature) field.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&f.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateFeatureStatus(&f.Status, field.NewPath("status"))...)
	return allErrs
}

// validateName requires the object name to be the kebab form of spec.gate, so
// that one gate has exactly one Feature per namespace.
func validateName(f *features.Feature) field.ErrorList {
	if !isGateName(f.Spec.Gate) {
		return nil // reported on spec.gate
	}
	if want := featuresv1alpha1.FeatureName(f.Spec.Gate); f.Name != want && f.GenerateName == "" {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), f.Name,
			fmt.Sprintf("must be %q, the kebab-case form of spec.gate %q", want, f.Spec.Gate))}
	}
	return nil
}

func isGateName(s string) bool {
	return len(s) <= MaxGateNameLength && gateNameRegexp.MatchString(s)
}

func validateSpec(spec *features.FeatureSpec, namespace string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	gatePath := fldPath.Child("gate")
	switch {
	case spec.Gate == "":
		allErrs = append(allErrs, field.Required(gatePath, "the name of the feature gate"))
	case len(spec.Gate) > MaxGateNameLength:
		allErrs = append(allErrs, field.TooLong(gatePath, spec.Gate, MaxGateNameLength))
	case !gateNameRegexp.MatchString(spec.Gate):
		allErrs = append(allErrs, field.Invalid(gatePath, spec.Gate,
			"must be a feature gate name: a letter followed by letters and digits, e.g. MaxUnavailableStatefulSet"))
	}
	if spec.DesiredState != "" && !desiredStates.Has(string(spec.DesiredState)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("desiredState"), spec.DesiredState, sets.List(desiredStates)))
	}
	if spec.Management == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("management"), ""))
	} else if !managements.Has(string(spec.Management)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("management"), spec.Management, sets.List(managements)))
	}
	if spec.Declaration != nil {
		allErrs = append(allErrs, validateDeclaration(spec.Declaration, namespace, fldPath.Child("declaration"))...)
	}
	if spec.Rollout != nil {
		allErrs = append(allErrs, validateRollout(spec, fldPath.Child("rollout"))...)
	}
	return allErrs
}

// transitions are the states a declared task's transition may name.
var transitions = sets.New(string(features.FeatureStateEnabling), string(features.FeatureStateDisabling))

// validateDeclaration validates a third party's declaration of its gate.
func validateDeclaration(d *features.FeatureDeclaration, namespace string, fldPath *field.Path) field.ErrorList {
	if namespace == metav1.NamespaceSystem {
		return field.ErrorList{field.Forbidden(fldPath, "the Features of kube-system are Kubernetes' own gates, "+
			"which kube-apiserver declares: a third party declares its gates in its own namespace")}
	}
	var allErrs field.ErrorList
	if d.PreRelease == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("preRelease"), "the gate's stage"))
	} else if !preReleases.Has(string(d.PreRelease)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("preRelease"), d.PreRelease, sets.List(preReleases)))
	}
	compPath := fldPath.Child("components")
	if len(d.Components) > MaxDeclaredComponents {
		allErrs = append(allErrs, field.TooMany(compPath, len(d.Components), MaxDeclaredComponents))
	}
	seen := sets.New[string]()
	for i, c := range d.Components {
		allErrs = append(allErrs, validateComponentName(compPath.Index(i), c)...)
		if seen.Has(c) {
			allErrs = append(allErrs, field.Duplicate(compPath.Index(i), c))
		}
		seen.Insert(c)
	}
	taskPath := fldPath.Child("tasks")
	if len(d.Tasks) > MaxDeclaredTasks {
		allErrs = append(allErrs, field.TooMany(taskPath, len(d.Tasks), MaxDeclaredTasks))
	}
	names := sets.New[string]()
	for i, t := range d.Tasks {
		p := taskPath.Index(i)
		switch {
		case t.Name == "":
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		case t.Name == featuresv1alpha1.WaitForUsesTaskName:
			allErrs = append(allErrs, field.Invalid(p.Child("name"), t.Name, "is the name of the task every transition starts with"))
		case names.Has(t.Name):
			allErrs = append(allErrs, field.Duplicate(p.Child("name"), t.Name))
		default:
			for _, msg := range utilvalidation.IsDNS1123Label(t.Name) {
				allErrs = append(allErrs, field.Invalid(p.Child("name"), t.Name, msg))
			}
		}
		names.Insert(t.Name)
		allErrs = append(allErrs, maxLen(p.Child("description"), t.Description, MaxMessageLength)...)
		if t.Transition == "" {
			allErrs = append(allErrs, field.Required(p.Child("transition"), "Enabling or Disabling"))
		} else if !transitions.Has(string(t.Transition)) {
			allErrs = append(allErrs, field.NotSupported(p.Child("transition"), t.Transition, sets.List(transitions)))
		}
		allErrs = append(allErrs, validateComponentName(p.Child("owner"), t.Owner)...)
	}
	return allErrs
}

// validateComponentName validates the name of a third party's component:
// a DNS label, other than kube-apiserver's.
func validateComponentName(p *field.Path, c string) field.ErrorList {
	switch {
	case c == "":
		return field.ErrorList{field.Required(p, "a component name, as its FeatureReports name it")}
	case c == APIServerComponent:
		return field.ErrorList{field.Invalid(p, c, "is kube-apiserver's component, not a third party's")}
	}
	var allErrs field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Label(c) {
		allErrs = append(allErrs, field.Invalid(p, c, msg))
	}
	return allErrs
}

// ValidateFeatureStatus validates a FeatureStatus.
func ValidateFeatureStatus(status *features.FeatureStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if status.State != "" && !states.Has(string(status.State)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("state"), status.State, sets.List(states)))
	}
	if status.PreRelease != "" && !preReleases.Has(string(status.PreRelease)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("preRelease"), status.PreRelease, sets.List(preReleases)))
	}
	if status.Version != "" && !versionRegexp.MatchString(status.Version) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("version"), status.Version, "must be a major.minor version, e.g. 1.36"))
	}
	if status.ObservedGeneration < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("observedGeneration"), status.ObservedGeneration, "must be greater than or equal to 0"))
	}
	allErrs = append(allErrs, validateTasks(status.Tasks, fldPath.Child("tasks"))...)
	allErrs = append(allErrs, validateUses(status.Uses, fldPath.Child("uses"))...)
	condPath := fldPath.Child("conditions")
	if len(status.Conditions) > MaxConditions {
		allErrs = append(allErrs, field.TooMany(condPath, len(status.Conditions), MaxConditions))
	}
	allErrs = append(allErrs, metav1validation.ValidateConditions(status.Conditions, condPath)...)
	if status.Rollout != nil {
		allErrs = append(allErrs, validateRolloutStatus(status.Rollout, fldPath.Child("rollout"))...)
	}
	return allErrs
}

func validateTasks(tasks []features.FeatureTask, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(tasks) > MaxTasks {
		allErrs = append(allErrs, field.TooMany(fldPath, len(tasks), MaxTasks))
	}
	seen := sets.New[string]()
	for i, t := range tasks {
		p := fldPath.Index(i)
		switch {
		case t.Name == "":
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		case seen.Has(t.Name):
			allErrs = append(allErrs, field.Duplicate(p.Child("name"), t.Name))
		default:
			for _, msg := range utilvalidation.IsDNS1123Label(t.Name) {
				allErrs = append(allErrs, field.Invalid(p.Child("name"), t.Name, msg))
			}
		}
		seen.Insert(t.Name)
		if t.Attempts < 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("attempts"), t.Attempts, "must be greater than or equal to 0"))
		}
		allErrs = append(allErrs, maxLen(p.Child("description"), t.Description, MaxMessageLength)...)
		allErrs = append(allErrs, maxLen(p.Child("message"), t.Message, MaxMessageLength)...)
		allErrs = append(allErrs, maxLen(p.Child("progress"), t.Progress, MaxProgressLength)...)
		allErrs = append(allErrs, maxLen(p.Child("checkpoint"), t.Checkpoint, MaxCheckpointLength)...)
		if t.Owner != "" {
			allErrs = append(allErrs, validateComponentName(p.Child("owner"), t.Owner)...)
		} else if t.Done {
			allErrs = append(allErrs, field.Forbidden(p.Child("done"), "only a task with an owner is marked done; kube-apiserver removes the tasks it runs when they are done"))
		}
	}
	return allErrs
}

func validateUses(uses []features.FeatureUse, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(uses) > MaxUses {
		allErrs = append(allErrs, field.TooMany(fldPath, len(uses), MaxUses))
	}
	type key struct {
		component string
		enabled   bool
	}
	seen := map[key]bool{}
	for i, u := range uses {
		p := fldPath.Index(i)
		if u.Component == "" {
			allErrs = append(allErrs, field.Required(p.Child("component"), ""))
		} else {
			for _, msg := range utilvalidation.IsDNS1123Subdomain(u.Component) {
				allErrs = append(allErrs, field.Invalid(p.Child("component"), u.Component, msg))
			}
		}
		k := key{u.Component, u.Enabled}
		if seen[k] {
			allErrs = append(allErrs, field.Duplicate(p, fmt.Sprintf("component=%s,enabled=%t", u.Component, u.Enabled)))
		}
		seen[k] = true

		limit := MaxSampledReporters
		if u.Component == APIServerComponent {
			limit = MaxAPIServerReporters
		}
		rp := p.Child("reporters")
		if len(u.Reporters) > limit {
			allErrs = append(allErrs, field.TooMany(rp, len(u.Reporters), limit))
		}
		reporters := sets.New[string]()
		for j, r := range u.Reporters {
			switch {
			case r == "":
				allErrs = append(allErrs, field.Required(rp.Index(j), "a reporter identity"))
			case len(r) > MaxReporterLength:
				allErrs = append(allErrs, field.TooLong(rp.Index(j), r, MaxReporterLength))
			case reporters.Has(r):
				allErrs = append(allErrs, field.Duplicate(rp.Index(j), r))
			}
			reporters.Insert(r)
		}
	}
	return allErrs
}

func maxLen(p *field.Path, s string, limit int) field.ErrorList {
	if len(s) > limit {
		return field.ErrorList{field.TooLong(p, "", limit)}
	}
	return nil
}
