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
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Typed is a Path compiled once for a Go type: it reads and clears the
// field in objects of that type directly, without the conversion to the
// path's version and to the unstructured form, and back, that the
// unstructured methods need for every object.
//
// A path is written in the JSON names of a versioned type (e.g.
// appsv1.StatefulSet); the objects a Typed works on are of another type,
// usually the internal one (apps.StatefulSet), whose fields carry the same
// Go names, which is how conversion-gen converts between them. Compile
// accepts a path only where reading and clearing it directly gives what the
// unstructured methods give on the object converted to the versioned type;
// it refuses the rest, and callers keep the unstructured methods for those.
type Typed struct {
	path  Path
	steps []typedStep
	// scalar is whether the leaf's unstructured value is a string, a
	// number or a bool: a keep function is then given that value.
	scalar bool
}

// typedStep is one segment of a compiled path.
type typedStep struct {
	// index is the field's index in the struct (through embedded structs,
	// never through a pointer).
	index []int
	// each is the segment's number of [*].
	each int
	// copyBack is set when some [*] of the segment ranges over a map whose
	// values are structs: they are not addressable, so a value is cleared
	// in a copy that is then stored back.
	copyBack bool
}

// unstructuredConverter is implemented by the types that convert
// themselves to the unstructured form (resource.Quantity, intstr.IntOrString,
// metav1.Time, ...).
type unstructuredConverter interface {
	ToUnstructured() interface{}
}

var (
	jsonMarshalerType         = reflect.TypeFor[json.Marshaler]()
	unstructuredConverterType = reflect.TypeFor[unstructuredConverter]()
)

// Compile compiles p, written in the JSON names of versioned, for objects
// of target. Every field of p is found in versioned by its JSON name, and
// in target by the Go name it has in versioned; along the path both must
// have the same shape (struct, list, map), and the last field must be
// omitempty in versioned and of the same kind in both, so that it is
// present in the unstructured form exactly when it is not empty in target.
// It fails for a path it cannot read that way: a field target lacks or
// holds in another shape, one reached through a type that marshals itself,
// or a last field that is not omitempty.
func Compile(p Path, versioned, target reflect.Type) (*Typed, error) {
	if len(p) == 0 {
		return nil, fmt.Errorf("empty field path")
	}
	vt, tt := deref(versioned), deref(target)
	t := &Typed{path: p}
	for i, seg := range p {
		if vt.Kind() != reflect.Struct || tt.Kind() != reflect.Struct {
			return nil, fmt.Errorf("field path %q: %q is not in an object (%s, %s)", p, seg.Field, vt, tt)
		}
		if selfMarshaling(vt) {
			return nil, fmt.Errorf("field path %q: %s marshals itself", p, vt)
		}
		vf, ok := jsonField(vt, seg.Field)
		if !ok {
			return nil, fmt.Errorf("field path %q: %s has no field %q", p, vt, seg.Field)
		}
		tf, ok := tt.FieldByName(vf.Name)
		if !ok || !embeddedByValue(tt, tf.Index) {
			return nil, fmt.Errorf("field path %q: %s has no field %s", p, tt, vf.Name)
		}
		step := typedStep{index: tf.Index, each: seg.Each}
		vt, tt = vf.Type, tf.Type
		if i == len(p)-1 {
			if !omitEmpty(vf) {
				return nil, fmt.Errorf("field path %q: %s.%s is not omitempty", p, versioned, vf.Name)
			}
			if vt.Kind() != tt.Kind() || (vt.Kind() == reflect.Pointer && vt.Elem().Kind() != tt.Elem().Kind()) {
				return nil, fmt.Errorf("field path %q: %s is %s here and %s there", p, vf.Name, vt, tt)
			}
			t.scalar = scalarKind(deref(tt))
			t.steps = append(t.steps, step)
			return t, nil
		}
		vt, tt = deref(vt), deref(tt)
		for range seg.Each {
			if !sameContainer(vt, tt) {
				return nil, fmt.Errorf("field path %q: %s[*] is %s here and %s there", p, vf.Name, vt, tt)
			}
			if tt.Kind() == reflect.Map && deref(tt.Elem()).Kind() == reflect.Struct && tt.Elem().Kind() != reflect.Pointer {
				step.copyBack = true
			}
			vt, tt = deref(vt.Elem()), deref(tt.Elem())
		}
		t.steps = append(t.steps, step)
	}
	return t, nil
}

// Path returns the path t was compiled from.
func (t *Typed) Path() Path { return t.path }

// ScalarLeaf reports whether the field's unstructured value is a string, a
// number or a bool (or a type that converts itself to one), which a keep
// function of HasUnless and ClearUnless is then given. For other fields
// (objects, lists, maps) the keep function would be given their
// unstructured form, which a Typed does not build: use the unstructured
// methods with a keep function there.
func (t *Typed) ScalarLeaf() bool { return t.scalar }

