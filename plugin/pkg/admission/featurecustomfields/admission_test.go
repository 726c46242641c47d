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
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	_ "k8s.io/kubernetes/pkg/apis/features/install"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// widgetCRD is the CRD of widgets.example.com: spec.color, spec.size (an
// enum), spec.shape, spec.count (an integer) and status.glow, with a
// status subresource.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
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
							"color": str, "shape": str, "count": {Type: "integer"},
							"size": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"small"`)}, {Raw: []byte(`"huge"`)}, {Raw: []byte(`"giant"`)}}},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"glow": str}},
					},
				}},
			}},
		},
	}
}

func ref(name string) featuresv1alpha1.FeatureReference {
	return featuresv1alpha1.FeatureReference{Namespace: "widgets", Name: name}
}

// widgetBinding binds widgets.example.com: spec.color and status.glow
// dropped and cleared, spec.size "huge" refused and cleared, spec.size
// "giant" and spec.shape refused and held, and the kind.
func widgetBinding() *featuresv1alpha1.CustomResourceFeatureBinding {
	const (
		drop, refuse = featuresv1alpha1.CustomResourceWhenOffDrop, featuresv1alpha1.CustomResourceWhenOffRefuse
		clear, hold  = featuresv1alpha1.CustomResourceWhenStoredClear, featuresv1alpha1.CustomResourceWhenStoredHold
	)
	return &featuresv1alpha1.CustomResourceFeatureBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: featuresv1alpha1.CustomResourceFeatureBindingSpec{Bindings: []featuresv1alpha1.CustomResourceFieldBinding{
			{Name: "color", Path: "spec.color", Feature: ref("widget-colors"), WhenOff: drop, WhenStored: clear},
			{Name: "huge", Path: "spec.size", Value: ptr.To("huge"), Feature: ref("huge-widgets"), WhenOff: refuse, WhenStored: clear},
			{Name: "giant", Path: "spec.size", Value: ptr.To("giant"), Feature: ref("huge-widgets"), WhenOff: refuse, WhenStored: hold},
			{Name: "shape", Path: "spec.shape", Feature: ref("shapes"), WhenOff: refuse, WhenStored: hold},
			{Name: "glow", Path: "status.glow", Feature: ref("widget-colors"), WhenOff: drop, WhenStored: clear},
			{Name: "kind", Feature: ref("widgets"), WhenOff: refuse, WhenStored: hold},
		}},
	}
}

// feature returns a Feature of namespace widgets in state.
func feature(name string, state featuresv1alpha1.FeatureState) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Namespace: "widgets", Name: name},
		Status: featuresv1alpha1.FeatureStatus{State: state}}
}

// rights: widget-admin may get Features in namespace widgets and update
// the CRD widgets.example.com; tenant may update the CRD only.
var rights = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	u := a.GetUser().GetName()
	switch {
	case (u == "widget-admin" || u == "tenant") && a.GetVerb() == "update" && a.GetResource() == "customresourcedefinitions" && a.GetName() == "widgets.example.com":
		return authorizer.DecisionAllow, "", nil
	case u == "widget-admin" && a.GetNamespace() == "widgets" && a.GetVerb() == "get" && a.GetResource() == "features":
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no rule allows it", nil
})

// toUnstructured converts obj for a fake dynamic client.
func toUnstructured(t *testing.T, obj runtime.Object, apiVersion, kind string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

// newPlugin returns the plugin, initialized with objs (Features and
// bindings) in its informers and the live API, and the CRD of widgets.
func newPlugin(t *testing.T, objs ...runtime.Object) *Plugin {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.FeatureLifecycle, true)
	p := NewPlugin()
	p.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	factory := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
	p.SetExternalKubeInformerFactory(factory)
	p.SetAuthorizer(rights)
	live := []runtime.Object{toUnstructured(t, widgetCRD(), "apiextensions.k8s.io/v1", "CustomResourceDefinition")}
	for _, obj := range objs {
		switch o := obj.(type) {
		case *featuresv1alpha1.Feature:
			live = append(live, toUnstructured(t, o, "features.k8s.io/v1alpha1", "Feature"))
		case *featuresv1alpha1.CustomResourceFeatureBinding:
			live = append(live, toUnstructured(t, o, "features.k8s.io/v1alpha1", "CustomResourceFeatureBinding"))
		}
	}
	p.SetDynamicClient(dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList", bindingsResource: "CustomResourceFeatureBindingList",
			featuresv1alpha1.SchemeGroupVersion.WithResource("features"): "FeatureList"}, live...))
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
	states := func(colors, huge, shapes, kind featuresv1alpha1.FeatureState) []runtime.Object {
		return []runtime.Object{widgetBinding(), feature("widget-colors", colors), feature("huge-widgets", huge),
			feature("shapes", shapes), feature("widgets", kind)}
	}
	const on, off, turningOn, turningOff = featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling
	allOn := states(on, turningOn, on, on)
	allOff := states(off, turningOff, off, on)
	kindOff := states(on, on, on, turningOff)
	spec := func(kv ...string) map[string]interface{} {
		m := map[string]interface{}{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name        string
		objs        []runtime.Object
		op          admission.Operation
		subresource string
		obj, old    *unstructured.Unstructured
		wantSpec    map[string]interface{}
		wantStatus  map[string]interface{}
		warnings    []string
		err         string
	}{{
		name: "on: everything kept", objs: allOn, op: admission.Create,
		obj: widget(spec("color", "red", "size", "huge", "shape", "round"), nil), wantSpec: spec("color", "red", "size", "huge", "shape", "round"),
	}, {
		name: "off: a dropped field is dropped with a warning", objs: allOff, op: admission.Create,
		obj: widget(spec("color", "red", "size", "small"), nil), wantSpec: spec("size", "small"),
		warnings: []string{"spec.color was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "off: a cleared field the object holds is dropped too", objs: allOff, op: admission.Update,
		obj: widget(spec("color", "red"), nil), old: widget(spec("color", "red"), nil), wantSpec: spec(),
		warnings: []string{"spec.color was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "off: a refused value is refused", objs: allOff, op: admission.Create,
		obj: widget(spec("size", "huge"), nil),
		err: `Widget.example.com "w" is invalid: spec.size: Forbidden: spec.size "huge" cannot be set: feature widgets/huge-widgets is Disabling`,
	}, {
		name: "off: other values of a refused value's field are kept", objs: allOff, op: admission.Create,
		obj: widget(spec("size", "small"), nil), wantSpec: spec("size", "small"),
	}, {
		name: "off: a refused and cleared value the object holds is dropped", objs: allOff, op: admission.Update,
		obj: widget(spec("size", "huge"), nil), old: widget(spec("size", "huge"), nil), wantSpec: spec(),
		warnings: []string{`spec.size "huge" was dropped: feature widgets/huge-widgets is Disabling`},
	}, {
		name: "off: a refused and held value the object holds is kept, with a warning", objs: allOff, op: admission.Update,
		obj: widget(spec("size", "giant", "color", "red"), nil), old: widget(spec("size", "giant"), nil), wantSpec: spec("size", "giant"),
		warnings: []string{`spec.size "giant" was kept as the object held it: feature widgets/huge-widgets is Disabling; change it to let the feature turn off`,
			"spec.color was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "off: a held value set anew is refused", objs: allOff, op: admission.Update,
		obj: widget(spec("size", "giant"), nil), old: widget(spec("size", "small"), nil),
		err: `spec.size: Forbidden: spec.size "giant" cannot be set: feature widgets/huge-widgets is Disabling`,
	}, {
		name: "off: a refused field set anew on update is refused", objs: allOff, op: admission.Update,
		obj: widget(spec("shape", "square"), nil), old: widget(spec("shape", "round"), nil),
		err: `spec.shape: Forbidden: spec.shape cannot be set: feature widgets/shapes is Disabled`,
	}, {
		name: "off: status fields are left to the status subresource", objs: allOff, op: admission.Update,
		obj: widget(spec(), spec("glow", "blue")), old: widget(spec(), nil), wantSpec: spec(), wantStatus: spec("glow", "blue"),
	}, {
		name: "off: the status subresource drops status fields", objs: allOff, op: admission.Update, subresource: "status",
		obj: widget(spec("color", "red"), spec("glow", "blue")), old: widget(spec(), nil), wantSpec: spec("color", "red"), wantStatus: spec(),
		warnings: []string{"status.glow was dropped: feature widgets/widget-colors is Disabled"},
	}, {
		name: "kind off: creating is refused", objs: kindOff, op: admission.Create,
		obj: widget(spec(), nil), err: `kind: Forbidden: Widget cannot be created: feature widgets/widgets is Disabling`,
	}, {
		name: "kind off: updating is not", objs: kindOff, op: admission.Update,
		obj: widget(spec("color", "red"), nil), old: widget(spec(), nil), wantSpec: spec("color", "red"),
	}, {
		name: "missing Features are off", objs: []runtime.Object{widgetBinding()}, op: admission.Create,
		obj: widget(spec("color", "red"), nil),
		err: "kind: Forbidden: Widget cannot be created: feature widgets/widgets does not exist",
	}, {
		name: "no binding: nothing is gated", objs: []runtime.Object{feature("widget-colors", off)}, op: admission.Create,
		obj: widget(spec("color", "red"), nil), wantSpec: spec("color", "red"),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, tc.objs...)
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
