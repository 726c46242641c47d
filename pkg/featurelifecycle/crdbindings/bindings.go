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

// Package crdbindings reads and validates the bindings of a
// CustomResourceDefinition's fields, enum values and kind to Features (the
// annotation features.k8s.io/gated-fields): the FeatureCustomFields
// admission plugin enforces them on writes, the lifecycle controller clears
// stored custom resources and waits for their absence on Disabling.
package crdbindings

import (
	"encoding/json"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Annotation is the annotation of a CustomResourceDefinition that binds its
// fields, enum values and kind to Features. Its value is a JSON list of
// Bindings, for example
//
//	[{"path": "spec.color", "feature": "widgets/widget-colors"},
//	 {"path": "spec.color", "value": "ultraviolet", "feature": "widgets/ultraviolet", "whenOff": "Refuse"},
//	 {"feature": "widgets/gadgets"}]
//
// It is on the CRD, so only who may edit the CRD binds its fields; and only
// who may read Features in the Feature's namespace may bind to it.
const Annotation = "features.k8s.io/gated-fields"

// WhenOff says what a write of a gated field gets while its Feature is off.
type WhenOff string

const (
	// Drop drops the field from the write, with a warning naming the field
	// and the Feature, as built-in strategies drop disabled fields.
	Drop WhenOff = "Drop"
	// Refuse refuses a write that sets the field (or the value) anew,
	// naming the field and the Feature. A value the object already holds
	// is dropped instead, so that the object can still be updated while
	// the storage migrator clears it.
	Refuse WhenOff = "Refuse"
)

// Binding binds a field of a custom resource, one value of a field, or the
// whole kind to a Feature.
type Binding struct {
	// Path is the field, its names from the object's root joined by dots
	// ("spec.color"), through objects only. Empty binds the kind: while
	// the Feature is off, objects of the kind cannot be created, and the
	// Feature holds Disabling until none is left.
	Path string `json:"path,omitempty"`
	// Value, with Path, binds only this value of the field (a string,
	// typically an enum value).
	Value *string `json:"value,omitempty"`
	// Feature is the Feature, "<namespace>/<name>".
	Feature string `json:"feature"`
	// WhenOff is Drop (the default) or Refuse.
	WhenOff WhenOff `json:"whenOff,omitempty"`
}

// Fields returns the binding's path as field names.
func (b Binding) Fields() []string {
	if b.Path == "" {
		return nil
	}
	return strings.Split(b.Path, ".")
}

// FeatureKey splits Feature into its namespace and name.
func (b Binding) FeatureKey() (namespace, name string) {
	namespace, name, _ = strings.Cut(b.Feature, "/")
	return namespace, name
}

// WhenOffOrDefault returns WhenOff with its default.
func (b Binding) WhenOffOrDefault() WhenOff {
	if b.WhenOff == "" {
		return Drop
	}
	return b.WhenOff
}

// Describe names what the binding gates: "spec.color",
// `spec.color "ultraviolet"`, or the kind.
func (b Binding) Describe(kind string) string {
	switch {
	case b.Path == "":
		return "kind " + kind
	case b.Value != nil:
		return fmt.Sprintf("%s %q", b.Path, *b.Value)
	default:
		return b.Path
	}
}

// Parse reads the bindings of a CRD's annotations (none without the
// annotation).
func Parse(annotations map[string]string) ([]Binding, error) {
	v, ok := annotations[Annotation]
	if !ok {
		return nil, nil
	}
	var bindings []Binding
	if err := json.Unmarshal([]byte(v), &bindings); err != nil {
		return nil, err
	}
	return bindings, nil
}

// AnnotationPath is the field path of the annotation, for errors.
var AnnotationPath = field.NewPath("metadata", "annotations").Key(Annotation)

// Validate checks the annotation of crd: it parses, every binding names a
// Feature "<namespace>/<name>", a field of the schema of at least one of
// its versions (through objects only), and Drop or Refuse; no field, value
// or kind is bound twice.
func Validate(crd *apiextensionsv1.CustomResourceDefinition) ([]Binding, field.ErrorList) {
	bindings, err := Parse(crd.Annotations)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(AnnotationPath, crd.Annotations[Annotation], "must be a JSON list of {path, value, feature, whenOff}: "+err.Error())}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, b := range bindings {
		p := AnnotationPath.Index(i)
		namespace, name, ok := strings.Cut(b.Feature, "/")
		switch {
		case !ok:
			errs = append(errs, field.Invalid(p.Child("feature"), b.Feature, "must be <namespace>/<name> of a Feature"))
		default:
			for _, msg := range validation.IsDNS1123Label(namespace) {
				errs = append(errs, field.Invalid(p.Child("feature"), b.Feature, "namespace: "+msg))
			}
			for _, msg := range validation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(p.Child("feature"), b.Feature, "name: "+msg))
			}
		}
		if b.WhenOff != "" && b.WhenOff != Drop && b.WhenOff != Refuse {
			errs = append(errs, field.NotSupported(p.Child("whenOff"), b.WhenOff, []WhenOff{Drop, Refuse}))
		}
		if b.Path == "" {
			if b.Value != nil {
				errs = append(errs, field.Required(p.Child("path"), "a value is bound with the field that holds it"))
			}
			if b.WhenOff != "" {
				errs = append(errs, field.Forbidden(p.Child("whenOff"), "a kind is always refused while its Feature is off"))
			}
		} else if msg := inSchema(crd, b.Fields()); msg != "" {
			errs = append(errs, field.Invalid(p.Child("path"), b.Path, msg))
		}
		key := b.Path
		if b.Value != nil {
			key += "=" + *b.Value
		}
		if seen.Has(key) {
			errs = append(errs, field.Duplicate(p, b.Describe(crd.Spec.Names.Kind)))
		}
		seen.Insert(key)
	}
	return bindings, errs
}

