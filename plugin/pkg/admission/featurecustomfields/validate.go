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

package featurecustomfields

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
	"k8s.io/kubernetes/pkg/apis/features"
)

// Validate checks a CustomResourceFeatureBinding that is created or
// updated against the cluster, warns about a CRD write that carries the
// former annotation or leaves a binding behind, and refuses deleting a
// Feature a binding binds to.
func (p *Plugin) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !p.enabled || a.GetSubresource() != "" {
		return nil
	}
	switch gr := a.GetResource().GroupResource(); {
	case gr == featuresResource && a.GetOperation() == admission.Delete:
		return p.validateFeatureDeletion(ctx, a)
	case gr == bindingsResource.GroupResource() && a.GetOperation() != admission.Delete:
		return p.validateBinding(ctx, a)
	case gr == crdResource.GroupResource():
		p.warnAboutCRD(ctx, a)
	}
	return nil
}

// validateBinding checks what a binding's validation cannot tell without
// the cluster, with field errors: the CRD exists and the user may update
// it; each new or changed binding's path is in the CRD's schema and its
// value fits the field; each Feature it newly binds to exists, and the user
// may get it. Bindings that are unchanged are not checked again, so that a
// binding the CRD's schema later lost can still be updated.
func (p *Plugin) validateBinding(ctx context.Context, a admission.Attributes) error {
	b, ok := a.GetObject().(*features.CustomResourceFeatureBinding)
	if !ok {
		return nil
	}
	var old *features.CustomResourceFeatureBinding
	if a.GetOperation() == admission.Update {
		old, _ = a.GetOldObject().(*features.CustomResourceFeatureBinding)
	}
	if old != nil && apiequality.Semantic.DeepEqual(b.Spec, old.Spec) {
		return nil
	}
	namePath := field.NewPath("metadata", "name")
	var errs field.ErrorList
	crd, err := p.crd(ctx, b.Name)
	switch {
	case apierrors.IsNotFound(err):
		errs = append(errs, field.Invalid(namePath, b.Name, "no CustomResourceDefinition has this name: create the CRD first"))
	case err != nil:
		return apierrors.NewInternalError(fmt.Errorf("reading the custom resource definition %s: %w", b.Name, err))
	}
	if ok, why := p.allowed(ctx, a, authorizer.AttributesRecord{Verb: "update", APIGroup: apiextensions.GroupName,
		Resource: crdResource.Resource, Name: b.Name}); !ok {
		errs = append(errs, field.Forbidden(namePath, fmt.Sprintf("user %q may not update customresourcedefinition %s%s: only who may edit a CRD binds its fields",
			a.GetUserInfo().GetName(), b.Name, why)))
	}
	before := map[string]features.CustomResourceFieldBinding{}
	bound := map[features.FeatureReference]bool{}
	if old != nil {
		for _, ob := range old.Spec.Bindings {
			before[ob.Name] = ob
			bound[ob.Feature] = true
		}
	}
	for i, fb := range b.Spec.Bindings {
		if ob, ok := before[fb.Name]; ok && apiequality.Semantic.DeepEqual(ob, fb) {
			continue
		}
		path := field.NewPath("spec", "bindings").Index(i)
		if crd != nil && fb.Path != "" {
			fields := strings.Split(fb.Path, ".")
			if why := crbinding.CheckPath(crd, fields); why != "" {
				errs = append(errs, field.Invalid(path.Child("path"), fb.Path, why))
			} else if fb.Value != nil {
				if why := crbinding.CheckValue(crd, fields, *fb.Value); why != "" {
					errs = append(errs, field.Invalid(path.Child("value"), *fb.Value, why))
				}
			}
		}
		if !bound[fb.Feature] {
			errs = append(errs, p.validateFeatureReference(ctx, a, fb.Feature, path.Child("feature"))...)
			// One error per Feature is enough.
			bound[fb.Feature] = true
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(features.Kind("CustomResourceFeatureBinding"), b.Name, errs)
	}
	return nil
}

// validateFeatureReference checks that the user may get the Feature ref,
// first (a user who may not learns nothing of it), then that it exists.
func (p *Plugin) validateFeatureReference(ctx context.Context, a admission.Attributes, ref features.FeatureReference, path *field.Path) field.ErrorList {
	key := ref.Namespace + "/" + ref.Name
	if ok, why := p.allowed(ctx, a, authorizer.AttributesRecord{Verb: "get", Namespace: ref.Namespace, APIGroup: featuresv1alpha1.GroupName,
		Resource: "features", Name: ref.Name}); !ok {
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("user %q may not get feature %s%s: only who may read a Feature binds fields to it",
			a.GetUserInfo().GetName(), key, why))}
	}
	if !p.featureExists(ctx, ref.Namespace, ref.Name) {
		return field.ErrorList{field.Invalid(path, key, "no such Feature: create the Feature first")}
	}
	return nil
}

