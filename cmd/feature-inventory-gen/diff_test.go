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
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

type testObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              testSpec `json:"spec"`
}

type testSpec struct {
	Strategy   *testStrategy                   `json:"strategy,omitempty"`
	Items      []testItem                      `json:"items,omitempty"`
	Limits     map[string]apiresource.Quantity `json:"limits,omitempty"`
	Replicas   int32                           `json:"replicas"`
	Ignored    string                          `json:"-"`
	Recursive  []testRecursive                 `json:"recursive,omitempty"`
	NoTag      string
	unexported string
}

type testStrategy struct {
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	Partition      *int32              `json:"partition,omitempty"`
}

type testItem struct {
	Name  string `json:"name"`
	Extra *bool  `json:"extra,omitempty"`
}

type testRecursive struct {
	Children []testRecursive `json:"children,omitempty"`
	Leaf     string          `json:"leaf,omitempty"`
}

func full() *testObject {
	five := intstr.FromInt32(5)
	return &testObject{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Generation: 1},
		Spec: testSpec{
			Strategy:   &testStrategy{MaxUnavailable: &five, Partition: ptr.To[int32](2)},
			Items:      []testItem{{Name: "x", Extra: ptr.To(true)}, {Name: "y", Extra: ptr.To(true)}},
			Limits:     map[string]apiresource.Quantity{"cpu": apiresource.MustParse("1")},
			Replicas:   3,
			Ignored:    "ignored",
			Recursive:  []testRecursive{{Children: []testRecursive{{Children: []testRecursive{{Leaf: "deep"}}}}}},
			NoTag:      "no tag",
			unexported: "unexported",
		},
	}
}

func TestDroppedPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(*testObject)
		want   map[string]Change
	}{{
		name:   "identical",
		change: func(*testObject) {},
		want:   map[string]Change{},
	}, {
		name:   "nested pointer field dropped",
		change: func(o *testObject) { o.Spec.Strategy.MaxUnavailable = nil },
		want:   map[string]Change{"spec.strategy.maxUnavailable": Dropped},
	}, {
		name:   "a whole struct dropped is reported where it starts",
		change: func(o *testObject) { o.Spec.Strategy = nil },
		want:   map[string]Change{"spec.strategy": Dropped},
	}, {
		name: "list indices are collapsed",
		change: func(o *testObject) {
			o.Spec.Items[0].Extra = nil
			o.Spec.Items[1].Extra = ptr.To(false)
		},
		want: map[string]Change{"spec.items[*].extra": Dropped},
	}, {
		name:   "list elements dropped",
		change: func(o *testObject) { o.Spec.Items = o.Spec.Items[:1] },
		want:   map[string]Change{"spec.items[*]": Dropped},
	}, {
		name:   "scalar changed",
		change: func(o *testObject) { o.Spec.Replicas = 4; o.Generation = 2 },
		want:   map[string]Change{"spec.replicas": Changed, "metadata.generation": Changed},
	}, {
		name:   "scalar zeroed",
		change: func(o *testObject) { o.Spec.Replicas = 0 },
		want:   map[string]Change{"spec.replicas": Dropped},
	}, {
		name: "quantities compare semantically, map keys collapse",
		change: func(o *testObject) {
			o.Spec.Limits = map[string]apiresource.Quantity{"cpu": apiresource.MustParse("1000m")}
		},
		want: map[string]Change{},
	}, {
		name:   "map value changed",
		change: func(o *testObject) { o.Spec.Limits["cpu"] = apiresource.MustParse("2") },
		want:   map[string]Change{"spec.limits[*]": Changed},
	}, {
		name: "map key dropped",
		change: func(o *testObject) {
			delete(o.Spec.Limits, "cpu")
			o.Spec.Limits["memory"] = apiresource.MustParse("1")
		},
		want: map[string]Change{"spec.limits[*]": Dropped},
	}, {
		name: "json:\"-\" and unexported fields are ignored, untagged ones keep their Go name",
		change: func(o *testObject) {
			o.Spec.Ignored = ""
			o.Spec.unexported = ""
			o.Spec.NoTag = ""
		},
		want: map[string]Change{"spec.NoTag": Dropped},
	}, {
		name:   "recursive list segments are listed once",
		change: func(o *testObject) { o.Spec.Recursive[0].Children[0].Children[0].Leaf = "" },
		want:   map[string]Change{"spec.recursive[*].children[*].leaf": Dropped},
	}, {
		name: "fields set only in the second object are not reported",
		change: func(o *testObject) {
			o.Spec.Items = append(o.Spec.Items, testItem{Name: "z"})
			o.Labels = map[string]string{"new": "label"}
		},
		want: map[string]Change{},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			off := full()
			tc.change(off)
			got := DroppedPaths(full(), off)
			if !maps.Equal(got, tc.want) {
				t.Errorf("DroppedPaths() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCollapseRepeats(t *testing.T) {
	for in, want := range map[string]string{
		"spec.a[*].a[*].a[*].b[*].c": "spec.a[*].b[*].c",
		"spec.spec.devices":          "spec.spec.devices",
		"spec.a[*].b[*].a[*]":        "spec.a[*].b[*].a[*]",
	} {
		if got := collapseRepeats(in); got != want {
			t.Errorf("collapseRepeats(%q) = %q, want %q", in, got, want)
		}
	}
}
