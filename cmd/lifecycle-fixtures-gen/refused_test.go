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
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestCauses: what a refused rewrite records names the fields and says
// why, without the values (a whole pod template) or the object's name,
// in a stable order, bounded.
func TestCauses(t *testing.T) {
	big := strings.Repeat("x", 5000)
	err := apierrors.NewInvalid(schema.GroupKind{Group: "batch", Kind: "Job"}, "some-name", field.ErrorList{
		field.Invalid(field.NewPath("spec", "template"), map[string]string{"a": big}, "field is immutable"),
		field.Forbidden(field.NewPath("spec"), "pod updates may not change fields\n@@ a diff"),
		field.Required(field.NewPath("spec", "b"), "must be set"),
		field.Required(field.NewPath("spec", "a"), "must be set"),
	})
	got := causes(err)
	want := "spec.a: Required value: must be set; spec.b: Required value: must be set; spec.template: Invalid value: field is immutable; 1 more"
	if got != want {
		t.Errorf("causes = %q, want %q", got, want)
	}
	if strings.Contains(got, "some-name") || strings.Contains(got, big[:100]) {
		t.Errorf("causes quotes the name or the value: %q", got)
	}
	if got := causes(errors.New("plain")); got != "plain" {
		t.Errorf("causes of a plain error = %q", got)
	}
}