// HasUnless is Path.HasUnless on obj, a pointer to an object of the type t
// was compiled for.
func (t *Typed) HasUnless(obj interface{}, keep func(interface{}) bool) bool {
	found := false
	t.visit(obj, false, func(v reflect.Value) bool {
		if !isEmpty(v) && (keep == nil || !keep(leafValue(v))) {
			found = true
		}
		return !found
	})
	return found
}

// ClearUnless is Path.ClearUnless on obj, a pointer to an object of the
// type t was compiled for: the field is set to its zero value.
func (t *Typed) ClearUnless(obj interface{}, keep func(interface{}) bool) bool {
	cleared := false
	t.visit(obj, true, func(v reflect.Value) bool {
		if !isEmpty(v) && (keep == nil || !keep(leafValue(v))) {
			v.Set(reflect.Zero(v.Type()))
			cleared = true
		}
		return true
	})
	return cleared
}

// visit calls f with every field the path designates in obj (settable
// values), until f returns false. write says that f may change them: the
// copies of map values f is given are then stored back.
func (t *Typed) visit(obj interface{}, write bool, f func(v reflect.Value) bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	visitSteps(v.Elem(), t.steps, write, f)
}

// visitSteps visits steps in the struct v; it returns false once f did.
func visitSteps(v reflect.Value, steps []typedStep, write bool, f func(v reflect.Value) bool) bool {
	step := steps[0]
	fv := v.FieldByIndex(step.index)
	if len(steps) == 1 {
		return f(fv)
	}
	return descend(fv, step.each, step.copyBack, steps[1:], write, f)
}

// descend goes each more [*] levels into v, then visits rest in the structs
// it reaches.
func descend(v reflect.Value, each int, copyBack bool, rest []typedStep, write bool, f func(v reflect.Value) bool) bool {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	if each == 0 {
		if v.Kind() != reflect.Struct {
			return true
		}
		return visitSteps(v, rest, write, f)
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !descend(v.Index(i), each-1, copyBack, rest, write, f) {
				return false
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			e := it.Value()
			if !copyBack || e.Kind() == reflect.Pointer {
				if !descend(e, each-1, copyBack, rest, write, f) {
					return false
				}
				continue
			}
			// A struct value of a map is not settable: visit a copy, and
			// store it back when f may have changed it.
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			goOn := descend(c, each-1, copyBack, rest, write, f)
			if write {
				v.SetMapIndex(it.Key(), c)
			}
			if !goOn {
				return false
			}
		}
	}
	return true
}

// leafValue returns a scalar field's value as the unstructured form holds
// it: a string, an int64, a float64 or a bool (nil for other fields).
func leafValue(v reflect.Value) interface{} {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.CanInterface() {
		if c, ok := v.Interface().(unstructuredConverter); ok {
			return c.ToUnstructured()
		}
		if v.CanAddr() {
			if c, ok := v.Addr().Interface().(unstructuredConverter); ok {
				return c.ToUnstructured()
			}
		}
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Bool:
		return v.Bool()
	}
	return nil
}

// isEmpty is what omitempty omits (runtime.DefaultUnstructuredConverter's
// rule, encoding/json's but for a map or a list of length 0 being empty
// whether nil or not).
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Map, reflect.Slice:
		return v.IsNil() || v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// scalarKind reports whether a field of type t (not a pointer) is a string,
// a number or a bool in the unstructured form.
func scalarKind(t reflect.Type) bool {
	if t.Implements(unstructuredConverterType) || reflect.PointerTo(t).Implements(unstructuredConverterType) {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// selfMarshaling reports whether t has its own JSON or unstructured form,
// whose fields are not its Go fields.
func selfMarshaling(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerType) ||
		t.Implements(unstructuredConverterType) || pt.Implements(unstructuredConverterType)
}

// sameContainer reports whether a and b are both lists or both maps with
// string keys.
func sameContainer(a, b reflect.Type) bool {
	switch a.Kind() {
	case reflect.Slice, reflect.Array:
		return (b.Kind() == reflect.Slice || b.Kind() == reflect.Array) && a.Elem().Kind() != reflect.Uint8
	case reflect.Map:
		return b.Kind() == reflect.Map && a.Key().Kind() == reflect.String && b.Key().Kind() == reflect.String
	}
	return false
}

// jsonField finds the field of struct t named name in JSON, in t or in a
// struct it inlines by value; its Index leads to it from t.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tagName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tagName == "-" {
			continue
		}
		if tagName == "" && f.Anonymous {
			if f.Type.Kind() != reflect.Struct {
				continue
			}
			if inner, ok := jsonField(f.Type, name); ok {
				inner.Index = append([]int{i}, inner.Index...)
				return inner, true
			}
			continue
		}
		if tagName == "" {
			tagName = f.Name
		}
		if tagName == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// omitEmpty reports whether the JSON tag of f has omitempty.
func omitEmpty(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" {
			return true
		}
	}
	return false
}

// embeddedByValue reports whether index leads from t to a field through
// embedded structs only, never through a pointer that may be nil.
func embeddedByValue(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		t = t.Field(i).Type
		if t.Kind() != reflect.Struct {
			return false
		}
	}
	return true
}

// deref returns t without its pointers.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
