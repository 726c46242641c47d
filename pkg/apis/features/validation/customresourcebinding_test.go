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

package validation

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/apis/features"
)

func validBinding() *features.CustomResourceFeatureBinding {
	feature := features.FeatureReference{Namespace: "widgets-system", Name: "widget-colors"}
	return &features.CustomResourceFeatureBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: features.CustomResourceFeatureBindingSpec{Bindings: []features.CustomResourceFieldBinding{
			{Name: "color", Path: "spec.color", Feature: feature, WhenOff: features.CustomResourceWhenOffDrop, WhenStored: features.CustomResourceWhenStoredClear},
			{Name: "huge", Path: "spec.size", Value: ptr.To("Huge"), Feature: feature, WhenOff: features.CustomResourceWhenOffRefuse, WhenStored: features.CustomResourceWhenStoredHold},
			{Name: "phase", Path: "status.phase", Feature: feature},
			{Name: "kind", Feature: features.FeatureReference{Namespace: "widgets-system", Name: "widgets"}},
		}},
	}
}

func TestValidateCustomResourceFeatureBinding(t *testing.T) {
	if errs := ValidateCustomResourceFeatureBinding(validBinding()); len(errs) != 0 {
		t.Fatalf("valid binding: %v", errs)
	}
	many := make([]features.CustomResourceFieldBinding, MaxCustomResourceFieldBindings+1)
	for i := range many {
		many[i] = features.CustomResourceFieldBinding{Name: fmt.Sprintf("b%d", i), Path: fmt.Sprintf("spec.f%d", i),
			Feature: features.FeatureReference{Namespace: "ns", Name: "f"}}
	}
	for _, tc := range []struct {
		name   string
		mutate func(b *features.CustomResourceFeatureBinding)
		want   string // field path and message part; "" for valid
	}{
		{"a value of a status field", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[2].Value = ptr.To("Failed") }, ""},
		{"a field and one of its values", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[1].Path = "spec.color" }, ""},
		{"a Drop value held", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[0].WhenStored = features.CustomResourceWhenStoredHold
		}, ""},
		{"name is no CRD's", func(b *features.CustomResourceFeatureBinding) { b.Name = "widgets" },
			`metadata.name: Invalid value: "widgets": must be the name of the CustomResourceDefinition whose custom resources it binds, <plural>.<group>`},
		{"group without a dot", func(b *features.CustomResourceFeatureBinding) { b.Name = "widgets.example" }, `metadata.name: Invalid value: "widgets.example"`},
		{"plural not a label", func(b *features.CustomResourceFeatureBinding) { b.Name = "1widgets.example.com" }, `metadata.name: Invalid value: "1widgets.example.com"`},
		{"namespaced", func(b *features.CustomResourceFeatureBinding) { b.Namespace = "widgets-system" }, "metadata.namespace: Forbidden: not allowed on this type"},
		{"no bindings", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings = nil }, "spec.bindings: Required value: at least one binding"},
		{"too many bindings", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings = many }, "spec.bindings: Too many: 65: must have at most 64 items"},
		{"no name", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Name = "" }, "spec.bindings[0].name: Required value"},
		{"bad name", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Name = "Color" }, `spec.bindings[0].name: Invalid value: "Color"`},
		{"duplicate name", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[1].Name = "color" }, `spec.bindings[1].name: Duplicate value: "color"`},
		{"a field bound twice", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[2].Path = "spec.color"
		}, `spec.bindings[2]: Invalid value: "phase": binds the field spec.color, which bindings[0] (color) binds already`},
		{"a value bound twice", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[2].Path, b.Spec.Bindings[2].Value = "spec.size", ptr.To("Huge")
		}, `spec.bindings[2]: Invalid value: "phase": binds the value "Huge" of spec.size, which bindings[1] (huge) binds already`},
		{"the kind bound twice", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[2].Path = "" },
			`spec.bindings[3]: Invalid value: "kind": binds the kind, which bindings[2] (phase) binds already`},
		{"path not under spec or status", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Path = "metadata.labels" },
			`spec.bindings[0].path: Invalid value: "metadata.labels": must be a field under spec or status, its names joined by dots`},
		{"path is spec", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Path = "spec" }, `spec.bindings[0].path: Invalid value: "spec": must be a field under spec or status`},
		{"path with an empty name", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Path = "spec..color" },
			`spec.bindings[0].path: Invalid value: "spec..color": must not have an empty field name`},
		{"path too long", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[0].Path = "spec." + strings.Repeat("a", 252)
		},
			"spec.bindings[0].path: Too long: may not be more than 256 bytes"},
		{"value too long", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[1].Value = ptr.To(strings.Repeat("a", 257))
		},
			"spec.bindings[1].value: Too long: may not be more than 256 bytes"},
		{"a value without a path", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[3].Value = ptr.To("x") },
			"spec.bindings[3].path: Required value: a value is bound with the field that holds it"},
		{"no feature namespace", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Feature.Namespace = "" },
			"spec.bindings[0].feature.namespace: Required value"},
		{"bad feature namespace", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[0].Feature.Namespace = "widgets/system"
		},
			`spec.bindings[0].feature.namespace: Invalid value: "widgets/system"`},
		{"no feature name", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Feature.Name = "" },
			"spec.bindings[0].feature.name: Required value"},
		{"bad feature name", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Feature.Name = "WidgetColors" },
			`spec.bindings[0].feature.name: Invalid value: "WidgetColors"`},
		{"unknown whenOff", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].WhenOff = "Warn" },
			`spec.bindings[0].whenOff: Unsupported value: "Warn": supported values: "Drop", "Refuse"`},
		{"unknown whenStored", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].WhenStored = "Delete" },
			`spec.bindings[0].whenStored: Unsupported value: "Delete": supported values: "Clear", "Hold"`},
		{"a kind dropped", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[3].WhenOff = features.CustomResourceWhenOffDrop
		},
			"spec.bindings[3].whenOff: Forbidden: a kind is refused while its Feature is off: Refuse"},
		{"a kind cleared", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings[3].WhenStored = features.CustomResourceWhenStoredClear
		}, "spec.bindings[3].whenStored: Forbidden: objects of a kind are never deleted: Hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := validBinding()
			tc.mutate(b)
			errs := ValidateCustomResourceFeatureBinding(b)
			if tc.want == "" {
				if len(errs) != 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Errorf("want %q, got %v", tc.want, errs)
			}
		})
	}
}

