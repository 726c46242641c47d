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
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"
)

// The cross-check of the inventory against the gate markers upstream writes
// on the fields of its API types: a field marked with a changeable gate, in
// a type stored by a resource the generator examined, must be in the
// gate's footprint (found without reading the markers) or listed, with a
// reason, in the marker exceptions file.

// apiPackage is the import path prefix of upstream's API types.
const apiPackage = "k8s.io/api/"

// marker is one field of k8s.io/api that names gates in its comments, with
// the versions of its group merged: the same type and field in v1beta1 and
// v1 is one marker.
type marker struct {
	// field is "<group>.<Type>.<json name>", e.g. core.PodSpec.hostnameOverride.
	field string
	// gates are the gates its markers name, sorted.
	gates []featuregate.Feature
	// at is where it was first seen (file:line under the API directory).
	at string
}

// markerExceptions is the hand-kept file of marked fields the generator
// does not find, with why.
type markerException struct {
	// Gate is one of the gates the marker names.
	Gate string `json:"gate"`
	// Field is "<group>.<Type>.<json name>".
	Field string `json:"field"`
	// Reason says why the generator does not find it.
	Reason string `json:"reason"`
}

// markerCheck is the result of the cross-check, rendered into the inventory.
type markerCheck struct {
	// lines counts the marker lines read: +featureGate= markers and
	// +k8s: tags with ifEnabled or ifDisabled.
	featureGateLines, validationTagLines int
	// fields counts the marked fields (versions merged).
	fields int
	// ofChangeable are the marked fields naming at least one changeable gate.
	ofChangeable int
	// notStored are those whose type no examined resource stores.
	notStored []string
	// found are those in a footprint of one of their gates.
	found []string
	// listed are those only the cross-check found, listed in the exceptions
	// file: "<gate> <field>: <reason>".
	listed []string
	// unlisted are those neither found nor listed: the check fails.
	unlisted []string
	// stale are exceptions that name no unfound marker: the check fails.
	stale []string
}

// failed reports whether the cross-check fails.
func (c *markerCheck) failed() bool { return len(c.unlisted) > 0 || len(c.stale) > 0 }

var (
	featureGateMarker = regexp.MustCompile(`^\+featureGate=(.+)$`)
	ifGateTag         = regexp.MustCompile(`ifEnabled\("?([A-Za-z0-9]+)"?\)|ifDisabled\("?([A-Za-z0-9]+)"?\)`)
	apiVersion        = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)
)

// groupOf returns the group directory of an API package path relative to
// the API directory ("core/v1" -> "core", "resource/v1beta2" -> "resource").
func groupOf(rel string) string {
	rel = filepath.ToSlash(rel)
	if i := strings.LastIndex(rel, "/"); i >= 0 && apiVersion.MatchString(rel[i+1:]) {
		return rel[:i]
	}
	return rel
}

// readMarkers parses the Go files of the API directory and returns its
// marked fields by field, and the marker lines counted.
func readMarkers(dir string) (map[string]*marker, int, int, error) {
	markers := map[string]*marker{}
	fgLines, tagLines := 0, 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, "zz_generated") || strings.HasSuffix(name, ".pb.go") || strings.Contains(name, "generated") {
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		group := groupOf(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fld := range st.Fields.List {
				if fld.Doc == nil || len(fld.Names) != 1 {
					continue
				}
				gates := map[featuregate.Feature]bool{}
				for _, c := range fld.Doc.List {
					line := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
					if m := featureGateMarker.FindStringSubmatch(line); m != nil {
						fgLines++
						for _, g := range strings.Split(m[1], ",") {
							gates[featuregate.Feature(strings.TrimSpace(g))] = true
						}
						continue
					}
					if strings.HasPrefix(line, "+k8s:") {
						ms := ifGateTag.FindAllStringSubmatch(line, -1)
						if len(ms) > 0 {
							tagLines++
						}
						for _, m := range ms {
							gates[featuregate.Feature(m[1]+m[2])] = true
						}
					}
				}
				if len(gates) == 0 {
					continue
				}
				key := group + "." + ts.Name.Name + "." + astJSONName(fld)
				mk := markers[key]
				if mk == nil {
					pos := fset.Position(fld.Pos())
					relFile, _ := filepath.Rel(dir, pos.Filename)
					mk = &marker{field: key, at: fmt.Sprintf("%s:%d", filepath.ToSlash(relFile), pos.Line)}
					markers[key] = mk
				}
				for g := range gates {
					if !slices.Contains(mk.gates, g) {
						mk.gates = append(mk.gates, g)
					}
				}
				slices.Sort(mk.gates)
			}
			return false
		})
		return nil
	})
	return markers, fgLines, tagLines, err
}

// astJSONName returns the name of a field in JSON: its json tag's name, or its
// Go name.
func astJSONName(f *ast.Field) string {
	if f.Tag != nil {
		tag := reflect.StructTag(strings.Trim(f.Tag.Value, "`")).Get("json")
		if name, _, _ := strings.Cut(tag, ","); name != "" {
			return name
		}
	}
	return f.Names[0].Name
}

