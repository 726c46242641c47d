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

package customresourcefeaturebinding

import (
	"strings"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// widgetCRD is a CRD of widgets.example.com in two versions: v1beta1
// served, v1 served and stored with a status subresource; v1 alone has
// spec.count.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	enum := func(values ...string) []apiextensionsv1.JSON {
		var out []apiextensionsv1.JSON
		for _, v := range values {
			out = append(out, apiextensionsv1.JSON{Raw: []byte(v)})
		}
		return out
	}
	spec := map[string]apiextensionsv1.JSONSchemaProps{
		"color": str,
		"size":  {Type: "string", Enum: enum(`"Small"`, `"Huge"`)},
		"parts": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str}}}},
		"extra":   {Type: "object", XPreserveUnknownFields: ptr.To(true)},
		"shiny":   {Type: "boolean"},
		"weight":  {Type: "number", Enum: enum(`2.5`, `3`)},
		"port":    {XIntOrString: true},
		"options": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"fast": {Type: "boolean"}}},
	}
	v1Spec := map[string]apiextensionsv1.JSONSchemaProps{"count": {Type: "integer"}}
	for k, v := range spec {
		v1Spec[k] = v
	}
	schemaOf := func(spec map[string]apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: spec}}}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Schema: schemaOf(spec)},
				{Name: "v1", Served: true, Storage: true, Schema: schemaOf(v1Spec),
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}},
			},
		},
	}
}

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want string // "" for a field of the schema
	}{
		{"spec.color", ""},
		{"spec.count", ""}, // in v1 only
		{"spec.extra.anything.below", ""},
		{"spec.options.fast", ""},
		{"spec.colour", "version v1: the schema has no field spec.colour"},
		{"spec.parts.name", "version v1: spec.parts is a list: fields inside lists cannot be bound"},
		{"status.phase", "version v1: the schema has no field status"},
	} {
		if got := CheckPath(widgetCRD(), strings.Split(tc.path, ".")); got != tc.want {
			t.Errorf("CheckPath(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
	noSchema := widgetCRD()
	for i := range noSchema.Spec.Versions {
		noSchema.Spec.Versions[i].Schema = nil
	}
	if got, want := CheckPath(noSchema, []string{"spec", "color"}), "no version of widgets.example.com has a schema"; got != want {
		t.Errorf("CheckPath without a schema = %q, want %q", got, want)
	}
}

func TestCheckValue(t *testing.T) {
	for _, tc := range []struct {
		path, value string
		want        string // "" for a valid value
	}{
		{"spec.color", "anything", ""},
		{"spec.size", "Huge", ""},
		{"spec.size", "huge", "version v1: spec.size must be one of its enum values: Small, Huge"},
		{"spec.shiny", "true", ""},
		{"spec.shiny", "yes", "version v1: spec.shiny is a boolean: the value must be true or false"},
		{"spec.count", "3", ""},
		{"spec.count", "03", "version v1: spec.count is an integer: the value must be written in decimal"},
		{"spec.count", "three", "version v1: spec.count is an integer"},
		{"spec.weight", "2.5", ""},
		{"spec.weight", "3", ""},
		{"spec.weight", "3.0", "version v1: spec.weight is a number: the value must be written as JSON writes it"},
		{"spec.weight", "4", "version v1: spec.weight must be one of its enum values: 2.5, 3"},
		{"spec.port", "8080", ""},
		{"spec.port", "http", ""},
		{"spec.extra.anything", "x", ""},
		{"spec.options", "x", "version v1: spec.options is an object: only a value of a scalar field"},
		{"spec.parts", "x", "version v1: spec.parts is an array"},
		{"spec.colour", "x", "no version of widgets.example.com has the field spec.colour"},
	} {
		if got := CheckValue(widgetCRD(), strings.Split(tc.path, "."), tc.value); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("CheckValue(%s, %q) = %q, want %q", tc.path, tc.value, got, tc.want)
		}
	}
}

func TestHolds(t *testing.T) {
	huge := &featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.size", Value: ptr.To("Huge")}
	color := &featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.color"}
	count := &featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.count", Value: ptr.To("3")}
	shiny := &featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.shiny", Value: ptr.To("true")}
	weight := &featuresv1alpha1.CustomResourceFieldBinding{Path: "spec.weight", Value: ptr.To("2.5")}
	kind := &featuresv1alpha1.CustomResourceFieldBinding{}
	spec := func(kv ...interface{}) map[string]interface{} {
		s := map[string]interface{}{}
		for i := 0; i < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		return map[string]interface{}{"spec": s}
	}
	for _, tc := range []struct {
		b    *featuresv1alpha1.CustomResourceFieldBinding
		obj  map[string]interface{}
		want bool
	}{
		{huge, spec("size", "Huge"), true},
		{huge, spec("size", "Small"), false},
		{huge, spec(), false},
		{color, spec("color", "red"), true},
		{color, spec("color", ""), true},
		{color, spec(), false},
		{count, spec("count", int64(3)), true},
		{count, spec("count", int64(4)), false},
		{count, spec("count", "3"), true},
		{shiny, spec("shiny", true), true},
		{shiny, spec("shiny", false), false},
		{weight, spec("weight", 2.5), true},
		{weight, spec("weight", int64(2)), false},
		{kind, spec("size", "Huge"), false},
	} {
		if got := Holds(tc.b, tc.obj); got != tc.want {
			t.Errorf("%v holds %s: %v, want %v", tc.obj, Describe(tc.b, "Widget"), got, tc.want)
		}
	}
}

func TestDescribeAndIndex(t *testing.T) {
	colors := featuresv1alpha1.FeatureReference{Namespace: "widgets-system", Name: "widget-colors"}
	binding := &featuresv1alpha1.CustomResourceFeatureBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: featuresv1alpha1.CustomResourceFeatureBindingSpec{Bindings: []featuresv1alpha1.CustomResourceFieldBinding{
			{Name: "color", Path: "spec.color", Feature: colors},
			{Name: "huge", Path: "spec.size", Value: ptr.To("Huge"), Feature: colors},
			{Name: "kind", Feature: featuresv1alpha1.FeatureReference{Namespace: "widgets-system", Name: "widgets"}},
		}},
	}
	var described []string
	for i := range binding.Spec.Bindings {
		described = append(described, Describe(&binding.Spec.Bindings[i], "Widget"))
	}
	if got, want := strings.Join(described, "; "), `spec.color; spec.size "Huge"; kind Widget`; got != want {
		t.Errorf("described %q, want %q", got, want)
	}
	if keys, _ := IndexByFeature(binding); strings.Join(keys, ",") != "widgets-system/widget-colors,widgets-system/widgets" {
		t.Errorf("indexed by features %v", keys)
	}
	if got := For(binding, "widgets-system/widget-colors"); len(got) != 2 || got[0].Name != "color" || got[1].Name != "huge" {
		t.Errorf("bindings of widget-colors: %+v", got)
	}
	if got := CRDName(schema.GroupResource{Group: "example.com", Resource: "widgets"}); got != "widgets.example.com" {
		t.Errorf("CRDName = %q", got)
	}
}

func TestFromUnstructured(t *testing.T) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(widgetCRD())
	if err != nil {
		t.Fatal(err)
	}
	got := FromUnstructured(&unstructured.Unstructured{Object: obj})
	want := CRD{Name: "widgets.example.com", Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Kind: "Widget", Namespaced: true, Status: true}
	if got != want {
		t.Errorf("read %+v, want %+v", got, want)
	}
}

// TestAddFeatureIndexTwice: the admission plugin and the lifecycle
// controller share kube-apiserver's informer of bindings; each adds the
// index, and the second finds it there instead of failing.
func TestAddFeatureIndexTwice(t *testing.T) {
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &featuresv1alpha1.CustomResourceFeatureBinding{}, 0, cache.Indexers{})
	for i := range 2 {
		if err := AddFeatureIndex(informer); err != nil {
			t.Fatalf("adding the index, time %d: %v", i+1, err)
		}
	}
	if _, ok := informer.GetIndexer().GetIndexers()[ByFeature]; !ok {
		t.Errorf("no %s index", ByFeature)
	}
}