func TestValidateCustomResourceFeatureBindingUpdate(t *testing.T) {
	old := validBinding()
	old.ResourceVersion = "1"
	for _, tc := range []struct {
		name   string
		mutate func(b *features.CustomResourceFeatureBinding)
		want   string
	}{
		{"a binding changes its Feature", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].Feature.Name = "colors" }, ""},
		{"a binding goes", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings = b.Spec.Bindings[1:] }, ""},
		{"a binding is added", func(b *features.CustomResourceFeatureBinding) {
			b.Spec.Bindings = append(b.Spec.Bindings, features.CustomResourceFieldBinding{Name: "size", Path: "spec.size", Feature: b.Spec.Bindings[0].Feature})
		}, ""},
		{"the last binding goes", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings = nil }, "spec.bindings: Required value"},
		{"an update brings a bad binding", func(b *features.CustomResourceFeatureBinding) { b.Spec.Bindings[0].WhenOff = "Warn" },
			`spec.bindings[0].whenOff: Unsupported value: "Warn"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := validBinding()
			b.ResourceVersion = "1"
			tc.mutate(b)
			errs := ValidateCustomResourceFeatureBindingUpdate(b, old)
			if tc.want == "" {
				if len(errs) != 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Errorf("want %q, got %v", tc.want, errs)
			}
		})
	}
}
