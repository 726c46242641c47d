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

// Package customresourcefeaturebinding holds the registry strategy of
// CustomResourceFeatureBindings.
package customresourcefeaturebinding

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

// bindingStrategy implements create, update and delete behaviour for
// CustomResourceFeatureBindings: a cluster-scoped object, one per CRD,
// written by the CRD's author. What needs the cluster (the CRD's schema,
// the Features, the user's rights) is checked by the FeatureCustomFields
// admission plugin.
type bindingStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

// Strategy is the default logic for creating, updating and deleting
// CustomResourceFeatureBindings.
var Strategy = bindingStrategy{legacyscheme.Scheme, names.SimpleNameGenerator}

// NamespaceScoped is false: a binding extends a cluster-scoped CRD.
func (bindingStrategy) NamespaceScoped() bool { return false }

// PrepareForCreate starts the generation at 1.
func (bindingStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	obj.(*features.CustomResourceFeatureBinding).Generation = 1
}

// PrepareForUpdate bumps the generation when the spec changes.
func (bindingStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	b := obj.(*features.CustomResourceFeatureBinding)
	oldB := old.(*features.CustomResourceFeatureBinding)
	b.Generation = oldB.Generation
	if !apiequality.Semantic.DeepEqual(b.Spec, oldB.Spec) {
		b.Generation = oldB.Generation + 1
	}
}

// Validate validates a new binding.
func (bindingStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCustomResourceFeatureBinding(obj.(*features.CustomResourceFeatureBinding))
}

// WarningsOnCreate returns no warnings.
func (bindingStrategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string { return nil }

// Canonicalize does nothing.
func (bindingStrategy) Canonicalize(obj runtime.Object) {}

// AllowCreateOnUpdate is false.
func (bindingStrategy) AllowCreateOnUpdate(context.Context) bool { return false }

// ValidateUpdate validates an update.
func (bindingStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCustomResourceFeatureBindingUpdate(obj.(*features.CustomResourceFeatureBinding), old.(*features.CustomResourceFeatureBinding))
}

// WarningsOnUpdate returns no warnings.
func (bindingStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return nil
}

// AllowUnconditionalUpdate is true, as for most resources written by
// people: kubectl replace without a resourceVersion works.
func (bindingStrategy) AllowUnconditionalUpdate(context.Context) bool { return true }
