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

// Package feature holds the registry strategy and table printing of Features.
package feature

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"k8s.io/kubernetes/pkg/apis/features"
	"k8s.io/kubernetes/pkg/apis/features/validation"
)

// featureStrategy implements create, update and delete behaviour for Features.
// The main resource writes spec and metadata; status is written only through
// the status subresource (statusStrategy).
type featureStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

// Strategy is the default logic for creating, updating and deleting Features.
var Strategy = featureStrategy{legacyscheme.Scheme, names.SimpleNameGenerator}

// NamespaceScoped is true: Features live in a namespace.
func (featureStrategy) NamespaceScoped() bool { return true }

// GetResetFields returns the fields the main resource ignores: status.
func (featureStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"features.k8s.io/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

// PrepareForCreate clears status and starts the generation at 1.
func (featureStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	f := obj.(*features.Feature)
	f.Status = features.FeatureStatus{}
	f.Generation = 1
}

// PrepareForUpdate keeps the stored status and bumps the generation when the spec changes.
func (featureStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	f := obj.(*features.Feature)
	oldF := old.(*features.Feature)
	f.Status = oldF.Status
	if !apiequality.Semantic.DeepEqual(f.Spec, oldF.Spec) {
		f.Generation = oldF.Generation + 1
	}
}

// Validate validates a new Feature.
func (featureStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateFeature(obj.(*features.Feature))
}

// WarningsOnCreate returns no warnings.
func (featureStrategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string { return nil }

// Canonicalize does nothing: a Feature has no canonical form to enforce.
func (featureStrategy) Canonicalize(obj runtime.Object) {}

// AllowCreateOnUpdate is false: a Feature is created with POST.
func (featureStrategy) AllowCreateOnUpdate(context.Context) bool { return false }

// ValidateUpdate validates an update of spec and metadata.
func (featureStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateFeatureUpdate(obj.(*features.Feature), old.(*features.Feature))
}

// WarningsOnUpdate returns no warnings.
func (featureStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}

// AllowUnconditionalUpdate is true: an update without resourceVersion is allowed.
func (featureStrategy) AllowUnconditionalUpdate(context.Context) bool { return true }

type statusStrategy struct {
	featureStrategy
}

// StatusStrategy is the logic for updates through the status subresource.
var StatusStrategy = statusStrategy{Strategy}

// GetResetFields returns the fields the status subresource ignores: spec and metadata.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"features.k8s.io/v1alpha1": fieldpath.NewSet(
			fieldpath.MakePathOrDie("spec"),
			fieldpath.MakePathOrDie("metadata", "labels"),
			fieldpath.MakePathOrDie("metadata", "annotations"),
		),
	}
}

// PrepareForUpdate keeps the stored spec, labels and annotations: only status changes.
func (statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	f := obj.(*features.Feature)
	oldF := old.(*features.Feature)
	f.Spec = oldF.Spec
	f.Labels = oldF.Labels
	f.Annotations = oldF.Annotations
}

// ValidateUpdate validates an update of status.
func (statusStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateFeatureStatusUpdate(obj.(*features.Feature), old.(*features.Feature))
}

// WarningsOnUpdate returns no warnings.
func (statusStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}

// Field selector names besides metadata.name and metadata.namespace.
const (
	// GateField selects Features by spec.gate.
	GateField = "spec.gate"
	// StateField selects Features by status.state.
	StateField = "status.state"
	// ManagementField selects Features by spec.management, e.g.
	// spec.management!=CommandLine for those components may follow.
	ManagementField = "spec.management"
)

// SelectableFields returns the fields a Feature can be selected by.
func SelectableFields(f *features.Feature) fields.Set {
	return generic.AddObjectMetaFieldsSet(fields.Set{
		GateField:       f.Spec.Gate,
		StateField:      string(f.Status.State),
		ManagementField: string(f.Spec.Management),
	}, &f.ObjectMeta, true)
}

// GetAttrs returns the labels and selectable fields of a Feature.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	f := obj.(*features.Feature)
	return f.Labels, SelectableFields(f), nil
}

// Matcher returns a selection predicate over labels and selectable fields.
func Matcher(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}
