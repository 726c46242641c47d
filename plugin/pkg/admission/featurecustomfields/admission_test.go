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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

const widgetBindings = `[{"path": "spec.color", "feature": "widgets/widget-colors"},
 {"path": "spec.size", "value": "huge", "feature": "widgets/huge-widgets", "whenOff": "Refuse"},
 {"path": "spec.shape", "feature": "widgets/shapes", "whenOff": "Refuse"},
 {"path": "status.glow", "feature": "widgets/widget-colors"},
 {"feature": "widgets/widgets"}]`

// widgetCRD is a CRD of widgets.example.com with the given bindings.
func widgetCRD(bindings string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", Annotations: map[string]string{crdbindings.Annotation: bindings}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"color": str, "size": str, "shape": str,
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"glow": str}},
					},
				}},
			}},
		},
	}
}

// feature returns a Feature in state.
func feature(name string, state featuresv1alpha1.FeatureState) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Namespace: "widgets", Name: name},
		Status: featuresv1alpha1.FeatureStatus{State: state}}
}

// readers lets widget-admin get Features in namespace widgets.
var readers = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.GetUser().GetName() == "widget-admin" && a.GetNamespace() == "widgets" && a.GetVerb() == "get" && a.GetResource() == "features" {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no rule allows it", nil
})

// newPlugin returns the plugin, initialized with the CRD of bindings and
// the Features.
func newPlugin(t *testing.T, bindings string, features ...runtime.Object) *Plugin {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.FeatureLifecycle, true)
	p := NewPlugin()
	p.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	factory := informers.NewSharedInformerFactory(fake.NewClientset(features...), 0)
	p.SetExternalKubeInformerFactory(factory)
	p.SetAuthorizer(readers)
	crd, err := runtime.DefaultUnstructuredConverter.ToUnstructured(widgetCRD(bindings))
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	p.SetDynamicClient(dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
		map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList"}, &unstructured.Unstructured{Object: crd}))
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	p.SetDrainedNotification(stop)
	if err := p.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	return p
}

// recorder collects warnings.
type recorder []string

func (r *recorder) AddWarning(_, text string) { *r = append(*r, text) }

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func widget(spec, status map[string]interface{}) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w", "namespace": "default"}, "spec": spec}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

