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

package featuredroppedfields_test

import (
	"context"
	"slices"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/admission"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"k8s.io/kubernetes/pkg/apis/apps"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/features/lifecycle"
	"k8s.io/kubernetes/plugin/pkg/admission/featuredroppedfields"
)

type recorder []string

func (r *recorder) AddWarning(_, text string) { *r = append(*r, text) }

func statefulSet(maxUnavailable *intstr.IntOrString, labels map[string]string) *apps.StatefulSet {
	s := &apps.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: labels},
		Spec: apps.StatefulSetSpec{UpdateStrategy: apps.StatefulSetUpdateStrategy{
			Type: apps.RollingUpdateStatefulSetStrategyType,
		}},
	}
	if maxUnavailable != nil {
		s.Spec.UpdateStrategy.RollingUpdate = &apps.RollingUpdateStatefulSetStrategy{MaxUnavailable: maxUnavailable}
	}
	return s
}

// TestAdmit: with MaxUnavailableStatefulSet off, a create or an update that
// sets maxUnavailable is warned about, naming the Feature and its state;
// an update of an object that already has it, an object without it, and
// any write with the gate on are not. Nothing is changed or refused.
func TestAdmit(t *testing.T) {
	two := intstr.FromInt32(2)
	const want = "spec.updateStrategy.rollingUpdate.maxUnavailable was dropped: feature kube-system/max-unavailable-stateful-set is Disabled"
	for _, c := range []struct {
		name      string
		gateOn    bool
		op        admission.Operation
		obj, old  *apps.StatefulSet
		noFeature bool
		want      []string
	}{
		{name: "create", op: admission.Create, obj: statefulSet(&two, nil), want: []string{want}},
		{name: "create without the field", op: admission.Create, obj: statefulSet(nil, nil)},
		{name: "update adds it", op: admission.Update, obj: statefulSet(&two, nil), old: statefulSet(nil, nil), want: []string{want}},
		{name: "update keeps it", op: admission.Update, obj: statefulSet(&two, map[string]string{"a": "b"}), old: statefulSet(&two, nil)},
		{name: "gate on", gateOn: true, op: admission.Create, obj: statefulSet(&two, nil)},
		{name: "no Feature yet", op: admission.Create, obj: statefulSet(&two, nil), noFeature: true,
			want: []string{"spec.updateStrategy.rollingUpdate.maxUnavailable was dropped: feature gate MaxUnavailableStatefulSet is off on this kube-apiserver (feature kube-system/max-unavailable-stateful-set)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
				kubefeatures.FeatureLifecycle:          true,
				kubefeatures.MaxUnavailableStatefulSet: c.gateOn,
			})
			var objects []runtime.Object
			if !c.noFeature {
				objects = append(objects, &featuresv1alpha1.Feature{
					ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "max-unavailable-stateful-set"},
					Status:     featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabled},
				})
			}
			factory := informers.NewSharedInformerFactory(fake.NewClientset(objects...), 0)
			p, err := featuredroppedfields.NewPlugin()
			if err != nil {
				t.Fatal(err)
			}
			p.InspectFeatureGates(utilfeature.DefaultFeatureGate)
			featuredroppedfields.Initializer{Guarded: lifecycle.Guarded}.Initialize(p)
			p.SetExternalKubeInformerFactory(factory)
			if err := p.ValidateInitialization(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			factory.Start(ctx.Done())
			factory.WaitForCacheSync(ctx.Done())

			before := c.obj.DeepCopy()
			var old runtime.Object
			if c.old != nil {
				old = c.old
			}
			var got recorder
			attrs := admission.NewAttributesRecord(c.obj, old, apps.Kind("StatefulSet").WithVersion("version"), "default", "web",
				apps.Resource("statefulsets").WithVersion("version"), "", c.op, nil, false, nil)
			if err := p.Admit(warning.WithWarningRecorder(ctx, &got), attrs, nil); err != nil {
				t.Fatalf("Admit: %v", err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("warnings %q, want %q", got, c.want)
			}
			if c.obj.Spec.UpdateStrategy.RollingUpdate != nil && before.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.IntValue() != c.obj.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.IntValue() {
				t.Errorf("the object changed: %+v", c.obj.Spec.UpdateStrategy)
			}
		})
	}
}

// TestDisabled: with FeatureLifecycle off the plugin does nothing and needs
// no lister.
func TestDisabled(t *testing.T) {
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(map[featuregate.Feature]featuregate.FeatureSpec{kubefeatures.FeatureLifecycle: {Default: false, PreRelease: featuregate.Alpha}}); err != nil {
		t.Fatal(err)
	}
	p, _ := featuredroppedfields.NewPlugin()
	p.InspectFeatureGates(gate)
	if err := p.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	two := intstr.FromInt32(2)
	var got recorder
	attrs := admission.NewAttributesRecord(statefulSet(&two, nil), nil, apps.Kind("StatefulSet").WithVersion("version"), "default", "web",
		apps.Resource("statefulsets").WithVersion("version"), "", admission.Create, nil, false, nil)
	if err := p.Admit(warning.WithWarningRecorder(context.Background(), &got), attrs, nil); err != nil || len(got) != 0 {
		t.Errorf("disabled: %v, warnings %q", err, got)
	}
}
