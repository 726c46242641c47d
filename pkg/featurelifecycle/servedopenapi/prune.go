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
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Extensions the served documents carry on a gated field they hold.
const (
	// FeatureExtension names the field's Feature, "<namespace>/<name>".
	FeatureExtension = "x-kubernetes-feature"
	// FeatureStateExtension is that Feature's state.
	FeatureStateExtension = "x-kubernetes-feature-state"
)

// Visibility is what the served documents show of one gate's fields.
type Visibility struct {
	// Hidden removes the gate's fields, and its values from their enums.
	Hidden bool
	// Feature is the gate's Feature, "<namespace>/<name>", and State its
	// state, carried by the fields that are shown ("" when it has none).
	Feature, State string
}

// Visibilities maps each gate to its Visibility; a gate missing is shown,
// without extensions.
type Visibilities map[featuregate.Feature]Visibility

// V3 is one group-version's OpenAPI v3 document with the fields it holds.
type V3 struct {
	original *spec3.OpenAPI
	targets  []target
}

// NewV3 finds fields in doc, one group-version's document as built.
func NewV3(doc *spec3.OpenAPI, fields []Field) *V3 {
	var schemas map[string]*spec.Schema
	if doc.Components != nil {
		schemas = doc.Components.Schemas
	}
	d := document{
		refPrefix: "#/components/schemas/",
		schema:    func(name string) *spec.Schema { return schemas[name] },
		createBody: func(path string) *spec.Schema {
			if doc.Paths == nil || doc.Paths.Paths[path] == nil || doc.Paths.Paths[path].Post == nil || doc.Paths.Paths[path].Post.RequestBody == nil {
				return nil
			}
			for _, m := range slices.Sorted(maps.Keys(doc.Paths.Paths[path].Post.RequestBody.Content)) {
				if mt := doc.Paths.Paths[path].Post.RequestBody.Content[m]; mt != nil && mt.Schema != nil {
					return mt.Schema
				}
			}
			return nil
		},
	}
	if doc.Paths != nil {
		d.groupVersions = groupVersionsOf(slices.Collect(maps.Keys(doc.Paths.Paths)))
	}
	return &V3{original: doc, targets: resolve(d, fields)}
}

// Gated says whether the document holds a field of any gate.
func (v *V3) Gated() bool { return len(v.targets) > 0 }

// Gates returns the gates whose fields the document holds.
func (v *V3) Gates() []featuregate.Feature { return gatesOf(v.targets) }

// Apply returns the document as vis shows it. The document it was made
// from is not changed: the schemas that change are copied.
func (v *V3) Apply(vis Visibilities) *spec3.OpenAPI {
	out := *v.original
	components := *v.original.Components
	components.Schemas = apply(v.targets, vis, func(name string) *spec.Schema { return v.original.Components.Schemas[name] },
		maps.Clone(v.original.Components.Schemas), func(m map[string]*spec.Schema, name string, s *spec.Schema) { m[name] = s })
	out.Components = &components
	return &out
}

// V2 is the OpenAPI v2 document with the fields it holds.
type V2 struct {
	original *spec.Swagger
	targets  []target
}

// NewV2 finds fields in doc, the server's OpenAPI v2 document as built.
func NewV2(doc *spec.Swagger, fields []Field) *V2 {
	d := document{
		refPrefix: "#/definitions/",
		schema: func(name string) *spec.Schema {
			if s, ok := doc.Definitions[name]; ok {
				return &s
			}
			return nil
		},
		createBody: func(path string) *spec.Schema {
			if doc.Paths == nil {
				return nil
			}
			item, ok := doc.Paths.Paths[path]
			if !ok || item.Post == nil {
				return nil
			}
			for _, p := range item.Post.Parameters {
				if p.In == "body" && p.Schema != nil {
					return p.Schema
				}
			}
			return nil
		},
	}
	if doc.Paths != nil {
		d.groupVersions = groupVersionsOf(slices.Collect(maps.Keys(doc.Paths.Paths)))
	}
	return &V2{original: doc, targets: resolve(d, fields)}
}

// Gates returns the gates whose fields the document holds.
func (v *V2) Gates() []featuregate.Feature { return gatesOf(v.targets) }

// Apply returns the document as vis shows it, leaving the one it was made
// from unchanged.
func (v *V2) Apply(vis Visibilities) *spec.Swagger {
	out := *v.original
	out.Definitions = apply(v.targets, vis, func(name string) *spec.Schema {
		s := v.original.Definitions[name]
		return &s
	}, maps.Clone(v.original.Definitions), func(m spec.Definitions, name string, s *spec.Schema) { m[name] = *s })
	return &out
}