func TestAdmitCustomResources(t *testing.T) {
	off := []runtime.Object{feature("widget-colors", featuresv1alpha1.FeatureStateDisabled), feature("huge-widgets", featuresv1alpha1.FeatureStateDisabling),
		feature("shapes", featuresv1alpha1.FeatureStateDisabled), feature("widgets", featuresv1alpha1.FeatureStateEnabled)}
	on := []runtime.Object{feature("widget-colors", featuresv1alpha1.FeatureStateEnabled), feature("huge-widgets", featuresv1alpha1.FeatureStateEnabling),
		feature("shapes", featuresv1alpha1.FeatureStateEnabled), feature("widgets", featuresv1alpha1.FeatureStateEnabled)}
	kindOff := []runtime.Object{feature("widget-colors", featuresv1alpha1.FeatureStateEnabled), feature("huge-widgets", featuresv1alpha1.FeatureStateEnabled),
		feature("shapes", featuresv1alpha1.FeatureStateEnabled), feature("widgets", featuresv1alpha1.FeatureStateDisabling)}
	spec := func(kv ...string) map[string]interface{} {
		m := map[string]interface{}{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name        string
		features    []runtime.Object
		op          admission.Operation
		subresource string
		obj, old    *unstructured.Unstructured
		wantSpec    map[string]interface{}
		wantStatus  map[string]interface{}
		warnings    []string
		err         string
	}{{
		name: "on: everything kept", features: on, op: admission.Create,
		obj: widget(spec("color", "red", "size", "huge", "shape", "round"), nil), wantSpec: spec("color", "red", "size", "huge", "shape", "round"),
	}, {
		name: "off: a dropped field is dropped with a warning", features: off, op: admission.Create,
		obj: widget(spec("color", "red", "size", "small"), nil), wantSpec: spec("size", "small"),
		warnings: []string{"spec.color was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "off: a field the object holds is dropped too", features: off, op: admission.Update,
		obj: widget(spec("color", "red"), nil), old: widget(spec("color", "red"), nil), wantSpec: spec(),
		warnings: []string{"spec.color was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "off: a refused value is refused", features: off, op: admission.Create,
		obj: widget(spec("size", "huge"), nil),
		err: `Widget.example.com "w" is invalid: spec.size: Forbidden: spec.size "huge" cannot be set: feature widgets/huge-widgets is Disabling`,
	}, {
		name: "off: other values of a refused value's field are kept", features: off, op: admission.Create,
		obj: widget(spec("size", "small"), nil), wantSpec: spec("size", "small"),
	}, {
		name: "off: a refused value the object holds is dropped", features: off, op: admission.Update,
		obj: widget(spec("size", "huge"), nil), old: widget(spec("size", "huge"), nil), wantSpec: spec(),
		warnings: []string{`spec.size "huge" was dropped: feature widgets/huge-widgets is Disabling`},
	}, {
		name: "off: a refused field set anew on update is refused", features: off, op: admission.Update,
		obj: widget(spec("shape", "square"), nil), old: widget(spec("shape", "round"), nil),
		err: `spec.shape: Forbidden: spec.shape cannot be set: feature widgets/shapes is Disabled`,
	}, {
		name: "off: status fields are left to the status subresource", features: off, op: admission.Update,
		obj: widget(spec(), spec("glow", "blue")), old: widget(spec(), nil), wantSpec: spec(), wantStatus: spec("glow", "blue"),
	}, {
		name: "off: the status subresource drops status fields", features: off, op: admission.Update, subresource: "status",
		obj: widget(spec("color", "red"), spec("glow", "blue")), old: widget(spec(), nil), wantSpec: spec("color", "red"), wantStatus: spec(),
		warnings: []string{"status.glow was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "kind off: creating is refused", features: kindOff, op: admission.Create,
		obj: widget(spec(), nil), err: `kind: Forbidden: Widget cannot be created: feature widgets/widgets is Disabling`,
	}, {
		name: "kind off: updating is not", features: kindOff, op: admission.Update,
		obj: widget(spec("color", "red"), nil), old: widget(spec(), nil), wantSpec: spec("color", "red"),
	}, {
		name: "missing Features are off", op: admission.Create,
		obj: widget(spec("color", "red"), nil),
		err: "kind: Forbidden: Widget cannot be created: feature widgets/widgets does not exist",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, widgetBindings, tc.features...)
			var warnings recorder
			ctx := warning.WithWarningRecorder(context.Background(), &warnings)
			var old runtime.Object
			if tc.old != nil {
				old = tc.old
			}
			a := admission.NewAttributesRecord(tc.obj, old, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
				"default", "w", widgets, tc.subresource, tc.op, nil, false, &user.DefaultInfo{Name: "alice"})
			err := p.Admit(ctx, a, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedMap(tc.obj.Object, "spec")
			if !equalMaps(got, tc.wantSpec) {
				t.Errorf("spec %v, want %v", got, tc.wantSpec)
			}
			if tc.wantStatus != nil {
				if got, _, _ := unstructured.NestedMap(tc.obj.Object, "status"); !equalMaps(got, tc.wantStatus) {
					t.Errorf("status %v, want %v", got, tc.wantStatus)
				}
			}
			if strings.Join(warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings %q, want %q", warnings, tc.warnings)
			}
		})
	}
}

func equalMaps(a, b map[string]interface{}) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestValidateCRDWrites(t *testing.T) {
	p := newPlugin(t, widgetBindings, feature("widget-colors", featuresv1alpha1.FeatureStateEnabled))
	internal := func(bindings string) *apiextensions.CustomResourceDefinition {
		out := &apiextensions.CustomResourceDefinition{}
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(widgetCRD(bindings), out, nil); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		user     string
		obj, old string
		err      string
		warnings []string
	}{{
		name: "a reader of the namespace binds", user: "widget-admin", obj: `[{"path": "spec.color", "feature": "widgets/widget-colors"}]`,
	}, {
		name: "a missing Feature is warned about", user: "widget-admin", obj: `[{"path": "spec.color", "feature": "widgets/new-colors"}]`,
		warnings: []string{"metadata.annotations[features.k8s.io/gated-fields][0].feature: feature widgets/new-colors does not exist: what is bound to it is off until it is Enabled"},
	}, {
		name: "who may not read the namespace's Features cannot bind", user: "tenant", obj: `[{"path": "spec.color", "feature": "widgets/widget-colors"}]`,
		err: `metadata.annotations[features.k8s.io/gated-fields][0].feature: Forbidden: user "tenant" may not get feature widgets/widget-colors (no rule allows it): only who may read a Feature binds fields to it`,
	}, {
		name: "nor bind to another namespace", user: "widget-admin", obj: `[{"path": "spec.color", "feature": "gadgets/colors"}]`,
		err: `user "widget-admin" may not get feature gadgets/colors`,
	}, {
		name: "but may keep what others bound", user: "tenant", obj: `[{"path": "spec.color", "feature": "widgets/widget-colors"}]`,
		old: `[{"path": "spec.size", "feature": "widgets/widget-colors"}]`,
	}, {
		name: "a bad annotation is refused for anyone", user: "widget-admin", obj: `[{"path": "spec.nope", "feature": "widgets/widget-colors"}]`,
		err: `metadata.annotations[features.k8s.io/gated-fields][0].path: Invalid value: "spec.nope"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings recorder
			ctx := warning.WithWarningRecorder(context.Background(), &warnings)
			op, old := admission.Create, runtime.Object(nil)
			if tc.old != "" {
				op, old = admission.Update, internal(tc.old)
			}
			a := admission.NewAttributesRecord(internal(tc.obj), old, apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"),
				"", "widgets.example.com", crdResource, "", op, nil, false, &user.DefaultInfo{Name: tc.user})
			err := p.Validate(ctx, a, nil)
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if strings.Join(warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings %q, want %q", warnings, tc.warnings)
			}
		})
	}
}

// A Feature created just before the CRD that binds to it (manifests applied
// in one go) may not have reached the plugin's cache: a live read finds it,
// and the CRD's write is not warned about.
func TestFeatureNotYetCached(t *testing.T) {
	p := newPlugin(t, widgetBindings)
	created := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "features.k8s.io/v1alpha1", "kind": "Feature",
		"metadata": map[string]interface{}{"namespace": "widgets", "name": "new-colors"},
	}}
	p.SetDynamicClient(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), created))
	crd := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(
		widgetCRD(`[{"path": "spec.color", "feature": "widgets/new-colors"}, {"path": "spec.size", "feature": "widgets/absent"}]`), crd, nil); err != nil {
		t.Fatal(err)
	}
	var warnings recorder
	ctx := warning.WithWarningRecorder(context.Background(), &warnings)
	a := admission.NewAttributesRecord(crd, nil, apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"),
		"", "widgets.example.com", crdResource, "", admission.Create, nil, false, &user.DefaultInfo{Name: "widget-admin"})
	if err := p.Validate(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"metadata.annotations[features.k8s.io/gated-fields][1].feature: feature widgets/absent does not exist: what is bound to it is off until it is Enabled"}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want only the one about the Feature that does not exist: %q", warnings, want)
	}
}

func TestFeatureDeletion(t *testing.T) {
	p := newPlugin(t, widgetBindings, feature("widget-colors", featuresv1alpha1.FeatureStateEnabled))
	for _, tc := range []struct {
		namespace, name, err string
	}{
		{"widgets", "widget-colors", `features.features.k8s.io "widget-colors" is forbidden: custom resource definitions bind fields to it (metadata.annotations[features.k8s.io/gated-fields]): remove the bindings from widgets.example.com first`},
		{"widgets", "unbound", ""},
		{"gadgets", "widget-colors", ""},
	} {
		a := admission.NewAttributesRecord(nil, feature(tc.name, ""), featuresv1alpha1.SchemeGroupVersion.WithKind("Feature"),
			tc.namespace, tc.name, featuresv1alpha1.SchemeGroupVersion.WithResource("features"), "", admission.Delete, nil, false, &user.DefaultInfo{Name: "admin"})
		err := p.Validate(context.Background(), a, nil)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("deleting %s/%s: %v", tc.namespace, tc.name, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("deleting %s/%s: error %v, want %q", tc.namespace, tc.name, err, tc.err)
		}
	}
}
