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

package featurecustomfields

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/features"
)

// internal converts a binding to the internal version admission sees.
func internal(t *testing.T, b *featuresv1alpha1.CustomResourceFeatureBinding) *features.CustomResourceFeatureBinding {
	t.Helper()
	out := &features.CustomResourceFeatureBinding{}
	if err := legacyscheme.Scheme.Convert(b, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// bindingOf returns a binding of widgets.example.com with bindings.
func bindingOf(bindings ...featuresv1alpha1.CustomResourceFieldBinding) *featuresv1alpha1.CustomResourceFeatureBinding {
	return &featuresv1alpha1.CustomResourceFeatureBinding{ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: featuresv1alpha1.CustomResourceFeatureBindingSpec{Bindings: bindings}}
}

func fieldBinding(name, path string, value *string, feature string) featuresv1alpha1.CustomResourceFieldBinding {
	return featuresv1alpha1.CustomResourceFieldBinding{Name: name, Path: path, Value: value, Feature: ref(feature),
		WhenOff: featuresv1alpha1.CustomResourceWhenOffRefuse, WhenStored: featuresv1alpha1.CustomResourceWhenStoredHold}
}

// TestValidateBindingWrites: every bad input that needs the cluster gets a
// field error; what was bound before is not checked again.
func TestValidateBindingWrites(t *testing.T) {
	p := newPlugin(t, feature("widget-colors", featuresv1alpha1.FeatureStateEnabled))
	color := fieldBinding("color", "spec.color", nil, "widget-colors")
	otherNamespace := fieldBinding("color", "spec.color", nil, "widget-colors")
	otherNamespace.Feature.Namespace = "gadgets"
	for _, tc := range []struct {
		name     string
		user     string
		obj, old *featuresv1alpha1.CustomResourceFeatureBinding
		err      string
	}{{
		name: "a reader of the namespace who may edit the CRD binds", user: "widget-admin", obj: bindingOf(color),
	}, {
		name: "an enum value", user: "widget-admin", obj: bindingOf(fieldBinding("huge", "spec.size", ptr.To("huge"), "widget-colors")),
	}, {
		name: "an integer value", user: "widget-admin", obj: bindingOf(fieldBinding("many", "spec.count", ptr.To("3"), "widget-colors")),
	}, {
		name: "a path the schema does not have", user: "widget-admin", obj: bindingOf(fieldBinding("colour", "spec.colour", nil, "widget-colors")),
		err: `CustomResourceFeatureBinding.features.k8s.io "widgets.example.com" is invalid: spec.bindings[0].path: Invalid value: "spec.colour": version v1: the schema has no field spec.colour`,
	}, {
		name: "a value of the wrong type", user: "widget-admin", obj: bindingOf(fieldBinding("many", "spec.count", ptr.To("many"), "widget-colors")),
		err: `spec.bindings[0].value: Invalid value: "many": version v1: spec.count is an integer: the value must be written in decimal, e.g. 3`,
	}, {
		name: "a value out of the enum", user: "widget-admin", obj: bindingOf(fieldBinding("huge", "spec.size", ptr.To("Huge"), "widget-colors")),
		err: `spec.bindings[0].value: Invalid value: "Huge": version v1: spec.size must be one of its enum values: small, huge, giant`,
	}, {
		name: "an unknown Feature", user: "widget-admin", obj: bindingOf(fieldBinding("color", "spec.color", nil, "new-colors")),
		err: `spec.bindings[0].feature: Invalid value: "widgets/new-colors": no such Feature: create the Feature first`,
	}, {
		name: "who may not read the namespace's Features cannot bind", user: "tenant", obj: bindingOf(color),
		err: `spec.bindings[0].feature: Forbidden: user "tenant" may not get feature widgets/widget-colors (no rule allows it): only who may read a Feature binds fields to it`,
	}, {
		name: "nor bind to another namespace's", user: "widget-admin", obj: bindingOf(otherNamespace),
		err: `spec.bindings[0].feature: Forbidden: user "widget-admin" may not get feature gadgets/widget-colors`,
	}, {
		name: "who may not edit the CRD cannot bind its fields", user: "reader", obj: bindingOf(color),
		err: `metadata.name: Forbidden: user "reader" may not update customresourcedefinition widgets.example.com (no rule allows it): only who may edit a CRD binds its fields`,
	}, {
		name: "no such CRD", user: "widget-admin", obj: &featuresv1alpha1.CustomResourceFeatureBinding{ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
			Spec: featuresv1alpha1.CustomResourceFeatureBindingSpec{Bindings: []featuresv1alpha1.CustomResourceFieldBinding{color}}},
		err: `metadata.name: Invalid value: "gadgets.example.com": no CustomResourceDefinition has this name: create the CRD first`,
	}, {
		name: "a tenant who may edit the CRD keeps what others bound", user: "tenant",
		obj: bindingOf(color, fieldBinding("shape", "spec.shape", nil, "widget-colors")), old: bindingOf(color),
	}, {
		name: "an unchanged binding is not checked again", user: "widget-admin",
		obj: bindingOf(fieldBinding("gone", "spec.gone", nil, "widget-colors"), color), old: bindingOf(fieldBinding("gone", "spec.gone", nil, "widget-colors")),
	}, {
		name: "a changed one is", user: "widget-admin",
		obj: bindingOf(fieldBinding("gone", "spec.gone", ptr.To("x"), "widget-colors")), old: bindingOf(fieldBinding("gone", "spec.gone", nil, "widget-colors")),
		err: `spec.bindings[0].path: Invalid value: "spec.gone": version v1: the schema has no field spec.gone`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			op, old := admission.Create, runtime.Object(nil)
			if tc.old != nil {
				op, old = admission.Update, internal(t, tc.old)
			}
			a := admission.NewAttributesRecord(internal(t, tc.obj), old, featuresv1alpha1.SchemeGroupVersion.WithKind("CustomResourceFeatureBinding"),
				"", tc.obj.Name, bindingsResource, "", op, nil, false, &user.DefaultInfo{Name: tc.user})
			err := p.Validate(context.Background(), a, nil)
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

// A Feature or CRD created just before the binding (manifests applied in
// one go) may not have reached the plugin's caches: live reads find them.
func TestNotYetCached(t *testing.T) {
	p := newPlugin(t)
	live := feature("new-colors", "")
	if _, err := p.dynamic.Resource(featuresv1alpha1.SchemeGroupVersion.WithResource("features")).Namespace("widgets").Create(context.Background(),
		toUnstructured(t, live, "features.k8s.io/v1alpha1", "Feature"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a := admission.NewAttributesRecord(internal(t, bindingOf(fieldBinding("color", "spec.color", nil, "new-colors"))), nil,
		featuresv1alpha1.SchemeGroupVersion.WithKind("CustomResourceFeatureBinding"), "", "widgets.example.com", bindingsResource, "", admission.Create,
		nil, false, &user.DefaultInfo{Name: "widget-admin"})
	if err := p.Validate(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}
}

func TestFeatureDeletion(t *testing.T) {
	p := newPlugin(t, widgetBinding(), feature("widget-colors", featuresv1alpha1.FeatureStateEnabled))
	deleteFeature := func(namespace, name string) error {
		a := admission.NewAttributesRecord(nil, feature(name, ""), featuresv1alpha1.SchemeGroupVersion.WithKind("Feature"),
			namespace, name, featuresv1alpha1.SchemeGroupVersion.WithResource("features"), "", admission.Delete, nil, false, &user.DefaultInfo{Name: "admin"})
		return p.Validate(context.Background(), a, nil)
	}
	for _, tc := range []struct {
		namespace, name, err string
	}{
		{"widgets", "widget-colors", `features.features.k8s.io "widget-colors" is forbidden: customresourcefeaturebindings bind fields to it: remove its bindings from widgets.example.com first`},
		{"widgets", "unbound", ""},
		{"gadgets", "widget-colors", ""},
	} {
		err := deleteFeature(tc.namespace, tc.name)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("deleting %s/%s: %v", tc.namespace, tc.name, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("deleting %s/%s: error %v, want %q", tc.namespace, tc.name, err, tc.err)
		}
	}
	// The binding is deleted, and the cache has not seen it yet: a live
	// read tells.
	if err := p.dynamic.Resource(bindingsResource).Delete(context.Background(), "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := deleteFeature("widgets", "widget-colors"); err != nil {
		t.Errorf("deleting a Feature whose binding is gone but cached: %v", err)
	}
}

func TestCRDWarnings(t *testing.T) {
	p := newPlugin(t, widgetBinding())
	annotated := widgetCRD()
	annotated.Annotations = map[string]string{crbinding.LegacyAnnotation: `[{"path": "spec.color", "feature": "widgets/widget-colors"}]`}
	crd := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(annotated, crd, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		op   admission.Operation
		obj  runtime.Object
		want string
	}{
		{"the former annotation", admission.Create, crd,
			"metadata.annotations[features.k8s.io/gated-fields] is no longer read and gates nothing: bind the fields with the customresourcefeaturebinding widgets.example.com (kubectl features migrate-bindings creates it from the annotation and removes the annotation)"},
		{"deleting a bound CRD", admission.Delete, nil,
			"customresourcefeaturebinding widgets.example.com still binds the fields of the custom resource definition widgets.example.com: delete it too unless the CRD comes back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings recorder
			ctx := warning.WithWarningRecorder(context.Background(), &warnings)
			a := admission.NewAttributesRecord(tc.obj, nil, apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"),
				"", "widgets.example.com", crdResource, "", tc.op, nil, false, &user.DefaultInfo{Name: "admin"})
			if err := p.Validate(ctx, a, nil); err != nil {
				t.Fatal(err)
			}
			if strings.Join(warnings, "\n") != tc.want {
				t.Errorf("warnings %q, want %q", warnings, tc.want)
			}
		})
	}
}
