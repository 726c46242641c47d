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

package feature

import (
	"context"
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"k8s.io/kubernetes/pkg/apis/features"
)

const (
	testNamespace = "kube-system"
	testGate      = "MaxUnavailableStatefulSet"
	testName      = "max-unavailable-stateful-set"
	apiVersion    = fieldpath.APIVersion("features.k8s.io/v1alpha1")
)

func testContext() context.Context {
	return genericapirequest.WithNamespace(context.Background(), testNamespace)
}

// newFeature returns a valid internal Feature for gate, named after the
// kebab form of the gate, with a populated status.
func newFeature(gate, name string) *features.Feature {
	return &features.Feature{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       testNamespace,
			ResourceVersion: "1",
			Generation:      3,
			Labels:          map[string]string{"app": "features"},
			Annotations:     map[string]string{"note": "kept"},
		},
		Spec: features.FeatureSpec{
			Gate:         gate,
			DesiredState: features.FeatureDesiredStateEnabled,
			Management:   features.FeatureManagementCommandLine,
		},
		Status: features.FeatureStatus{
			State:              features.FeatureStateEnabled,
			Default:            boolPtr(false),
			PreRelease:         features.FeaturePreReleaseBeta,
			Version:            "1.36",
			ObservedGeneration: 3,
		},
	}
}

func validFeature() *features.Feature {
	return newFeature(testGate, testName)
}

func boolPtr(b bool) *bool { return &b }

func hasErrorAt(errs field.ErrorList, path string) bool {
	for _, e := range errs {
		if e.Field == path {
			return true
		}
	}
	return false
}

func TestValidFeatureHelperIsValid(t *testing.T) {
	f := validFeature()
	if errs := Strategy.Validate(testContext(), f); len(errs) != 0 {
		t.Fatalf("the test helper must build a valid Feature, got errors: %v", errs)
	}
	old := validFeature()
	if errs := Strategy.ValidateUpdate(testContext(), validFeature(), old); len(errs) != 0 {
		t.Fatalf("an unchanged update must be valid, got errors: %v", errs)
	}
	if errs := StatusStrategy.ValidateUpdate(testContext(), validFeature(), old); len(errs) != 0 {
		t.Fatalf("an unchanged status update must be valid, got errors: %v", errs)
	}
}

func TestScope(t *testing.T) {
	if !Strategy.NamespaceScoped() {
		t.Error("Feature must be namespace scoped")
	}
	if !StatusStrategy.NamespaceScoped() {
		t.Error("Feature status must be namespace scoped")
	}
	if Strategy.AllowCreateOnUpdate(context.Background()) {
		t.Error("Feature must not allow create on update")
	}
	if StatusStrategy.AllowCreateOnUpdate(context.Background()) {
		t.Error("Feature status must not allow create on update")
	}
}

func TestPrepareForCreate(t *testing.T) {
	f := validFeature()
	f.Generation = 7
	f.Status.Tasks = []features.FeatureTask{{Name: "wait-for-uses"}}
	Strategy.PrepareForCreate(testContext(), f)

	if !apiequality.Semantic.DeepEqual(f.Status, features.FeatureStatus{}) {
		t.Errorf("PrepareForCreate must clear status, got %+v", f.Status)
	}
	if f.Generation != 1 {
		t.Errorf("PrepareForCreate must set generation 1, got %d", f.Generation)
	}
	want := validFeature().Spec
	if f.Spec != want {
		t.Errorf("PrepareForCreate must keep spec: got %+v, want %+v", f.Spec, want)
	}
	if f.Labels["app"] != "features" || f.Annotations["note"] != "kept" {
		t.Errorf("PrepareForCreate must keep labels and annotations, got %v %v", f.Labels, f.Annotations)
	}
}

