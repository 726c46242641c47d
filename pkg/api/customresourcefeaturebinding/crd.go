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
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CRD is what enforcing and clearing need of a CustomResourceDefinition.
type CRD struct {
	// Name is the CRD's name, <plural>.<group>.
	Name string
	// Resource is the custom resource in a served version (the storage
	// version when it is served).
	Resource schema.GroupVersionResource
	// Kind is the kind of its objects.
	Kind string
	// Namespaced says that its objects are namespaced.
	Namespaced bool
	// Status says that some version has a status subresource.
	Status bool
}

// FromUnstructured reads a CRD of a dynamic client or informer
// (apiextensions.k8s.io/v1).
func FromUnstructured(u *unstructured.Unstructured) CRD {
	c := CRD{Name: u.GetName()}
	c.Kind, _, _ = unstructured.NestedString(u.Object, "spec", "names", "kind")
	c.Resource.Group, _, _ = unstructured.NestedString(u.Object, "spec", "group")
	c.Resource.Resource, _, _ = unstructured.NestedString(u.Object, "spec", "names", "plural")
	scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
	c.Namespaced = scope == string(apiextensionsv1.NamespaceScoped)
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
	return c
}

// CheckPath says why fields is not a field of the schema of any version of
// crd ("" when it is one of at least one): it must run through objects
// only, and a field inside an object that keeps unknown fields is one.
func CheckPath(crd *apiextensionsv1.CustomResourceDefinition, fields []string) string {
	why := "no version of " + crd.Name + " has a schema"
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		_, w := walk(v.Schema.OpenAPIV3Schema, fields)
		if w == "" {
			return ""
		}
		why = fmt.Sprintf("version %s: %s", v.Name, w)
	}
	return why
}

// CheckValue says why value cannot be a value of the field at fields in
// any version of crd ("" when it can in at least one): the field must be
// a scalar, value written as its type writes it, and one of its enum's
// values when it has one.
func CheckValue(crd *apiextensionsv1.CustomResourceDefinition, fields []string, value string) string {
	why := "no version of " + crd.Name + " has the field " + strings.Join(fields, ".")
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		s, w := walk(v.Schema.OpenAPIV3Schema, fields)
		if w != "" {
			continue
		}
		if w = checkScalar(s, strings.Join(fields, "."), value); w == "" {
			return ""
		}
		why = fmt.Sprintf("version %s: %s", v.Name, w)
	}
	return why
}

// walk returns the schema of fields in s (nil inside an object that keeps
// unknown fields), or says why fields is not a property path of s.
func walk(s *apiextensionsv1.JSONSchemaProps, fields []string) (*apiextensionsv1.JSONSchemaProps, string) {
	for i, f := range fields {
		if s.Type == "array" {
			return nil, fmt.Sprintf("%s is a list: fields inside lists cannot be bound", strings.Join(fields[:i], "."))
		}
		p, ok := s.Properties[f]
		if !ok {
			if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
				return nil, ""
			}
			return nil, fmt.Sprintf("the schema has no field %s", strings.Join(fields[:i+1], "."))
		}
		s = &p
	}
	return s, ""
}

// checkScalar says why value cannot be a value of the field of schema s
// ("" when it can; s nil: a field the schema does not describe).
func checkScalar(s *apiextensionsv1.JSONSchemaProps, path, value string) string {
	if s == nil {
		return ""
	}
	var v interface{}
	switch {
	case s.XIntOrString:
		if i, err := strconv.ParseInt(value, 10, 64); err == nil && strconv.FormatInt(i, 10) == value {
			v = i
		} else {
			v = value
		}
	case s.Type == "string":
		v = value
	case s.Type == "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil || strconv.FormatBool(b) != value {
			return fmt.Sprintf("%s is a boolean: the value must be true or false", path)
		}
		v = b
	case s.Type == "integer":
		i, err := strconv.ParseInt(value, 10, 64)
		if err != nil || strconv.FormatInt(i, 10) != value {
			return fmt.Sprintf("%s is an integer: the value must be written in decimal, e.g. 3", path)
		}
		v = i
	case s.Type == "number":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || strconv.FormatFloat(f, 'g', -1, 64) != value {
			return fmt.Sprintf("%s is a number: the value must be written as JSON writes it, e.g. 2.5 or 3", path)
		}
		v = f
	case s.Type == "object" || s.Type == "array":
		return fmt.Sprintf("%s is an %s: only a value of a scalar field (string, integer, number, boolean) can be bound", path, s.Type)
	default:
		return ""
	}
	if len(s.Enum) == 0 {
		return ""
	}
	var allowed []string
	for _, e := range s.Enum {
		var ev interface{}
		if err := json.Unmarshal(e.Raw, &ev); err != nil {
			continue
		}
		es, ok := scalar(normalize(ev))
		if !ok {
			continue
		}
		if vs, _ := scalar(normalize(v)); vs == es {
			return ""
		}
		allowed = append(allowed, es)
	}
	return fmt.Sprintf("%s must be one of its enum values: %s", path, strings.Join(allowed, ", "))
}

// normalize turns the float64 of an integral JSON number into the int64
// that a custom resource decoded from JSON holds.
func normalize(v interface{}) interface{} {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}
