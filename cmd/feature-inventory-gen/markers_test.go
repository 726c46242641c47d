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
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
)

func TestGroupOf(t *testing.T) {
	for rel, want := range map[string]string{
		"core/v1":                  "core",
		"resource/v1beta2":         "resource",
		"admissionregistration/v1": "admissionregistration",
		"features":                 "features",
	} {
		if got := groupOf(rel); got != want {
			t.Errorf("groupOf(%q) = %q, want %q", rel, got, want)
		}
	}
}

const typesV1 = `package v1

type WidgetSpec struct {
	// Size is gated.
	// +featureGate=WidgetSize
	// +optional
	Size *int32 ` + "`json:\"size,omitempty\"`" + `

	// Mode is gated twice.
	// +featureGate=WidgetMode,WidgetModeExtra
	Mode string ` + "`json:\"mode\"`" + `

	// +k8s:ifDisabled("WidgetColor")=+k8s:forbidden
	// +k8s:ifEnabled("WidgetColor")=+k8s:optional
	Color string ` + "`json:\"color,omitempty\"`" + `

	// Plain is not gated.
	Plain string ` + "`json:\"plain\"`" + `
}
`

const typesV1beta1 = `package v1beta1

type WidgetSpec struct {
	// +k8s:beta(since: "1.37")=+k8s:ifEnabled(WidgetSize)=+k8s:minimum=0
	Size *int32 ` + "`json:\"size,omitempty\"`" + `
}
`

// TestReadMarkers reads the markers of a small API directory: versions of a
// type merge, comma lists and validation tags name gates, and unmarked
// fields and generated files are left out.
func TestReadMarkers(t *testing.T) {
	dir := t.TempDir()
	for path, src := range map[string]string{
		"widgets/v1/types.go":                       typesV1,
		"widgets/v1beta1/types.go":                  typesV1beta1,
		"widgets/v1/zz_generated.deepcopy.go":       "package v1\n\ntype X struct {\n\t// +featureGate=Ignored\n\tY int\n}\n",
		"widgets/v1/types_swagger_doc_generated.go": "package v1\n",
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	markers, fg, tags, err := readMarkers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fg != 2 || tags != 3 {
		t.Errorf("counted %d +featureGate lines and %d tags, want 2 and 3", fg, tags)
	}
	want := map[string][]featuregate.Feature{
		"widgets.WidgetSpec.size":  {"WidgetSize"},
		"widgets.WidgetSpec.mode":  {"WidgetMode", "WidgetModeExtra"},
		"widgets.WidgetSpec.color": {"WidgetColor"},
	}
	if len(markers) != len(want) {
		t.Errorf("got %d marked fields, want %d: %v", len(markers), len(want), slices.Sorted(maps.Keys(markers)))
	}
	for key, gates := range want {
		m := markers[key]
		if m == nil {
			t.Errorf("%s: not read", key)
			continue
		}
		if !slices.Equal(m.gates, gates) {
			t.Errorf("%s: gates %v, want %v", key, m.gates, gates)
		}
	}
}

// TestWalkFields finds a StatefulSet's gated field at its JSON path, under
// the key its marker has.
func TestWalkFields(t *testing.T) {
	paths := map[string][]string{}
	walkFields(reflect.TypeOf(&appsv1.StatefulSet{}), "", map[reflect.Type]int{}, func(key, path string) {
		paths[key] = append(paths[key], path)
	})
	got := paths["apps.RollingUpdateStatefulSetStrategy.maxUnavailable"]
	if !slices.Equal(got, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable"}) {
		t.Errorf("maxUnavailable at %v", got)
	}
	if got := paths["core.Container.image"]; !slices.Contains(got, "spec.template.spec.containers[*].image") {
		t.Errorf("container image at %v", got)
	}
	// ObjectMeta is not of k8s.io/api: walked through, not keyed.
	for key := range paths {
		if key == "meta.ObjectMeta.name" {
			t.Errorf("keyed a field of apimachinery: %s", key)
		}
	}
}

// TestInFootprint matches a marked path against the inventory: the path
// itself, a field below it, a refused value, a resource served only with
// the gate; not a sibling with a common prefix.
func TestInFootprint(t *testing.T) {
	sts := schema.GroupResource{Group: "apps", Resource: "statefulsets"}
	inv := &inventory{
		footprints: map[featuregate.Feature]*footprint{
			"A": {fields: map[schema.GroupResource]map[string]Change{sts: {"spec.foo.bar": Dropped}}},
		},
		refused:        map[featuregate.Feature]map[schema.GroupResource]map[string][]string{"B": {sts: {"spec.mode": {"X"}}}},
		servedOnlyWith: map[featuregate.Feature][]schema.GroupResource{"C": {sts}},
	}
	for _, c := range []struct {
		gate featuregate.Feature
		path string
		want bool
	}{
		{"A", "spec.foo", true},
		{"A", "spec.foo.bar", true},
		{"A", "spec.fo", false},
		{"A", "spec.foo.baz", false},
		{"A", "spec.foo.bar.baz", true},
		{"A", "spec.foo.barn", false},
		{"B", "spec.mode", true},
		{"B", "spec.foo", false},
		{"C", "spec.anything", true},
		{"D", "spec.foo", false},
	} {
		if got := inFootprint(inv, c.gate, sts, c.path); got != c.want {
			t.Errorf("inFootprint(%s, %s) = %v, want %v", c.gate, c.path, got, c.want)
		}
	}
}
