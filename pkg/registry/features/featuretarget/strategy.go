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

// Package featuretarget holds the registry strategy of FeatureTargets.
package featuretarget

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"k8s.io/kubernetes/pkg/apis/features"
	"k8s.io/kubernetes/pkg/apis/features/validation"
)

// targetStrategy implements create, update and delete behaviour for
// FeatureTargets: a small object a Feature's leader derives from the
// Feature, like an EndpointSlice from a Service.
type targetStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

// Strategy is the default logic for creating, updating and deleting
// FeatureTargets.
var Strategy = targetStrategy{legacyscheme.Scheme, names.SimpleNameGenerator}

// NamespaceScoped is true: a target lives beside its Feature.
func (targetStrategy) NamespaceScoped() bool { return true }

// PrepareForCreate starts the generation at 1.
func (targetStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	obj.(*features.FeatureTarget).Generation = 1
}

// PrepareForUpdate bumps the generation when the spec changes.
func (targetStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	t := obj.(*features.FeatureTarget)
	oldT := old.(*features.FeatureTarget)
	if !apiequality.Semantic.DeepEqual(t.Spec, oldT.Spec) {
		t.Generation = oldT.Generation + 1
	}
}

// Validate validates a new FeatureTarget.
func (targetStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateFeatureTarget(obj.(*features.FeatureTarget))
}

// WarningsOnCreate returns no warnings.
func (targetStrategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string { return nil }

// Canonicalize does nothing.
func (targetStrategy) Canonicalize(obj runtime.Object) {}

// AllowCreateOnUpdate is false: the leader creates a target, then updates it.
func (targetStrategy) AllowCreateOnUpdate(context.Context) bool { return false }

// ValidateUpdate validates an update.
func (targetStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateFeatureTargetUpdate(obj.(*features.FeatureTarget), old.(*features.FeatureTarget))
}

// WarningsOnUpdate returns no warnings.
func (targetStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}

// AllowUnconditionalUpdate is false: a leader that lost its lead must not
// write over its successor's target.
func (targetStrategy) AllowUnconditionalUpdate(context.Context) bool { return false }
