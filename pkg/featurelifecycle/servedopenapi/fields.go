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

package servedopenapi

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// Field is one field of a resource a gate guards, as the inventory lists
// it.
type Field struct {
	// Gate is the gate.
	Gate featuregate.Feature
	// Resource is the resource.
	Resource schema.GroupResource
	// Path is the field.
	Path gatedfield.Path
	// Kept are the values the strategy keeps with the gate off (the field
	// stays, its enum shrinks to them); empty when it drops every value.
	Kept []string
	// Values are the values validation refuses with the gate off (they
	// leave the field's enum); empty for a field the strategy drops.
	Values []string
}

// FieldsOf returns the fields the inventory's gates guard: the fields
// their strategies drop (Gates) and the values their validation refuses
// (RefusedValues). Paths are resolved in every served version of their
// resource; a field missing from a version is skipped there.
func FieldsOf(inv *inventory.Inventory) []Field {
	var out []Field
	for _, gate := range slices.Sorted(maps.Keys(inv.Gates)) {
		fp := inv.Gates[gate]
		for _, r := range slices.Sorted(maps.Keys(fp.Fields)) {
			gr := schema.ParseGroupResource(r)
			for _, p := range fp.Fields[r] {
				out = append(out, Field{Gate: featuregate.Feature(gate), Resource: gr, Path: gatedfield.MustParse(p), Kept: fp.KeptValues(gr, p)})
			}
		}
	}
	for _, gate := range slices.Sorted(maps.Keys(inv.RefusedValues)) {
		for _, r := range slices.Sorted(maps.Keys(inv.RefusedValues[gate])) {
			paths := inv.RefusedValues[gate][r]
			for _, p := range slices.Sorted(maps.Keys(paths)) {
				out = append(out, Field{Gate: featuregate.Feature(gate), Resource: schema.ParseGroupResource(r), Path: gatedfield.MustParse(p), Values: paths[p]})
			}
		}
	}
	return out
}

// target is a Field found in one document: the property of a named schema
// that holds it.
type target struct {
	gate featuregate.Feature
	// definition is the schema's name, property its property.
	definition, property string
	// kept and values are the Field's.
	kept, values []string
}

// document is what resolving reads of an OpenAPI document, v2 or v3.
type document struct {
	// refPrefix is what a reference to a named schema starts with.
	refPrefix string
	// schema returns a named schema.
	schema func(name string) *spec.Schema
	// createBody returns the schema of the body of a POST to path (a
	// resource's collection), nil when there is none.
	createBody func(path string) *spec.Schema
	// groupVersions are the group-versions the document serves, as
	// "<group>/<version>" ("v1" for the core group).
	groupVersions []schema.GroupVersion
}

// collectionPaths returns the paths of gr's collection in gv: cluster
// scoped and namespaced.
func collectionPaths(gv schema.GroupVersion, resource string) []string {
	root := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		root = "/api/" + gv.Version
	}
	return []string{root + "/" + resource, root + "/namespaces/{namespace}/" + resource}
}

// resolve finds fields in doc: the named schema and property holding each,
// in every group-version of doc serving the field's group.
func resolve(doc document, fields []Field) []target {
	var out []target
	type key struct {
		gate                 featuregate.Feature
		definition, property string
		kept, values         string
	}
	seen := map[key]bool{}
	for _, f := range fields {
		for _, gv := range doc.groupVersions {
			if gv.Group != f.Resource.Group {
				continue
			}
			for _, p := range collectionPaths(gv, f.Resource.Resource) {
				body := doc.createBody(p)
				if body == nil {
					continue
				}
				definition, property, ok := walk(doc, body, f.Path)
				if !ok {
					continue
				}
				k := key{f.Gate, definition, property, strings.Join(f.Kept, ","), strings.Join(f.Values, ",")}
				if seen[k] {
					continue
				}
				seen[k] = true
				out = append(out, target{gate: f.Gate, definition: definition, property: property, kept: f.Kept, values: f.Values})
			}
		}
	}
	return out
}

// named returns the name of the schema s refers to, directly or as the one
// schema of its allOf (how v3 documents refer to a type with a
// description of their own).
func named(doc document, s *spec.Schema) (string, bool) {
	ref := s.Ref.String()
	if ref == "" && len(s.AllOf) == 1 {
		ref = s.AllOf[0].Ref.String()
	}
	name, ok := strings.CutPrefix(ref, doc.refPrefix)
	return name, ok && doc.schema(name) != nil
}

// walk follows path from s, through named schemas, list items and map
// values, and returns the named schema and the property the path ends at.
func walk(doc document, s *spec.Schema, path gatedfield.Path) (string, string, bool) {
	for i, seg := range path {
		name, ok := named(doc, s)
		if !ok {
			return "", "", false
		}
		holder := doc.schema(name)
		prop, ok := holder.Properties[seg.Field]
		if !ok {
			return "", "", false
		}
		if i == len(path)-1 {
			return name, seg.Field, true
		}
		next := &prop
		for range seg.Each {
			switch {
			case next.Items != nil && next.Items.Schema != nil:
				next = next.Items.Schema
			case next.AdditionalProperties != nil && next.AdditionalProperties.Schema != nil:
				next = next.AdditionalProperties.Schema
			default:
				return "", "", false
			}
		}
		s = next
	}
	return "", "", false
}

// gatesOfFields returns the gates of fields, sorted.
func gatesOfFields(fields []Field) []featuregate.Feature {
	var out []featuregate.Feature
	for _, f := range fields {
		if !slices.Contains(out, f.Gate) {
			out = append(out, f.Gate)
		}
	}
	slices.Sort(out)
	return out
}
