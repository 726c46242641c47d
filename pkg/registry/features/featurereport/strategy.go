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

// Package featurereport holds the registry strategy and table printing of
// FeatureReports.
package featurereport

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

	"k8s.io/kubernetes/pkg/apis/features"
	"k8s.io/kubernetes/pkg/apis/features/validation"
)

// reportStrategy implements create, update and delete behaviour for
// FeatureReports: a small object its reporter owns, like a Lease.
type reportStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

// Strategy is the default logic for creating, updating and deleting
// FeatureReports.
var Strategy = reportStrategy{legacyscheme.Scheme, names.SimpleNameGenerator}

// NamespaceScoped is true: a report lives in the namespace of the Features
// it reports to.
func (reportStrategy) NamespaceScoped() bool { return true }

// PrepareForCreate starts the generation at 1.
func (reportStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	obj.(*features.FeatureReport).Generation = 1
}

// PrepareForUpdate bumps the generation when the spec changes other than
// by a renewal: a new generation means new values.
func (reportStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	r := obj.(*features.FeatureReport)
	oldR := old.(*features.FeatureReport)
	if !apiequality.Semantic.DeepEqual(r.Spec.Gates, oldR.Spec.Gates) {
		r.Generation = oldR.Generation + 1
	}
}

// Validate validates a new FeatureReport.
func (reportStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateFeatureReport(obj.(*features.FeatureReport))
}

// WarningsOnCreate returns no warnings.
func (reportStrategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string { return nil }

// Canonicalize does nothing.
func (reportStrategy) Canonicalize(obj runtime.Object) {}

// AllowCreateOnUpdate is true: a reporter may create its report with a PUT
// (or a server-side apply), as a Lease holder does.
func (reportStrategy) AllowCreateOnUpdate(context.Context) bool { return true }

// ValidateUpdate validates an update.
func (reportStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateFeatureReportUpdate(obj.(*features.FeatureReport), old.(*features.FeatureReport))
}

// WarningsOnUpdate returns no warnings.
func (reportStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}

// AllowUnconditionalUpdate is true: a reporter is its report's only writer.
func (reportStrategy) AllowUnconditionalUpdate(context.Context) bool { return true }

// Field selector names besides metadata.name and metadata.namespace.
const (
	// ComponentField selects FeatureReports by spec.component.
	ComponentField = "spec.component"
	// IdentityField selects FeatureReports by spec.identity.
	IdentityField = "spec.identity"
)

// SelectableFields returns the fields a FeatureReport can be selected by.
func SelectableFields(r *features.FeatureReport) fields.Set {
	return generic.AddObjectMetaFieldsSet(fields.Set{
		ComponentField: r.Spec.Component,
		IdentityField:  r.Spec.Identity,
	}, &r.ObjectMeta, true)
}

// GetAttrs returns the labels and selectable fields of a FeatureReport.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	r := obj.(*features.FeatureReport)
	return r.Labels, SelectableFields(r), nil
}

// Matcher returns a selection predicate over labels and selectable fields.
func Matcher(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}
