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

package main

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
)

// Change says how a field differs between two objects.
type Change string

const (
	// Dropped means the field is set in the first object and unset (nil,
	// empty or the zero value) in the second.
	Dropped Change = "dropped"
	// Changed means the field is set in both objects with different values.
	Changed Change = "changed"
)

// DroppedPaths returns the JSON field paths that are set in on and dropped or
// changed in off, with how they differ. on and off must have the same type,
// normally a versioned API object: struct fields are named by their json tag
// (inline and embedded fields are flattened), list indices and map keys are
// both collapsed to [*]. A field set in on and dropped in off is reported
// where it starts (spec.foo, not every field below spec.foo); a field present
// in both is compared field by field below it. Values that marshal
// themselves to JSON or text (resource.Quantity, metav1.Time,
// intstr.IntOrString, ...) are compared as a whole with equality.Semantic.
// Fields set only in off are not reported.
//
// A recursive type repeats a list field in a path as deep as the fuzzer went
// (workloads' spec.compositePodGroupTemplates[*].compositePodGroupTemplates[*]...):
// consecutive repeats of a list element segment are listed once.
func DroppedPaths(on, off interface{}) map[string]Change {
	raw := map[string]Change{}
	diffValues(reflect.ValueOf(on), reflect.ValueOf(off), "", raw)
	out := map[string]Change{}
	for p, c := range raw {
		record(out, collapseRepeats(p), c)
	}
	return out
}

// collapseRepeats lists consecutive repeats of a list element segment
// (a[*].a[*]) once.
func collapseRepeats(path string) string {
	segs := strings.Split(path, ".")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if len(out) > 0 && strings.HasSuffix(s, "[*]") && s == out[len(out)-1] {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, ".")
}

var (
	jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

// isLeaf reports whether values of t are compared as a whole.
func isLeaf(t reflect.Type) bool {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return true // []byte
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || pt.Implements(textMarshaler)
}

// unset reports whether v holds nothing: an invalid value, a nil pointer,
// interface, map or slice, an empty map or slice, or a zero scalar or leaf.
// A struct that is not a leaf is compared field by field instead.
func unset(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Map, reflect.Slice:
		return v.Len() == 0
	case reflect.Struct:
		return isLeaf(v.Type()) && v.IsZero()
	}
	return v.IsZero()
}

// deref follows pointers and interfaces down to a value that is neither, or
// to an invalid value when one of them is nil.
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func record(out map[string]Change, path string, c Change) {
	if path == "" {
		path = "."
	}
	// A path both dropped and changed (in different list elements, say) is
	// reported as dropped: that is the stronger statement.
	if out[path] == Dropped {
		return
	}
	out[path] = c
}

func diffValues(on, off reflect.Value, path string, out map[string]Change) {
	if unset(on) {
		return
	}
	if unset(off) {
		record(out, path, Dropped)
		return
	}
	on, off = deref(on), deref(off)
	if on.Type() != off.Type() {
		record(out, path, Changed)
		return
	}
	if isLeaf(on.Type()) {
		if !equality.Semantic.DeepEqual(on.Interface(), off.Interface()) {
			record(out, path, Changed)
		}
		return
	}
	switch on.Kind() {
	case reflect.Struct:
		t := on.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, inline := jsonName(f)
			if name == "-" {
				continue
			}
			p := path
			if !inline {
				p = join(path, name)
			}
			diffValues(on.Field(i), off.Field(i), p, out)
		}
	case reflect.Slice, reflect.Array:
		elem := path + "[*]"
		n := min(on.Len(), off.Len())
		for i := 0; i < n; i++ {
			diffValues(on.Index(i), off.Index(i), elem, out)
		}
		if on.Len() > off.Len() {
			record(out, elem, Dropped)
		}
	case reflect.Map:
		elem := path + "[*]"
		iter := on.MapRange()
		for iter.Next() {
			o := off.MapIndex(iter.Key())
			if !o.IsValid() {
				record(out, elem, Dropped)
				continue
			}
			diffValues(iter.Value(), o, elem, out)
		}
	default:
		if !equality.Semantic.DeepEqual(on.Interface(), off.Interface()) {
			record(out, path, Changed)
		}
	}
}

// jsonName returns the name of a struct field in JSON and whether the field
// is inlined into its parent (`json:",inline"` or an embedded struct without
// a name).
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "-" && opts == "" {
		return "-", false
	}
	if strings.Contains(","+opts+",", ",inline,") {
		return "", true
	}
	if name == "" {
		if f.Anonymous {
			return "", true
		}
		return f.Name, false
	}
	return name, false
}