// storedFieldPaths returns, for every field of a k8s.io/api struct type
// reachable from an examined resource's object in the version the
// inventory is written in, keyed as markers are, the resources and JSON
// paths it is found at.
func storedFieldPaths(inv *inventory) (map[string]map[schema.GroupResource][]string, error) {
	out := map[string]map[schema.GroupResource][]string{}
	for i := range inv.resources {
		r := &inv.resources[i]
		obj, err := external(r, r.Store.NewFunc())
		if err != nil {
			return nil, fmt.Errorf("%s: converting to %s: %w", r.GroupResource, r.Version, err)
		}
		walkFields(reflect.TypeOf(obj), "", map[reflect.Type]int{}, func(key, path string) {
			if out[key] == nil {
				out[key] = map[schema.GroupResource][]string{}
			}
			path = collapseRepeats(path)
			if !slices.Contains(out[key][r.GroupResource], path) {
				out[key][r.GroupResource] = append(out[key][r.GroupResource], path)
			}
		})
	}
	return out, nil
}

// walkFields calls visit with the marker key and JSON path of every field of
// a k8s.io/api struct type below t (paths as DroppedPaths writes them); a
// type recurs at most maxRecursion times in a path.
func walkFields(t reflect.Type, path string, depth map[reflect.Type]int, visit func(key, path string)) {
	t = derefType(t)
	if isLeaf(t) {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		walkFields(t.Elem(), path+"[*]", depth, visit)
		return
	case reflect.Struct:
	default:
		return
	}
	if depth[t] >= maxRecursion {
		return
	}
	depth[t]++
	defer func() { depth[t]-- }()
	group := ""
	if pkg := t.PkgPath(); strings.HasPrefix(pkg, apiPackage) {
		group = groupOf(strings.TrimPrefix(pkg, apiPackage))
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, inline := jsonName(f)
		switch {
		case name == "-":
			continue
		case inline:
			walkFields(f.Type, path, depth, visit)
			continue
		}
		p := join(path, name)
		if group != "" {
			visit(group+"."+t.Name()+"."+name, p)
		}
		walkFields(f.Type, p, depth, visit)
	}
}

// inFootprint reports whether the inventory lists path of gr, a field below
// it, or a field it is part of (dropped whole), for gate g: a dropped or
// changed field, a refused value, or a resource served only with g.
func inFootprint(inv *inventory, g featuregate.Feature, gr schema.GroupResource, path string) bool {
	if slices.Contains(inv.servedOnlyWith[g], gr) {
		return true
	}
	below := func(q string) bool {
		return q == path || strings.HasPrefix(q, path+".") || strings.HasPrefix(q, path+"[") ||
			strings.HasPrefix(path, q+".") || strings.HasPrefix(path, q+"[")
	}
	if fp := inv.footprints[g]; fp != nil {
		for q := range fp.fields[gr] {
			if below(q) {
				return true
			}
		}
	}
	for q := range inv.refused[g][gr] {
		if below(q) {
			return true
		}
	}
	return false
}

// crossCheckMarkers checks every marked field of a changeable gate on a
// stored type against the inventory and the exceptions file.
func crossCheckMarkers(inv *inventory, apiDir, exceptionsFile string) (*markerCheck, error) {
	markers, fgLines, tagLines, err := readMarkers(apiDir)
	if err != nil {
		return nil, fmt.Errorf("reading the markers of %s: %w", apiDir, err)
	}
	var exceptions []markerException
	data, err := os.ReadFile(exceptionsFile)
	if err != nil {
		return nil, err
	}
	if err := yaml.UnmarshalStrict(data, &exceptions); err != nil {
		return nil, fmt.Errorf("%s: %w", exceptionsFile, err)
	}
	excepted := map[string]markerException{}
	for i, e := range exceptions {
		if e.Gate == "" || e.Field == "" || strings.TrimSpace(e.Reason) == "" {
			return nil, fmt.Errorf("%s: entry %d: gate, field and reason are required", exceptionsFile, i)
		}
		k := e.Gate + " " + e.Field
		if _, dup := excepted[k]; dup {
			return nil, fmt.Errorf("%s: entry %d: %s is listed twice", exceptionsFile, i, k)
		}
		excepted[k] = e
	}
	stored, err := storedFieldPaths(inv)
	if err != nil {
		return nil, err
	}
	changeable := map[featuregate.Feature]bool{}
	for _, g := range inv.gates {
		changeable[g] = true
	}

	c := &markerCheck{featureGateLines: fgLines, validationTagLines: tagLines, fields: len(markers)}
	used := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(markers)) {
		mk := markers[key]
		var gates []featuregate.Feature
		for _, g := range mk.gates {
			if changeable[g] {
				gates = append(gates, g)
			}
		}
		if len(gates) == 0 {
			continue
		}
		c.ofChangeable++
		label := joinGates(gates) + " " + key
		where := stored[key]
		if len(where) == 0 {
			c.notStored = append(c.notStored, label)
			continue
		}
		found := false
		for _, g := range gates {
			for gr, paths := range where {
				for _, p := range paths {
					if inFootprint(inv, g, gr, p) {
						found = true
					}
				}
			}
		}
		if found {
			c.found = append(c.found, label)
			continue
		}
		listed := false
		for _, g := range gates {
			if e, ok := excepted[string(g)+" "+key]; ok {
				used[string(g)+" "+key] = true
				c.listed = append(c.listed, fmt.Sprintf("%s %s: %s", g, key, strings.TrimSpace(e.Reason)))
				listed = true
				break
			}
		}
		if !listed {
			var at []string
			for _, gr := range sortedGRs(where) {
				at = append(at, gr.String()+" "+where[gr][0])
			}
			c.unlisted = append(c.unlisted, fmt.Sprintf("%s (%s; e.g. %s)", label, mk.at, strings.Join(at, ", ")))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(excepted)) {
		if !used[k] {
			c.stale = append(c.stale, k)
		}
	}
	return c, nil
}
