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

// Package customresourcefeaturebinding tells what a
// CustomResourceFeatureBinding (features.k8s.io/v1alpha1) binds in the
// custom resources of its CustomResourceDefinition: which objects hold a
// bound field or value, how a binding reads in messages, whether a path
// and a value fit the CRD's schema, and the index of bindings by Feature.
// The FeatureCustomFields admission plugin enforces bindings with it; the
// feature lifecycle's tasks clear or hold stored custom resources with it.
package customresourcefeaturebinding

import (
	"fmt"
	"strconv"
	"strings"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// LegacyAnnotation is the annotation of a CustomResourceDefinition that
// bound its fields to Features before CustomResourceFeatureBindings: a JSON
// list of {path, value, feature: "<namespace>/<name>", whenOff}. It is no
// longer read: kube-apiserver warns about CRD writes that carry it, and
// `kubectl features migrate-bindings` turns it into a binding and removes it.
const LegacyAnnotation = "features.k8s.io/gated-fields"

// CRDName returns the name of the CustomResourceDefinition that serves gr,
// <plural>.<group>, which is also the name of its binding.
func CRDName(gr schema.GroupResource) string { return gr.Resource + "." + gr.Group }

// FeatureKey returns "<namespace>/<name>" of a Feature reference, the key of
// the Feature in informers.
func FeatureKey(r featuresv1alpha1.FeatureReference) string { return r.Namespace + "/" + r.Name }

// Fields returns the path of b as field names; nil when b binds the kind.
func Fields(b *featuresv1alpha1.CustomResourceFieldBinding) []string {
	if b.Path == "" {
		return nil
	}
	return strings.Split(b.Path, ".")
}

// Get returns the value at fields of obj, and whether it is there.
func Get(obj map[string]interface{}, fields []string) (interface{}, bool) {
	if len(fields) == 0 {
		return nil, false
	}
	v, ok, err := unstructured.NestedFieldNoCopy(obj, fields...)
	return v, ok && err == nil
}

// Holds says whether obj holds what the field binding b gates: the field,
// or the field with b's value. It is false for a binding of the kind.
func Holds(b *featuresv1alpha1.CustomResourceFieldBinding, obj map[string]interface{}) bool {
	v, has := Get(obj, Fields(b))
	return has && (b.Value == nil || Matches(v, *b.Value))
}

// Matches says whether v, a scalar of an object decoded from JSON, is
// value as a binding writes it: the string itself, the decimal form of a
// number, true or false.
func Matches(v interface{}, value string) bool {
	s, ok := scalar(v)
	return ok && s == value
}

// scalar writes a JSON scalar as a binding's value.
func scalar(v interface{}) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case int:
		return strconv.Itoa(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// Describe names what b gates: "spec.color", `spec.size "Huge"`, or
// "kind Widget".
func Describe(b *featuresv1alpha1.CustomResourceFieldBinding, kind string) string {
	switch {
	case b.Path == "":
		return "kind " + kind
	case b.Value != nil:
		return fmt.Sprintf("%s %q", b.Path, *b.Value)
	default:
		return b.Path
	}
}

// For returns the bindings of binding to the Feature feature
// ("<namespace>/<name>").
func For(binding *featuresv1alpha1.CustomResourceFeatureBinding, feature string) []featuresv1alpha1.CustomResourceFieldBinding {
	var out []featuresv1alpha1.CustomResourceFieldBinding
	for _, b := range binding.Spec.Bindings {
		if FeatureKey(b.Feature) == feature {
			out = append(out, b)
		}
	}
	return out
}

// ByFeature is the name of the index of CustomResourceFeatureBindings by
// the Features they bind to (IndexByFeature).
const ByFeature = "feature"

// AddFeatureIndex adds the ByFeature index to informer, a shared informer of
// CustomResourceFeatureBindings, unless another of its users (the
// FeatureCustomFields admission plugin, the lifecycle controller: both read
// kube-apiserver's shared informer factory) has added it already.
func AddFeatureIndex(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[ByFeature]; ok {
		return nil
	}
	err := informer.AddIndexers(cache.Indexers{ByFeature: IndexByFeature})
	if _, ok := informer.GetIndexer().GetIndexers()[ByFeature]; ok {
		return nil // added meanwhile, by the other user
	}
	return err
}

// IndexByFeature indexes a CustomResourceFeatureBinding by the Features its
// bindings name, "<namespace>/<name>".
func IndexByFeature(obj interface{}) ([]string, error) {
	b, ok := obj.(*featuresv1alpha1.CustomResourceFeatureBinding)
	if !ok {
		return nil, nil
	}
	keys := sets.New[string]()
	for _, fb := range b.Spec.Bindings {
		keys.Insert(FeatureKey(fb.Feature))
	}
	return sets.List(keys), nil
}
