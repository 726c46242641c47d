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

package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"k8s.io/kubernetes/pkg/apis/features"
)

// TestLegacyStatesAreReadAsTheNewOnes: a Feature and a FeatureTarget stored
// before the states were renamed (On, Off, TurningOn, TurningOff) decode,
// as kube-apiserver decodes what it reads from etcd, to the new values.
func TestLegacyStatesAreReadAsTheNewOnes(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	decoder := codecs.UniversalDecoder(features.SchemeGroupVersion)

	stored := `{"apiVersion":"features.k8s.io/v1alpha1","kind":"Feature","metadata":{"name":"my-gate","namespace":"kube-system"},
	  "spec":{"gate":"MyGate","desiredState":"Off","management":"Dynamic"},
	  "status":{"state":"TurningOff",
	    "rollout":{"phase":"Progressing","scope":"Nodes","from":"On","to":"Off","step":1}}}`
	obj, _, err := decoder.Decode([]byte(stored), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := obj.(*features.Feature)
	if f.Spec.DesiredState != features.FeatureDesiredStateDisabled {
		t.Errorf("spec.desiredState Off read as %q", f.Spec.DesiredState)
	}
	if f.Status.State != features.FeatureStateDisabling {
		t.Errorf("status.state TurningOff read as %q", f.Status.State)
	}
	if r := f.Status.Rollout; r.From != features.FeatureDesiredStateEnabled || r.To != features.FeatureDesiredStateDisabled {
		t.Errorf("status.rollout from On, to Off read as %q, %q", r.From, r.To)
	}

	// A third party's declared task.
	stored = `{"apiVersion":"features.k8s.io/v1alpha1","kind":"Feature","metadata":{"name":"widget-colors","namespace":"widgets"},
	  "spec":{"gate":"WidgetColors","declaration":{"preRelease":"Alpha","default":false,"tasks":[{"name":"repaint","transition":"TurningOn","owner":"widget-operator"}]}}}`
	obj, _, err = decoder.Decode([]byte(stored), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*features.Feature).Spec.Declaration.Tasks[0].Transition; got != features.FeatureStateEnabling {
		t.Errorf("spec.declaration.tasks[0].transition TurningOn read as %q", got)
	}

	stored = `{"apiVersion":"features.k8s.io/v1alpha1","kind":"FeatureTarget","metadata":{"name":"my-gate","namespace":"kube-system"},
	  "spec":{"gate":"MyGate","management":"Dynamic","desiredState":"On","rollout":{"scope":"Nodes","desiredState":"Off"}}}`
	obj, _, err = decoder.Decode([]byte(stored), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	target := obj.(*features.FeatureTarget)
	if target.Spec.DesiredState != features.FeatureDesiredStateEnabled || target.Spec.Rollout.DesiredState != features.FeatureDesiredStateDisabled {
		t.Errorf("FeatureTarget desiredState On, rollout Off read as %q, %+v", target.Spec.DesiredState, target.Spec.Rollout)
	}
	for _, s := range []features.FeatureState{features.FeatureStateEnabled, features.FeatureStateDisabled, features.FeatureStateEnabling} {
		data := `{"apiVersion":"features.k8s.io/v1alpha1","kind":"Feature","metadata":{"name":"g"},"spec":{"gate":"G"},"status":{"state":"` + string(s) + `"}}`
		obj, _, err := decoder.Decode([]byte(data), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := obj.(*features.Feature).Status.State; got != s {
			t.Errorf("state %s read as %q", s, got)
		}
	}
}
