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

// Package gatedfield reads and clears fields of objects by the JSON paths the
// gate inventory (pkg/features/inventory) records, such as
// "spec.volumes[*].projected.sources[*].podCertificate": dot-separated
// field names, each optionally followed by [*] for every element of a list
// or every value of a map. Objects are in their unstructured form
// (runtime.DefaultUnstructuredConverter) of the version the path is written
// in.
package gatedfield

import (
	"fmt"
	"strconv"
	"strings"
)

// Path is a parsed field path.
type Path []Segment

// Segment is one field of a path.
type Segment struct {
	// Field is the JSON field name.
	Field string
	// Each is how many [*] follow the field: 1 for every element of a list
	// (or value of a map), 2 for every element of those, and so on.
	Each int
}

// Parse parses a path such as "spec.template.spec.volumes[*].configMap".
// It refuses an empty path or field, a path that ends with [*] (clearing it
// would clear elements, not a field) and any other bracket.
func Parse(s string) (Path, error) {
	if s == "" {
		return nil, fmt.Errorf("empty field path")
	}
	parts := strings.Split(s, ".")
	p := make(Path, 0, len(parts))
	for _, part := range parts {
		field, rest, _ := strings.Cut(part, "[")
		seg := Segment{Field: field}
		if rest != "" || strings.HasSuffix(part, "[") {
			rest = "[" + rest
			for rest != "" {
				if !strings.HasPrefix(rest, "[*]") {
					return nil, fmt.Errorf("field path %q: %q: only [*] may follow a field name", s, part)
				}
				seg.Each++
				rest = rest[len("[*]"):]
			}
		}
		if field == "" || strings.ContainsAny(field, "]*") {
			return nil, fmt.Errorf("field path %q: empty or malformed field name in %q", s, part)
		}
		p = append(p, seg)
	}
	if p[len(p)-1].Each > 0 {
		return nil, fmt.Errorf("field path %q ends with [*]: it must name a field", s)
	}
	return p, nil
}

// MustParse is Parse that panics on error, for paths in code.
func MustParse(s string) Path {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the path as Parse reads it.
func (p Path) String() string {
	var b strings.Builder
	for i, seg := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg.Field)
		for range seg.Each {
			b.WriteString("[*]")
		}
	}
	return b.String()
}

// TrimPrefix returns p without prefix and true, or nil and false when p
// does not start with prefix (field by field) or is prefix itself.
func (p Path) TrimPrefix(prefix Path) (Path, bool) {
	if len(p) <= len(prefix) {
		return nil, false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return nil, false
		}
	}
	return p[len(prefix):], true
}

// Join returns p followed by rest.
func (p Path) Join(rest Path) Path {
	out := make(Path, 0, len(p)+len(rest))
	return append(append(out, p...), rest...)
}

// Has reports whether obj sets the field somewhere the path designates (a
// present key whose value is not null).
func (p Path) Has(obj map[string]interface{}) bool {
	return p.HasUnless(obj, nil)
}

// HasUnless reports whether obj sets the field somewhere the path
// designates to a value keep does not accept (a nil keep accepts none):
// a strategy that drops a field only for some of its values leaves the
// others, which are no use of what it guards.
func (p Path) HasUnless(obj map[string]interface{}, keep func(interface{}) bool) bool {
	found := false
	p.visit(obj, func(m map[string]interface{}, field string) bool {
		if v, ok := m[field]; ok && v != nil && (keep == nil || !keep(v)) {
			found = true
			return false
		}
		return true
	})
	return found
}

// Clear removes the field everywhere the path designates and reports
// whether it removed anything.
func (p Path) Clear(obj map[string]interface{}) bool {
	return p.ClearUnless(obj, nil)
}

// ClearUnless removes the field everywhere the path designates but where
// keep accepts its value (a nil keep accepts none), and reports whether it
// removed anything.
func (p Path) ClearUnless(obj map[string]interface{}, keep func(interface{}) bool) bool {
	cleared := false
	p.visit(obj, func(m map[string]interface{}, field string) bool {
		if v, ok := m[field]; ok && (keep == nil || v == nil || !keep(v)) {
			delete(m, field)
			cleared = true
		}
		return true
	})
	return cleared
}

// Values returns the values of the field everywhere obj sets it (not null),
// in the order of the object (map values in no particular order).
func (p Path) Values(obj map[string]interface{}) []interface{} {
	var out []interface{}
	p.visit(obj, func(m map[string]interface{}, field string) bool {
		if v, ok := m[field]; ok && v != nil {
			out = append(out, v)
		}
		return true
	})
	return out
}

// Replace sets the field to v everywhere obj sets it (not null) and returns
// how many it set. It adds the field nowhere.
func (p Path) Replace(obj map[string]interface{}, v interface{}) int {
	n := 0
	p.visit(obj, func(m map[string]interface{}, field string) bool {
		if old, ok := m[field]; ok && old != nil {
			m[field] = v
			n++
		}
		return true
	})
	return n
}

// KeepStrings returns a keep function for HasUnless and ClearUnless that
// accepts exactly the strings values, and the numbers whose decimal form
// is one of them (an int64 or float64, as a JSON number reads: "0" accepts
// 0), or nil (accepting none) when values is empty.
func KeepStrings(values []string) func(interface{}) bool {
	if len(values) == 0 {
		return nil
	}
	set := make(map[string]bool, len(values))
	for _, v := range values {
		set[v] = true
	}
	return func(v interface{}) bool {
		switch n := v.(type) {
		case string:
			return set[n]
		case int64:
			return set[strconv.FormatInt(n, 10)]
		case float64:
			return set[strconv.FormatFloat(n, 'f', -1, 64)]
		}
		return false
	}
}

// visit calls f with every map that holds the path's last field, until f
// returns false.
func (p Path) visit(obj map[string]interface{}, f func(m map[string]interface{}, field string) bool) bool {
	if len(p) == 0 {
		return true
	}
	seg := p[0]
	if len(p) == 1 {
		return f(obj, seg.Field)
	}
	v, ok := obj[seg.Field]
	if !ok {
		return true
	}
	return p[1:].visitValue(v, seg.Each, f)
}

// visitValue descends each more [*] levels into v, then visits the rest of
// the path in the maps it reaches.
func (p Path) visitValue(v interface{}, each int, f func(m map[string]interface{}, field string) bool) bool {
	if each > 0 {
		switch c := v.(type) {
		case []interface{}:
			for _, e := range c {
				if !p.visitValue(e, each-1, f) {
					return false
				}
			}
		case map[string]interface{}:
			for _, e := range c {
				if !p.visitValue(e, each-1, f) {
					return false
				}
			}
		}
		return true
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return true
	}
	return p.visit(m, f)
}
