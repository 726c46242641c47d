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

package crdbindings

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

const widgetBindings = `[{"path": "spec.color", "feature": "widgets/widget-colors"},
 {"path": "spec.size", "value": "huge", "feature": "widgets/huge-widgets", "whenOff": "Refuse"},
 {"feature": "widgets/widgets"}]`

// widgetCRD is a CRD of widgets.example.com with the given bindings, in two
// versions: v1beta1 served, v1 served and stored.
func widgetCRD(bindings string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"color": str, "size": str,
				"parts": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str}}}},
				"extra": {Type: "object", XPreserveUnknownFields: ptr.To(true)},
			}},
		},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", Annotations: map[string]string{Annotation: bindings}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Schema: schema},
				{Name: "v1", Served: true, Storage: true, Schema: schema,
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}},
			},
		},
	}
}

func TestValidateBindings(t *testing.T) {
	for _, tc := range []struct {
		name, bindings string
		want           []string // substrings of the errors, in order
	}{
		{name: "valid", bindings: widgetBindings},
		{name: "inside an object that keeps unknown fields", bindings: `[{"path": "spec.extra.anything", "feature": "widgets/extra"}]`},
		{name: "not JSON", bindings: `{`, want: []string{`metadata.annotations[features.k8s.io/gated-fields]: Invalid value: "{": must be a JSON list`}},
		{name: "no namespace", bindings: `[{"path": "spec.color", "feature": "colors"}]`,
			want: []string{`metadata.annotations[features.k8s.io/gated-fields][0].feature: Invalid value: "colors": must be <namespace>/<name>`}},
		{name: "bad names", bindings: `[{"path": "spec.color", "feature": "Widgets/colors_"}]`,
			want: []string{"[0].feature", "namespace:", "[0].feature", "name:"}},
		{name: "unknown field", bindings: `[{"path": "spec.colour", "feature": "widgets/colors"}]`,
			want: []string{`[0].path: Invalid value: "spec.colour": version v1: the schema has no field spec.colour`}},
		{name: "inside a list", bindings: `[{"path": "spec.parts.name", "feature": "widgets/parts"}]`,
			want: []string{"[0].path", "spec.parts is a list: fields inside lists cannot be bound"}},
		{name: "metadata", bindings: `[{"path": "metadata.labels", "feature": "widgets/labels"}]`,
			want: []string{"[0].path", "must be a field under spec or status"}},
		{name: "bad whenOff", bindings: `[{"path": "spec.color", "feature": "widgets/colors", "whenOff": "Ignore"}]`,
			want: []string{`[0].whenOff: Unsupported value: "Ignore": supported values: "Drop", "Refuse"`}},
		{name: "value of a kind", bindings: `[{"value": "x", "feature": "widgets/colors"}]`,
			want: []string{"[0].path: Required value: a value is bound with the field that holds it"}},
		{name: "whenOff of a kind", bindings: `[{"feature": "widgets/widgets", "whenOff": "Drop"}]`,
			want: []string{"[0].whenOff: Forbidden: a kind is always refused"}},
		{name: "twice", bindings: `[{"path": "spec.color", "feature": "widgets/a"}, {"path": "spec.color", "feature": "widgets/b"}]`,
			want: []string{`[1]: Duplicate value: "spec.color"`}},
		{name: "a value and its field", bindings: `[{"path": "spec.color", "feature": "widgets/a"}, {"path": "spec.color", "value": "red", "feature": "widgets/b"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Validate(widgetCRD(tc.bindings))
			got := errs.ToAggregate()
			if len(tc.want) == 0 {
				if got != nil {
					t.Fatalf("unexpected errors: %v", got)
				}
				return
			}
			if got == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			rest := got.Error()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("errors %q do not contain %q (in order)", got.Error(), w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestFromUnstructured(t *testing.T) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(widgetCRD(widgetBindings))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	crd, ok := FromUnstructured(u)
	if !ok {
		t.Fatal("no bindings read")
	}
	if want := (schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}); crd.Resource != want || crd.Kind != "Widget" || !crd.Status || len(crd.Bindings) != 3 {
		t.Errorf("read %+v, want %s, kind Widget, a status subresource and 3 bindings", crd, want)
	}
	if got := crd.For("widgets/widget-colors"); len(got) != 1 || got[0].Path != "spec.color" {
		t.Errorf("bindings of widgets/widget-colors: %+v", got)
	}
	if keys, _ := IndexByFeature(u); strings.Join(keys, ",") != "widgets/huge-widgets,widgets/widget-colors,widgets/widgets" {
		t.Errorf("indexed by features %v", keys)
	}
	if keys, _ := IndexByResource(u); strings.Join(keys, ",") != "example.com/widgets" {
		t.Errorf("indexed by resource %v", keys)
	}
	u.SetAnnotations(map[string]string{Annotation: "["})
	if _, ok := FromUnstructured(u); ok {
		t.Error("an annotation that does not parse binds something")
	}
	huge := crd.Bindings[1]
	for _, tc := range []struct {
		obj  map[string]interface{}
		want bool
	}{
		{map[string]interface{}{"spec": map[string]interface{}{"size": "huge"}}, true},
		{map[string]interface{}{"spec": map[string]interface{}{"size": "small"}}, false},
		{map[string]interface{}{"spec": map[string]interface{}{}}, false},
	} {
		if got := huge.Holds(tc.obj); got != tc.want {
			t.Errorf("%v holds %s: %v, want %v", tc.obj, huge.Describe("Widget"), got, tc.want)
		}
	}
}
