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

package gatedfield

import (
	"reflect"
	"strings"
	"testing"
)

// The test's "versioned" types, with JSON names, and "internal" ones, with
// the same Go names and other shapes where Compile must refuse.
type vObject struct {
	vMeta `json:",inline"`
	Spec  vSpec  `json:"spec,omitempty"`
	Plain string `json:"plain"`
}

type vMeta struct {
	Name string `json:"name,omitempty"`
}

type vSpec struct {
	Mode       *string           `json:"mode,omitempty"`
	Count      int32             `json:"count,omitempty"`
	Items      []vItem           `json:"items,omitempty"`
	ByName     map[string]vItem  `json:"byName,omitempty"`
	ByNamePtr  map[string]*vItem `json:"byNamePtr,omitempty"`
	Replicas   *int32            `json:"replicas,omitempty"`
	Renamed    string            `json:"renamed,omitempty"`
	Nested     *vSpecNested      `json:"nested,omitempty"`
	Marshaling vMarshaling       `json:"marshaling,omitempty"`
}

type vSpecNested struct {
	Tags []string `json:"tags,omitempty"`
}

type vItem struct {
	Name  string `json:"name,omitempty"`
	Extra *bool  `json:"extra,omitempty"`
}

type vMarshaling struct {
	Inner string `json:"inner,omitempty"`
}

func (vMarshaling) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type iObject struct {
	vMeta
	Spec  iSpec
	Plain string
}

type iSpec struct {
	Mode       *string
	Count      int32
	Items      []iItem
	ByName     map[string]iItem
	ByNamePtr  map[string]*iItem
	Replicas   int32 // a pointer in the versioned type
	Other      string
	Nested     iSpecNested // a value here
	Marshaling vMarshaling
}

type iSpecNested struct {
	Tags []string
}

type iItem struct {
	Name  string
	Extra *bool
}

func TestCompile(t *testing.T) {
	v, i := reflect.TypeFor[vObject](), reflect.TypeFor[*iObject]()
	for _, c := range []struct {
		path    string
		refused string // a substring of Compile's error; "" when it compiles
	}{
		{path: "name"},
		{path: "spec.mode"},
		{path: "spec.count"},
		{path: "spec.items[*].extra"},
		{path: "spec.byName[*].extra"},
		{path: "spec.byNamePtr[*].name"},
		{path: "spec.nested.tags"},
		{path: "spec.items"},
		{path: "plain", refused: "not omitempty"},
		{path: "spec.replicas", refused: "is *int32 here and int32 there"},
		{path: "spec.renamed", refused: "has no field Renamed"},
		{path: "spec.missing", refused: `has no field "missing"`},
		{path: "spec.marshaling.inner", refused: "marshals itself"},
		{path: "spec.mode.x", refused: "is not in an object"},
	} {
		_, err := Compile(MustParse(c.path), v, i)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: got error %v, want one with %q", c.path, err, c.refused)
		}
	}
}

func TestTypedHasAndClear(t *testing.T) {
	v, i := reflect.TypeFor[vObject](), reflect.TypeFor[iObject]()
	yes := true
	mode := "fast"
	object := func() *iObject {
		return &iObject{
			vMeta: vMeta{Name: "o"},
			Spec: iSpec{
				Mode:      &mode,
				Count:     3,
				Items:     []iItem{{Name: "a", Extra: &yes}, {Name: "b"}},
				ByName:    map[string]iItem{"a": {Name: "a", Extra: &yes}, "b": {Name: "b"}},
				ByNamePtr: map[string]*iItem{"a": {Name: "a"}, "b": nil},
			},
		}
	}
	for _, c := range []struct {
		path  string
		keep  []string
		has   bool
		check func(*iObject) bool // holds after the clear
	}{
		{path: "spec.mode", has: true, check: func(o *iObject) bool { return o.Spec.Mode == nil }},
		{path: "spec.mode", keep: []string{"fast"}, has: false, check: func(o *iObject) bool { return *o.Spec.Mode == "fast" }},
		{path: "spec.count", keep: []string{"2"}, has: true, check: func(o *iObject) bool { return o.Spec.Count == 0 }},
		{path: "spec.count", keep: []string{"3"}, has: false, check: func(o *iObject) bool { return o.Spec.Count == 3 }},
		{path: "spec.items[*].extra", has: true, check: func(o *iObject) bool { return o.Spec.Items[0].Extra == nil && o.Spec.Items[0].Name == "a" }},
		{path: "spec.byName[*].extra", has: true, check: func(o *iObject) bool { return o.Spec.ByName["a"].Extra == nil && o.Spec.ByName["a"].Name == "a" }},
		{path: "spec.byNamePtr[*].name", has: true, check: func(o *iObject) bool { return o.Spec.ByNamePtr["a"].Name == "" && o.Spec.ByNamePtr["b"] == nil }},
		{path: "spec.nested.tags", has: false, check: func(o *iObject) bool { return o.Spec.Nested.Tags == nil }},
		{path: "name", has: true, check: func(o *iObject) bool { return o.Name == "" }},
	} {
		typed, err := Compile(MustParse(c.path), v, i)
		if err != nil {
			t.Fatal(err)
		}
		o := object()
		if got := typed.HasUnless(o, KeepStrings(c.keep)); got != c.has {
			t.Errorf("%s keep %v: HasUnless = %t, want %t", c.path, c.keep, got, c.has)
		}
		if !reflect.DeepEqual(o, object()) {
			t.Errorf("%s: HasUnless changed the object", c.path)
		}
		if got := typed.ClearUnless(o, KeepStrings(c.keep)); got != c.has {
			t.Errorf("%s keep %v: ClearUnless = %t, want %t", c.path, c.keep, got, c.has)
		}
		if !c.check(o) {
			t.Errorf("%s keep %v: after ClearUnless %+v", c.path, c.keep, o.Spec)
		}
		if typed.ClearUnless(o, KeepStrings(c.keep)) || typed.HasUnless(o, KeepStrings(c.keep)) {
			t.Errorf("%s keep %v: the field is still there after ClearUnless", c.path, c.keep)
		}
	}
}