// apply changes the named schemas of targets in defs (a copy of the
// document's), each copied before it changes, and returns defs.
func apply[M any](targets []target, vis Visibilities, original func(string) *spec.Schema, defs M, set func(M, string, *spec.Schema)) M {
	changed := map[string]*spec.Schema{}
	holder := func(name string) *spec.Schema {
		if s, ok := changed[name]; ok {
			return s
		}
		s := *original(name)
		s.Properties = maps.Clone(s.Properties)
		changed[name] = &s
		return &s
	}
	// Hide first: a field two gates guard is hidden when either is.
	hidden := map[[2]string]bool{}
	for _, t := range targets {
		v := vis[t.gate]
		if !v.Hidden {
			continue
		}
		s := holder(t.definition)
		prop, ok := s.Properties[t.property]
		if !ok {
			continue
		}
		switch {
		case len(t.values) > 0:
			prop = withEnum(prop, func(e interface{}) bool { return !slices.Contains(t.values, fmt.Sprint(e)) })
		case len(t.kept) > 0:
			prop = withEnum(prop, func(e interface{}) bool { return slices.Contains(t.kept, fmt.Sprint(e)) })
		default:
			delete(s.Properties, t.property)
			s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(r string) bool { return r == t.property })
			hidden[[2]string{t.definition, t.property}] = true
			continue
		}
		s.Properties[t.property] = prop
	}
	for _, t := range targets {
		v := vis[t.gate]
		if v.Hidden || v.Feature == "" || hidden[[2]string{t.definition, t.property}] {
			continue
		}
		s := holder(t.definition)
		prop, ok := s.Properties[t.property]
		if !ok {
			continue
		}
		prop.Extensions = maps.Clone(prop.Extensions)
		if prop.Extensions == nil {
			prop.Extensions = spec.Extensions{}
		}
		features, _ := prop.Extensions.GetString(FeatureExtension)
		states, _ := prop.Extensions.GetString(FeatureStateExtension)
		prop.Extensions.Add(FeatureExtension, joinOnce(features, v.Feature))
		prop.Extensions.Add(FeatureStateExtension, joinOnce(states, v.State))
		s.Properties[t.property] = prop
	}
	for _, name := range slices.Sorted(maps.Keys(changed)) {
		set(defs, name, changed[name])
	}
	return defs
}

// joinOnce appends value to a comma-separated list unless it is there
// (a field two gates guard names both Features).
func joinOnce(list, value string) string {
	if list == "" {
		return value
	}
	if slices.Contains(strings.Split(list, ","), value) {
		return list
	}
	return list + "," + value
}

// withEnum returns prop with the values of its enum (or its items' enum)
// that keep accepts.
func withEnum(prop spec.Schema, keep func(interface{}) bool) spec.Schema {
	filter := func(enum []interface{}) []interface{} {
		return slices.DeleteFunc(slices.Clone(enum), func(e interface{}) bool { return !keep(e) })
	}
	if len(prop.Enum) > 0 {
		prop.Enum = filter(prop.Enum)
		return prop
	}
	if prop.Items != nil && prop.Items.Schema != nil && len(prop.Items.Schema.Enum) > 0 {
		items := *prop.Items.Schema
		items.Enum = filter(items.Enum)
		prop.Items = &spec.SchemaOrArray{Schema: &items}
	}
	return prop
}

// gatesOf returns the gates of targets, sorted.
func gatesOf(targets []target) []featuregate.Feature {
	var out []featuregate.Feature
	for _, t := range targets {
		if !slices.Contains(out, t.gate) {
			out = append(out, t.gate)
		}
	}
	slices.Sort(out)
	return out
}

// groupVersionsOf returns the group-versions of API paths: /api/<version>/…
// and /apis/<group>/<version>/….
func groupVersionsOf(paths []string) []schema.GroupVersion {
	var out []schema.GroupVersion
	for _, p := range paths {
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		var gv schema.GroupVersion
		switch {
		case len(parts) >= 3 && parts[0] == "api" && parts[1] != "":
			gv = schema.GroupVersion{Version: parts[1]}
		case len(parts) >= 4 && parts[0] == "apis" && parts[2] != "":
			gv = schema.GroupVersion{Group: parts[1], Version: parts[2]}
		default:
			continue
		}
		if !slices.Contains(out, gv) {
			out = append(out, gv)
		}
	}
	slices.SortFunc(out, func(a, b schema.GroupVersion) int { return strings.Compare(a.String(), b.String()) })
	return out
}