func TestPrepareForUpdate(t *testing.T) {
	t.Run("status change through the main resource is dropped", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Status.State = features.FeatureStateDisabling
		f.Status.Tasks = []features.FeatureTask{{Name: "clear-fields"}}
		f.Status.ObservedGeneration = 9
		Strategy.PrepareForUpdate(testContext(), f, old)
		if !apiequality.Semantic.DeepEqual(f.Status, old.Status) {
			t.Errorf("status must be kept: got %+v, want %+v", f.Status, old.Status)
		}
		if f.Generation != old.Generation {
			t.Errorf("generation must not change when the spec does not: got %d, want %d", f.Generation, old.Generation)
		}
	})

	t.Run("desiredState change bumps generation", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Spec.DesiredState = features.FeatureDesiredStateDisabled
		Strategy.PrepareForUpdate(testContext(), f, old)
		if f.Generation != old.Generation+1 {
			t.Errorf("generation: got %d, want %d", f.Generation, old.Generation+1)
		}
		if f.Spec.DesiredState != features.FeatureDesiredStateDisabled {
			t.Errorf("spec change must be kept, got desiredState %q", f.Spec.DesiredState)
		}
	})

	t.Run("management change bumps generation", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Spec.Management = features.FeatureManagementDynamic
		Strategy.PrepareForUpdate(testContext(), f, old)
		if f.Generation != old.Generation+1 {
			t.Errorf("generation: got %d, want %d", f.Generation, old.Generation+1)
		}
	})

	t.Run("label-only change keeps generation", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Labels = map[string]string{"app": "features", "extra": "label"}
		f.Annotations = map[string]string{"note": "changed"}
		Strategy.PrepareForUpdate(testContext(), f, old)
		if f.Generation != old.Generation {
			t.Errorf("generation: got %d, want %d", f.Generation, old.Generation)
		}
		if f.Labels["extra"] != "label" {
			t.Errorf("label change through the main resource must be kept, got %v", f.Labels)
		}
		if f.Annotations["note"] != "changed" {
			t.Errorf("annotation change through the main resource must be kept, got %v", f.Annotations)
		}
	})
}

func TestStatusPrepareForUpdate(t *testing.T) {
	old := validFeature()
	f := validFeature()
	// Attempts to change spec and metadata through the status subresource.
	f.Spec.DesiredState = features.FeatureDesiredStateDisabled
	f.Spec.Management = features.FeatureManagementDynamic
	f.Labels = map[string]string{"sneaky": "label"}
	f.Annotations = map[string]string{"sneaky": "annotation"}
	// A legitimate status change.
	f.Status.State = features.FeatureStateDisabling
	f.Status.Tasks = []features.FeatureTask{{Name: "wait-for-uses"}, {Name: "clear-fields"}}
	f.Status.ObservedGeneration = 4
	wantStatus := *f.Status.DeepCopy()

	StatusStrategy.PrepareForUpdate(testContext(), f, old)

	if f.Spec != old.Spec {
		t.Errorf("status update must keep the old spec: got %+v, want %+v", f.Spec, old.Spec)
	}
	if !reflect.DeepEqual(f.Labels, old.Labels) {
		t.Errorf("status update must keep the old labels: got %v, want %v", f.Labels, old.Labels)
	}
	if !reflect.DeepEqual(f.Annotations, old.Annotations) {
		t.Errorf("status update must keep the old annotations: got %v, want %v", f.Annotations, old.Annotations)
	}
	if !apiequality.Semantic.DeepEqual(f.Status, wantStatus) {
		t.Errorf("status update must apply the new status: got %+v, want %+v", f.Status, wantStatus)
	}
	if f.Generation != old.Generation {
		t.Errorf("status update must not bump generation: got %d, want %d", f.Generation, old.Generation)
	}
}

func TestValidate(t *testing.T) {
	t.Run("name must be the kebab form of the gate", func(t *testing.T) {
		f := newFeature(testGate, "maxunavailablestatefulset")
		if errs := Strategy.Validate(testContext(), f); !hasErrorAt(errs, "metadata.name") {
			t.Errorf("expected an error at metadata.name, got %v", errs)
		}
	})
	t.Run("invalid gate", func(t *testing.T) {
		f := newFeature("Max-Unavailable", "max-unavailable")
		if errs := Strategy.Validate(testContext(), f); !hasErrorAt(errs, "spec.gate") {
			t.Errorf("expected an error at spec.gate, got %v", errs)
		}
	})
}

func TestValidateUpdate(t *testing.T) {
	t.Run("spec.gate is immutable", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Spec.Gate = "MaxUnavailableStatefulSetV2"
		Strategy.PrepareForUpdate(testContext(), f, old)
		errs := Strategy.ValidateUpdate(testContext(), f, old)
		if !hasErrorAt(errs, "spec.gate") {
			t.Errorf("expected an error at spec.gate, got %v", errs)
		}
	})
	t.Run("desiredState may change", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Spec.DesiredState = features.FeatureDesiredStateDisabled
		Strategy.PrepareForUpdate(testContext(), f, old)
		if errs := Strategy.ValidateUpdate(testContext(), f, old); len(errs) != 0 {
			t.Errorf("expected no errors, got %v", errs)
		}
	})
	t.Run("status strategy rejects an invalid state", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Status.State = "Sideways"
		StatusStrategy.PrepareForUpdate(testContext(), f, old)
		errs := StatusStrategy.ValidateUpdate(testContext(), f, old)
		if !hasErrorAt(errs, "status.state") {
			t.Errorf("expected an error at status.state, got %v", errs)
		}
	})
	t.Run("status strategy accepts a valid state", func(t *testing.T) {
		old := validFeature()
		f := validFeature()
		f.Status.State = features.FeatureStateDisabling
		StatusStrategy.PrepareForUpdate(testContext(), f, old)
		if errs := StatusStrategy.ValidateUpdate(testContext(), f, old); len(errs) != 0 {
			t.Errorf("expected no errors, got %v", errs)
		}
	})
}