// inSchema says why fields is not a field of any version's schema of crd
// ("" when it is one).
func inSchema(crd *apiextensionsv1.CustomResourceDefinition, fields []string) string {
	if len(fields) < 2 || (fields[0] != "spec" && fields[0] != "status") {
		return "must be a field under spec or status, its names joined by dots"
	}
	why := "no version of " + crd.Name + " has a schema"
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		if why = walk(v.Schema.OpenAPIV3Schema, fields); why == "" {
			return ""
		}
		why = fmt.Sprintf("version %s: %s", v.Name, why)
	}
	return why
}

// walk says why fields is not a property path of s ("" when it is).
func walk(s *apiextensionsv1.JSONSchemaProps, fields []string) string {
	for i, f := range fields {
		if s.Type == "array" {
			return fmt.Sprintf("%s is a list: fields inside lists cannot be bound", strings.Join(fields[:i], "."))
		}
		p, ok := s.Properties[f]
		if !ok {
			if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
				return ""
			}
			return fmt.Sprintf("the schema has no field %s", strings.Join(fields[:i+1], "."))
		}
		s = &p
	}
	return ""
}

// Get returns the value at fields of obj, and whether it is there.
func Get(obj map[string]interface{}, fields []string) (interface{}, bool) {
	v, ok, err := unstructured.NestedFieldNoCopy(obj, fields...)
	return v, ok && err == nil
}

// Holds says whether obj holds what field binding b gates: the field, or
// the field with b's value.
func (b Binding) Holds(obj map[string]interface{}) bool {
	v, has := Get(obj, b.Fields())
	return has && b.Path != "" && (b.Value == nil || v == *b.Value)
}

// CRD is what enforcing and clearing need of a CRD with bindings.
type CRD struct {
	// Name is the CRD's name, <plural>.<group>.
	Name string
	// Resource is the custom resource in a served version (the storage
	// version when it is served).
	Resource schema.GroupVersionResource
	// Kind is the kind of its objects.
	Kind string
	// Status says that some version has a status subresource.
	Status bool
	// Bindings are its bindings.
	Bindings []Binding
}

// For returns the bindings of c to the Feature "<namespace>/<name>".
func (c CRD) For(feature string) []Binding {
	var out []Binding
	for _, b := range c.Bindings {
		if b.Feature == feature {
			out = append(out, b)
		}
	}
	return out
}

// FromUnstructured reads a CRD of a dynamic informer (apiextensions.k8s.io/v1);
// ok is false when it binds nothing or its annotation does not parse (the
// admission plugin refuses such a CRD; one stored before it ran binds
// nothing).
func FromUnstructured(u *unstructured.Unstructured) (CRD, bool) {
	bindings, err := Parse(u.GetAnnotations())
	if err != nil || len(bindings) == 0 {
		return CRD{}, false
	}
	c := CRD{Name: u.GetName(), Bindings: bindings}
	c.Kind, _, _ = unstructured.NestedString(u.Object, "spec", "names", "kind")
	c.Resource.Group, _, _ = unstructured.NestedString(u.Object, "spec", "group")
	c.Resource.Resource, _, _ = unstructured.NestedString(u.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range versions {
		m, ok := v.(map[string]interface{})
		if !ok {
			continue
		}
		_, status, _ := unstructured.NestedMap(m, "subresources", "status")
		c.Status = c.Status || status
		served, _, _ := unstructured.NestedBool(m, "served")
		storage, _, _ := unstructured.NestedBool(m, "storage")
		if name, _, _ := unstructured.NestedString(m, "name"); served && (storage || c.Resource.Version == "") {
			c.Resource.Version = name
		}
	}
	return c, true
}

// ByResource is the name of the index of CRDs by "<group>/<plural>"
// (IndexByResource).
const ByResource = "resource"

// IndexByResource indexes a CRD of a dynamic informer by the resource of
// its objects, "<group>/<plural>".
func IndexByResource(obj interface{}) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
	return []string{group + "/" + plural}, nil
}

// ByFeature is the name of the index of CRDs by the Features they bind
// to, "<namespace>/<name>" (IndexByFeature).
const ByFeature = "feature"

// IndexByFeature indexes a CRD of a dynamic informer by the Features its
// bindings name.
func IndexByFeature(obj interface{}) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	c, ok := FromUnstructured(u)
	if !ok {
		return nil, nil
	}
	keys := sets.New[string]()
	for _, b := range c.Bindings {
		keys.Insert(b.Feature)
	}
	return sets.List(keys), nil
}