// crd returns the CustomResourceDefinition name: from the plugin's cache,
// or else from a live read, since a CRD created just before its binding
// (manifests applied in one go) may not have reached the cache yet.
func (p *Plugin) crd(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	var u *unstructured.Unstructured
	if obj, ok, _ := p.crds.GetIndexer().GetByKey(name); ok {
		u, _ = obj.(*unstructured.Unstructured)
	}
	if u == nil {
		var err error
		if u, err = p.dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return nil, err
		}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil, err
	}
	return crd, nil
}

// featureExists says whether the Feature namespace/name exists: in the
// plugin's cache, or else in a live read (a Feature created just before the
// binding may not have reached the cache yet). Only a read that finds
// nothing says it does not.
func (p *Plugin) featureExists(ctx context.Context, namespace, name string) bool {
	if _, err := p.features.Features(namespace).Get(name); err == nil {
		return true
	}
	_, err := p.dynamic.Resource(featuresv1alpha1.SchemeGroupVersion.WithResource("features")).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	return !apierrors.IsNotFound(err)
}

// allowed asks the authorizer whether the request's user may do what attrs
// says, and why not.
func (p *Plugin) allowed(ctx context.Context, a admission.Attributes, attrs authorizer.AttributesRecord) (bool, string) {
	attrs.User, attrs.APIVersion, attrs.ResourceRequest = a.GetUserInfo(), "*", true
	decision, why, err := p.authorizer.Authorize(ctx, attrs)
	switch {
	case err != nil:
		return false, " (" + err.Error() + ")"
	case decision != authorizer.DecisionAllow && why != "":
		return false, " (" + why + ")"
	}
	return decision == authorizer.DecisionAllow, ""
}

// warnAboutCRD warns about a write of a CRD that carries the annotation
// that bound its fields before CustomResourceFeatureBindings, no longer
// read; and about deleting a CRD that a binding still binds.
func (p *Plugin) warnAboutCRD(ctx context.Context, a admission.Attributes) {
	if a.GetOperation() == admission.Delete {
		if _, err := p.bindingsLister.Get(a.GetName()); err == nil {
			warning.AddWarning(ctx, "", fmt.Sprintf("customresourcefeaturebinding %s still binds the fields of the custom resource definition %s: delete it too unless the CRD comes back", a.GetName(), a.GetName()))
		}
		return
	}
	var annotations map[string]string
	switch crd := a.GetObject().(type) {
	case *apiextensions.CustomResourceDefinition:
		annotations = crd.Annotations
	case *apiextensionsv1.CustomResourceDefinition:
		annotations = crd.Annotations
	}
	if _, ok := annotations[crbinding.LegacyAnnotation]; !ok {
		return
	}
	warning.AddWarning(ctx, "", fmt.Sprintf("metadata.annotations[%s] is no longer read and gates nothing: bind the fields with the customresourcefeaturebinding %s (kubectl features migrate-bindings creates it from the annotation and removes the annotation)",
		crbinding.LegacyAnnotation, a.GetName()))
}

// validateFeatureDeletion refuses deleting a Feature that a binding binds
// to, naming the bindings: their fields would be gated by a Feature no one
// can turn on. The binding goes first. A binding the cache still holds is
// read again, so that deleting the binding and then the Feature (a
// namespace's teardown, a test's cleanup) is not refused for a stale cache.
func (p *Plugin) validateFeatureDeletion(ctx context.Context, a admission.Attributes) error {
	if err := p.waitForSync(ctx, "which bindings bind to Features", p.bindings.HasSynced); err != nil {
		return err
	}
	key := a.GetNamespace() + "/" + a.GetName()
	objs, err := p.bindings.GetIndexer().ByIndex(crbinding.ByFeature, key)
	if err != nil || len(objs) == 0 {
		return nil
	}
	var names []string
	for _, obj := range objs {
		b, ok := obj.(*featuresv1alpha1.CustomResourceFeatureBinding)
		if !ok {
			continue
		}
		u, err := p.dynamic.Resource(bindingsResource).Get(ctx, b.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		live := &featuresv1alpha1.CustomResourceFeatureBinding{}
		if err == nil && runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, live) == nil {
			b = live
		}
		if len(crbinding.For(b, key)) > 0 {
			names = append(names, b.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return admission.NewForbidden(a, fmt.Errorf("customresourcefeaturebindings bind fields to it: remove its bindings from %s first",
		strings.Join(names, ", ")))
}
