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

package inventory

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// openAPIDir holds the tree's static OpenAPI v3 documents, one per
// group-version, as kube-apiserver serves them with every API enabled.
const openAPIDir = "../../../api/openapi-spec/v3"

// openAPISchema is the part of an OpenAPI v3 schema the check walks.
type openAPISchema struct {
	Ref                  string                    `json:"$ref"`
	AllOf                []*openAPISchema          `json:"allOf"`
	Properties           map[string]*openAPISchema `json:"properties"`
	Items                *openAPISchema            `json:"items"`
	AdditionalProperties *openAPISchema            `json:"additionalProperties"`
}

// openAPIDocument is the part of a document the check reads.
type openAPIDocument struct {
	Paths map[string]struct {
		Post *struct {
			RequestBody struct {
				Content map[string]struct {
					Schema openAPISchema `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"post"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]*openAPISchema `json:"schemas"`
	} `json:"components"`
}

// TestPathsInServedSchema: every field path the inventory lists (fields a
// gate's strategy drops or changes, refused and stricter values) names a
// field of its resource's schema in the OpenAPI v3 document of the version
// it is written in, so a field upstream renames or removes fails here
// rather than leaving a task that clears nothing.
func TestPathsInServedSchema(t *testing.T) {
	inv, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	// resource -> the paths listed for it, with where they come from.
	listed := map[string]map[string]string{}
	add := func(r, p, from string) {
		if listed[r] == nil {
			listed[r] = map[string]string{}
		}
		listed[r][p] = from
	}
	for gate, fp := range inv.Gates {
		for r, ps := range fp.Fields {
			for _, p := range ps {
				add(r, p, "fields of "+gate)
			}
		}
		for r, ps := range fp.Changed {
			for _, p := range ps {
				add(r, p, "changed fields of "+gate)
			}
		}
	}
	for what, values := range map[string]map[string]map[string]map[string][]string{"refused values": inv.RefusedValues, "stricter values": inv.StricterValues} {
		for gate, byRes := range values {
			for r, paths := range byRes {
				for p := range paths {
					add(r, p, what+" of "+gate)
				}
			}
		}
	}
	docs := map[schema.GroupVersion]*openAPIDocument{}
	checked := 0
	for _, r := range slices.Sorted(maps.Keys(listed)) {
		gr := schema.ParseGroupResource(r)
		gv, err := inv.Version(gr)
		if err != nil {
			t.Fatal(err)
		}
		doc, ok := docs[gv]
		if !ok {
			if doc, err = readOpenAPI(gv); err != nil {
				t.Fatal(err)
			}
			docs[gv] = doc
		}
		root, err := doc.resourceSchema(gv, gr.Resource)
		if err != nil {
			t.Errorf("%s: %v", r, err)
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(listed[r])) {
			checked++
			if err := doc.walk(root, gatedfield.MustParse(p)); err != nil {
				t.Errorf("%s %s (%s) is not in the %s schema: %v", r, p, listed[r][p], gv, err)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no path checked")
	}
	t.Logf("%d paths of %d resources found in the served schemas", checked, len(listed))
}

// readOpenAPI reads the static document of gv.
func readOpenAPI(gv schema.GroupVersion) (*openAPIDocument, error) {
	name := "apis__" + gv.Group + "__" + gv.Version + "_openapi.json"
	if gv.Group == "" {
		name = "api__" + gv.Version + "_openapi.json"
	}
	data, err := os.ReadFile(filepath.Join(openAPIDir, name))
	if err != nil {
		return nil, err
	}
	doc := &openAPIDocument{}
	return doc, json.Unmarshal(data, doc)
}

// resourceSchema returns the schema of the body a create of resource takes.
func (d *openAPIDocument) resourceSchema(gv schema.GroupVersion, resource string) (*openAPISchema, error) {
	prefix := "/apis/" + gv.Group + "/" + gv.Version + "/"
	if gv.Group == "" {
		prefix = "/api/" + gv.Version + "/"
	}
	for _, p := range slices.Sorted(maps.Keys(d.Paths)) {
		op := d.Paths[p].Post
		if op == nil || !strings.HasPrefix(p, prefix) || !strings.HasSuffix(p, "/"+resource) ||
			(p != prefix+resource && p != prefix+"namespaces/{namespace}/"+resource) {
			continue
		}
		for _, c := range op.RequestBody.Content {
			return d.resolve(&c.Schema)
		}
	}
	return nil, fmt.Errorf("no create of %s in the %s document", resource, gv)
}

// resolve follows $ref and a single allOf.
func (d *openAPIDocument) resolve(s *openAPISchema) (*openAPISchema, error) {
	for range 16 {
		switch {
		case s == nil:
			return nil, fmt.Errorf("no schema")
		case s.Ref != "":
			name := strings.TrimPrefix(s.Ref, "#/components/schemas/")
			next, ok := d.Components.Schemas[name]
			if !ok {
				return nil, fmt.Errorf("no schema %s", name)
			}
			s = next
		case len(s.AllOf) == 1 && s.Properties == nil:
			s = s.AllOf[0]
		default:
			return s, nil
		}
	}
	return nil, fmt.Errorf("references nest too deep")
}

// walk checks that p names a field below s.
func (d *openAPIDocument) walk(s *openAPISchema, p gatedfield.Path) error {
	for i, seg := range p {
		next, ok := s.Properties[seg.Field]
		if !ok {
			return fmt.Errorf("no field %s at %s", seg.Field, p[:i])
		}
		var err error
		if s, err = d.resolve(next); err != nil {
			return fmt.Errorf("%s: %w", p[:i+1], err)
		}
		for range seg.Each {
			elem := s.Items
			if elem == nil {
				elem = s.AdditionalProperties
			}
			if elem == nil {
				return fmt.Errorf("%s is neither a list nor a map", p[:i+1])
			}
			if s, err = d.resolve(elem); err != nil {
				return fmt.Errorf("%s[*]: %w", p[:i+1], err)
			}
		}
	}
	return nil
}

// TestWalkFindsOnlyServedFields: the walk follows references, lists and
// maps, and refuses a field the schema does not have.
func TestWalkFindsOnlyServedFields(t *testing.T) {
	gv := schema.GroupVersion{Group: "apps", Version: "v1"}
	doc, err := readOpenAPI(gv)
	if err != nil {
		t.Fatal(err)
	}
	root, err := doc.resourceSchema(gv, "statefulsets")
	if err != nil {
		t.Fatal(err)
	}
	for p, ok := range map[string]bool{
		"spec.updateStrategy.rollingUpdate.maxUnavailable":    true,
		"spec.template.spec.containers[*].env[*].valueFrom":   true,
		"spec.template.metadata.labels":                       true,
		"spec.updateStrategy.rollingUpdate.maxUnavailableNot": false,
		"spec.template.spec.containers.name":                  false, // a list is entered only with [*]
		"spec.replicas[*]":                                    false,
	} {
		fp, err := gatedfield.Parse(p)
		if err != nil {
			if ok {
				t.Fatal(err)
			}
			continue
		}
		if got := doc.walk(root, fp) == nil; got != ok {
			t.Errorf("walk %s: found %t, want %t", p, got, ok)
		}
	}
}