func TestGetResetFields(t *testing.T) {
	tests := []struct {
		name    string
		fields  map[fieldpath.APIVersion]*fieldpath.Set
		want    []fieldpath.Path
		notWant []fieldpath.Path
	}{
		{
			name:    "main strategy",
			fields:  Strategy.GetResetFields(),
			want:    []fieldpath.Path{fieldpath.MakePathOrDie("status")},
			notWant: []fieldpath.Path{fieldpath.MakePathOrDie("spec")},
		},
		{
			name:   "status strategy",
			fields: StatusStrategy.GetResetFields(),
			want: []fieldpath.Path{
				fieldpath.MakePathOrDie("spec"),
				fieldpath.MakePathOrDie("metadata", "labels"),
				fieldpath.MakePathOrDie("metadata", "annotations"),
			},
			notWant: []fieldpath.Path{fieldpath.MakePathOrDie("status")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.fields) != 1 {
				t.Errorf("expected reset fields for exactly one API version, got %d", len(tc.fields))
			}
			set, ok := tc.fields[apiVersion]
			if !ok || set == nil {
				t.Fatalf("no reset fields for %q", apiVersion)
			}
			for _, p := range tc.want {
				if !set.Has(p) {
					t.Errorf("reset fields must contain %v, got %v", p, set)
				}
			}
			for _, p := range tc.notWant {
				if set.Has(p) {
					t.Errorf("reset fields must not contain %v, got %v", p, set)
				}
			}
		})
	}
}

func TestSelectableFields(t *testing.T) {
	f := validFeature()
	f.Status.State = features.FeatureStateDisabling
	want := fields.Set{
		"metadata.name":      testName,
		"metadata.namespace": testNamespace,
		"spec.gate":          testGate,
		"spec.management":    "CommandLine",
		"status.state":       "Disabling",
	}
	if got := SelectableFields(f); !reflect.DeepEqual(got, want) {
		t.Errorf("SelectableFields: got %v, want %v", got, want)
	}

	ls, fs, err := GetAttrs(f)
	if err != nil {
		t.Fatalf("GetAttrs: %v", err)
	}
	if !reflect.DeepEqual(fs, want) {
		t.Errorf("GetAttrs fields: got %v, want %v", fs, want)
	}
	if !reflect.DeepEqual(ls, labels.Set(f.Labels)) {
		t.Errorf("GetAttrs labels: got %v, want %v", ls, f.Labels)
	}
}

func TestMatcher(t *testing.T) {
	a := newFeature(testGate, testName)
	b := newFeature("HPAScaleToZero", "hpa-scale-to-zero")
	b.Status.State = features.FeatureStateEnabling
	b.Labels = map[string]string{"app": "other"}

	tests := []struct {
		name  string
		label labels.Selector
		field string
		wantA bool
		wantB bool
	}{
		{name: "by gate A", label: labels.Everything(), field: "spec.gate=" + testGate, wantA: true},
		{name: "by gate B", label: labels.Everything(), field: "spec.gate=HPAScaleToZero", wantB: true},
		{name: "by unknown gate", label: labels.Everything(), field: "spec.gate=NoSuchGate"},
		{name: "by state", label: labels.Everything(), field: "status.state=Enabling", wantB: true},
		{name: "by name", label: labels.Everything(), field: "metadata.name=" + testName, wantA: true},
		{name: "by namespace", label: labels.Everything(), field: "metadata.namespace=" + testNamespace, wantA: true, wantB: true},
		{name: "by other namespace", label: labels.Everything(), field: "metadata.namespace=default"},
		{name: "by label", label: labels.SelectorFromSet(labels.Set{"app": "other"}), field: "", wantB: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := fields.ParseSelector(tc.field)
			if err != nil {
				t.Fatal(err)
			}
			m := Matcher(tc.label, fs)
			gotA, err := m.Matches(a)
			if err != nil {
				t.Fatal(err)
			}
			gotB, err := m.Matches(b)
			if err != nil {
				t.Fatal(err)
			}
			if gotA != tc.wantA {
				t.Errorf("%s matches %s: got %v, want %v", tc.field, a.Name, gotA, tc.wantA)
			}
			if gotB != tc.wantB {
				t.Errorf("%s matches %s: got %v, want %v", tc.field, b.Name, gotB, tc.wantB)
			}
		})
	}
}
