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

package featurestatus

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	apiserverinstall "k8s.io/apiserver/pkg/apis/apiserver/install"
	"k8s.io/apiserver/pkg/authentication/user"
	api "k8s.io/kubernetes/pkg/apis/core"

	"k8s.io/featureflags/pkg/apis/features"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	t1 = metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))

	featuresGVR = schema.GroupVersionResource{Group: features.GroupName, Version: "v1alpha1", Resource: "features"}
	featureGVK  = schema.GroupVersionKind{Group: features.GroupName, Version: "v1alpha1", Kind: "Feature"}
)

func boolPtr(b bool) *bool { return &b }

// testFeature is a Feature as kube-apiserver and a few reporters leave it.
func testFeature() *features.Feature {
	return &features.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "kube-system", ResourceVersion: "7", Generation: 1},
		Spec: features.FeatureSpec{
			Gate:         "X",
			DesiredState: features.FeatureDesiredStateOn,
			Management:   features.FeatureManagementCommandLine,
		},
		Status: features.FeatureStatus{
			State:      features.FeatureStateOn,
			Default:    boolPtr(true),
			PreRelease: features.FeaturePreReleaseBeta,
			Version:    "1.36",
			Uses: []features.FeatureUse{
				{Component: "kube-apiserver", Enabled: true, Reporters: []string{"apiserver-a"}, FirstReportTime: t0},
				{Component: "kube-scheduler", Enabled: true, Reporters: []string{"scheduler-1"}, FirstReportTime: t0},
				{Component: "kube-controller-manager", Enabled: true, Reporters: []string{"kcm-1"}, FirstReportTime: t0},
				{Component: "kubelet", Enabled: true, Reporters: []string{"foo"}, FirstReportTime: t0},
				{Component: "kubelet", Enabled: false, Reporters: []string{"baz", "foo"}, FirstReportTime: t0},
			},
			UsesResetTime: &t0,
			Conditions: []metav1.Condition{{
				Type: "Converged", Status: metav1.ConditionTrue, Reason: "Converged", LastTransitionTime: t0, ObservedGeneration: 1,
			}},
			ObservedGeneration: 1,
		},
	}
}

// use returns the entry of f for (component, enabled), or fails.
func use(t *testing.T, f *features.Feature, component string, enabled bool) *features.FeatureUse {
	t.Helper()
	for i := range f.Status.Uses {
		if u := &f.Status.Uses[i]; u.Component == component && u.Enabled == enabled {
			return u
		}
	}
	t.Fatalf("no use %s/%t", component, enabled)
	return nil
}

func dropUse(f *features.Feature, component string, enabled bool) {
	var uses []features.FeatureUse
	for _, u := range f.Status.Uses {
		if u.Component != component || u.Enabled != enabled {
			uses = append(uses, u)
		}
	}
	f.Status.Uses = uses
}

var (
	kcm       = &user.DefaultInfo{Name: user.KubeControllerManager, Groups: []string{user.AllAuthenticated}}
	scheduler = &user.DefaultInfo{Name: user.KubeScheduler, Groups: []string{user.AllAuthenticated}}
	nodeFoo   = &user.DefaultInfo{Name: "system:node:foo", Groups: []string{user.NodesGroup, user.AllAuthenticated}}
	apiserver = &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
	admin     = &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
	alice     = &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	fooSA     = &user.DefaultInfo{Name: "system:serviceaccount:foo:bar", Groups: []string{"system:serviceaccounts", user.AllAuthenticated}}
	exampleC  = &user.DefaultInfo{Name: "example-1", Groups: []string{"example.com:controllers", user.AllAuthenticated}}
)

var testConfig = &Configuration{Reporters: []ReporterMapping{
	{User: "system:serviceaccount:foo:bar", Component: "foo-controller"},
	{Group: "example.com:controllers", Component: "example-controller"},
}}

func TestValidate(t *testing.T) {
	tests := []struct {
		name        string
		user        user.Info
		before      func(f *features.Feature) // applied to the old object
		mutate      func(t *testing.T, f *features.Feature)
		resource    schema.GroupVersionResource // featuresGVR when empty
		subresource *string                     // "status" when nil
		operation   admission.Operation         // Update when empty
		wantErr     []string                    // substrings; allowed when empty
	}{
		{
			name: "kube-controller-manager adds its entry",
			user: kcm,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "kube-controller-manager", Enabled: false, Reporters: []string{"kcm-2"}, FirstReportTime: t1})
			},
		},
		{
			name: "kube-controller-manager adds itself to its existing entry",
			user: kcm,
			mutate: func(t *testing.T, f *features.Feature) {
				u := use(t, f, "kube-controller-manager", true)
				u.Reporters = append(u.Reporters, "kcm-2")
			},
		},
		{
			name: "kube-controller-manager removes an identity and drops its entry",
			user: kcm,
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kube-controller-manager", true)
			},
		},
		{
			name: "kube-controller-manager reorders entries of other components while adding its own",
			user: kcm,
			mutate: func(t *testing.T, f *features.Feature) {
				u := f.Status.Uses
				u[0], u[1] = u[1], u[0]
				f.Status.Uses = append(u, features.FeatureUse{
					Component: "kube-controller-manager", Enabled: false, Reporters: []string{"kcm-1"}, FirstReportTime: t1})
			},
		},
		{
			name: "kube-controller-manager changes kube-scheduler's entry",
			user: kcm,
			mutate: func(t *testing.T, f *features.Feature) {
				u := use(t, f, "kube-scheduler", true)
				u.Reporters = append(u.Reporters, "kcm-1")
			},
			wantErr: []string{`features.features.k8s.io "x" is forbidden: kube-controller-manager may only change its own entries of status.uses, not status.uses[component=kube-scheduler,enabled=true]`},
		},
		{
			name: "kube-controller-manager adds an entry for kube-scheduler",
			user: kcm,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "kube-scheduler", Enabled: false, Reporters: []string{"kcm-1"}, FirstReportTime: t1})
			},
			wantErr: []string{"not status.uses[component=kube-scheduler,enabled=false]"},
		},
		{
			name: "kube-scheduler drops kube-apiserver's entry",
			user: scheduler,
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kube-apiserver", true)
			},
			wantErr: []string{"kube-scheduler may only change its own entries of status.uses, not status.uses[component=kube-apiserver,enabled=true]"},
		},
		{
			name: "kube-scheduler changes status.state",
			user: scheduler,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateTurningOff
			},
			wantErr: []string{`features.features.k8s.io "x" is forbidden: kube-scheduler may only change its own entries of status.uses, not status.state`},
		},
		{
			name: "kube-scheduler changes status.tasks",
			user: scheduler,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Tasks = []features.FeatureTask{{Name: "wait-for-uses"}}
			},
			wantErr: []string{"kube-scheduler may only change its own entries of status.uses, not status.tasks"},
		},
		{
			name: "kube-scheduler changes several fields",
			user: scheduler,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Default = boolPtr(false)
				f.Status.LockToDefault = true
				f.Status.UsesResetTime = &t1
				f.Status.Conditions = nil
				f.Status.ObservedGeneration = 2
				f.Status.PreRelease = features.FeaturePreReleaseGA
				f.Status.Version = "1.37"
			},
			wantErr: []string{"not status.default, status.preRelease, status.lockToDefault, status.version, status.usesResetTime, status.conditions, status.observedGeneration"},
		},
		{
			name: "kube-scheduler changes firstReportTime of its entry",
			user: scheduler,
			mutate: func(t *testing.T, f *features.Feature) {
				use(t, f, "kube-scheduler", true).FirstReportTime = t1
			},
			wantErr: []string{"not status.uses[component=kube-scheduler,enabled=true].firstReportTime"},
		},
		{
			name: "kube-scheduler writes semantically equal status",
			user: scheduler,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Tasks = []features.FeatureTask{} // nil and empty are the same
				f.Status.UsesResetTime = &metav1.Time{Time: t0.In(time.FixedZone("x", 3600))}
			},
		},
		{
			name:   "node foo adds identity foo",
			user:   nodeFoo,
			before: func(f *features.Feature) { dropUse(f, "kubelet", true) },
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "kubelet", Enabled: true, Reporters: []string{"foo"}, FirstReportTime: t1})
			},
		},
		{
			name: "node foo removes itself from an entry that lists others",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				use(t, f, "kubelet", false).Reporters = []string{"baz"}
			},
		},
		{
			name: "node qux adds itself to an entry that lists others",
			user: &user.DefaultInfo{Name: "system:node:qux", Groups: []string{user.NodesGroup}},
			mutate: func(t *testing.T, f *features.Feature) {
				u := use(t, f, "kubelet", true)
				u.Reporters = append(u.Reporters, "qux")
			},
		},
		{
			name: "node foo adds identity bar",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				u := use(t, f, "kubelet", true)
				u.Reporters = append(u.Reporters, "bar")
			},
			wantErr: []string{`node "foo" may only add or remove its own identity "foo" in status.uses[component=kubelet,enabled=true].reporters, not "bar"`},
		},
		{
			name: "node foo adds an entry for identity bar",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kubelet", true)
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "kubelet", Enabled: true, Reporters: []string{"bar"}, FirstReportTime: t1})
			},
			wantErr: []string{`its own identity "foo"`, `not "bar"`},
		},
		{
			name: "node foo removes identity baz",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				use(t, f, "kubelet", false).Reporters = []string{"foo"}
			},
			wantErr: []string{`status.uses[component=kubelet,enabled=false].reporters, not "baz"`},
		},
		{
			name: "node foo removes itself, dropping the entry",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kubelet", true)
			},
		},
		{
			name: "node foo drops an entry that still lists baz",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kubelet", false)
			},
			wantErr: []string{`not "baz"`},
		},
		{
			name: "node foo changes kube-controller-manager's entry",
			user: nodeFoo,
			mutate: func(t *testing.T, f *features.Feature) {
				use(t, f, "kube-controller-manager", true).Reporters = []string{"foo"}
			},
			wantErr: []string{"kubelet may only change its own entries of status.uses, not status.uses[component=kube-controller-manager,enabled=true]"},
		},
		{
			name: "a node user outside system:nodes is not a reporter",
			user: &user.DefaultInfo{Name: "system:node:foo", Groups: []string{user.AllAuthenticated}},
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kubelet", true)
			},
			wantErr: []string{`user "system:node:foo" is not a known feature reporter`},
		},
		{
			name: "unknown user",
			user: alice,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "alice", Enabled: true, Reporters: []string{"alice"}, FirstReportTime: t1})
			},
			wantErr: []string{`features.features.k8s.io "x" is forbidden: user "alice" is not a known feature reporter and may not change status`,
				"admission plugin's configuration"},
		},
		{
			name:   "unknown user changes nothing",
			user:   alice,
			mutate: func(t *testing.T, f *features.Feature) {},
		},
		{
			name: "system:apiserver changes state",
			user: apiserver,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateTurningOff
				f.Status.Tasks = []features.FeatureTask{{Name: "wait-for-uses"}}
				f.Status.Uses = nil
			},
		},
		{
			name: "system:apiserver is trusted by name",
			user: &user.DefaultInfo{Name: user.APIServerUser},
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateTurningOff
			},
		},
		{
			name: "system:masters admin changes state",
			user: admin,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateOff
				f.Status.Conditions = nil
			},
		},
		{
			name: "configured user adds its entry",
			user: fooSA,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "foo-controller", Enabled: true, Reporters: []string{"foo-7d9f"}, FirstReportTime: t1})
			},
		},
		{
			name: "configured user changes kube-scheduler's entry",
			user: fooSA,
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kube-scheduler", true)
			},
			wantErr: []string{"foo-controller may only change its own entries of status.uses, not status.uses[component=kube-scheduler,enabled=true]"},
		},
		{
			name: "configured group adds its entry",
			user: exampleC,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "example-controller", Enabled: false, Reporters: []string{"example-1"}, FirstReportTime: t1})
			},
		},
		{
			name: "configured group may not write another configured component",
			user: exampleC,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "foo-controller", Enabled: false, Reporters: []string{"example-1"}, FirstReportTime: t1})
			},
			wantErr: []string{"example-controller may only change its own entries of status.uses, not status.uses[component=foo-controller,enabled=false]"},
		},
		{
			name: "a mapping adds to a built-in reporter",
			user: &user.DefaultInfo{Name: user.KubeScheduler, Groups: []string{"example.com:controllers"}},
			mutate: func(t *testing.T, f *features.Feature) {
				dropUse(f, "kube-scheduler", true)
				f.Status.Uses = append(f.Status.Uses, features.FeatureUse{
					Component: "example-controller", Enabled: false, Reporters: []string{"example-1"}, FirstReportTime: t1})
			},
		},
		{
			name: "a mapping adds to a built-in reporter, but not state",
			user: &user.DefaultInfo{Name: user.KubeScheduler, Groups: []string{"example.com:controllers"}},
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateOff
			},
			wantErr: []string{"example-controller and kube-scheduler may only change their own entries of status.uses, not status.state"},
		},
		{
			name:        "an update of the main resource is not looked at",
			user:        alice,
			subresource: new(string),
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateOff
			},
		},
		{
			name:      "a create is not looked at",
			user:      alice,
			operation: admission.Create,
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateOff
			},
		},
		{
			name:     "another group's resource named features is not looked at",
			user:     alice,
			resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "features"},
			mutate: func(t *testing.T, f *features.Feature) {
				f.Status.State = features.FeatureStateOff
			},
		},
	}

	p, err := NewPlugin(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := testFeature()
			if tc.before != nil {
				tc.before(old)
			}
			obj := old.DeepCopy()
			tc.mutate(t, obj)
			resource, subresource, operation := featuresGVR, "status", admission.Update
			if tc.resource != (schema.GroupVersionResource{}) {
				resource = tc.resource
			}
			if tc.subresource != nil {
				subresource = *tc.subresource
			}
			if tc.operation != "" {
				operation = tc.operation
			}
			attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
				resource, subresource, operation, &metav1.UpdateOptions{}, false, tc.user)
			err := p.Validate(context.Background(), attrs, nil)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("expected an error containing %q", tc.wantErr)
			}
			if !apierrors.IsForbidden(err) {
				t.Errorf("expected a 403 Forbidden, got %v", err)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err.Error(), want)
				}
			}
		})
	}
}

func TestValidateOtherResources(t *testing.T) {
	p, err := NewPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := &api.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	newPod := pod.DeepCopy()
	newPod.Status.Phase = api.PodRunning
	attrs := admission.NewAttributesRecord(newPod, pod, api.Kind("Pod").WithVersion("v1"), "ns", "p",
		api.Resource("pods").WithVersion("v1"), "status", admission.Update, &metav1.UpdateOptions{}, false, alice)
	if err := p.Validate(context.Background(), attrs, nil); err != nil {
		t.Errorf("pods/status: unexpected error: %v", err)
	}

	// A features/status update whose objects are not Features is a bad request.
	attrs = admission.NewAttributesRecord(newPod, pod, featureGVK, "ns", "p",
		featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, alice)
	if err := p.Validate(context.Background(), attrs, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("expected a bad request, got %v", err)
	}
}

func TestHandles(t *testing.T) {
	p, err := NewPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []admission.Operation{admission.Delete, admission.Connect} {
		if p.Handles(op) {
			t.Errorf("handles %s", op)
		}
	}
	if !p.Handles(admission.Update) || !p.Handles(admission.Create) {
		t.Error("does not handle Create and Update")
	}
}

// TestFeatureRules covers the rules on the Feature itself: only known gates
// in kube-system, and no desiredState through the API for CommandLine
// Features, for everyone but kube-apiserver.
func TestFeatureRules(t *testing.T) {
	p, err := NewPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	p.knownGate = func(gate string) bool { return gate == "X" }
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}
	apiserver := &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}
	run := func(op admission.Operation, obj, old *features.Feature, u user.Info) error {
		var oldObj runtime.Object
		if old != nil {
			oldObj = old
		}
		attrs := admission.NewAttributesRecord(obj, oldObj, featureGVK, obj.Namespace, obj.Name,
			featuresGVR, "", op, nil, false, u)
		return p.Validate(context.Background(), attrs, nil)
	}

	unknown := testFeature()
	unknown.Name, unknown.Spec.Gate = "made-up", "MadeUp"
	if err := run(admission.Create, unknown, nil, admin); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `"MadeUp" is not known`) {
		t.Errorf("an unknown gate in kube-system: expected 403, got %v", err)
	}
	if err := run(admission.Create, unknown, nil, apiserver); err != nil {
		t.Errorf("kube-apiserver announcing: %v", err)
	}
	elsewhere := unknown.DeepCopy()
	elsewhere.Namespace = "example"
	if err := run(admission.Create, elsewhere, nil, admin); err != nil {
		t.Errorf("an unknown gate in a third party's namespace: %v", err)
	}
	if err := run(admission.Create, testFeature(), nil, admin); err != nil {
		t.Errorf("a known gate in kube-system: %v", err)
	}

	old := testFeature()
	flipped := old.DeepCopy()
	flipped.Spec.DesiredState = features.FeatureDesiredStateOff
	if err := run(admission.Update, flipped, old, admin); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.desiredState") {
		t.Errorf("setting desiredState of a CommandLine Feature: expected 403, got %v", err)
	}
	if err := run(admission.Update, flipped, old, apiserver); err != nil {
		t.Errorf("kube-apiserver setting desiredState: %v", err)
	}
	dynamic := flipped.DeepCopy()
	dynamic.Spec.Management = features.FeatureManagementDynamic
	if err := run(admission.Update, dynamic, old, admin); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.management") {
		t.Errorf("making a Feature in kube-system Dynamic (no flag opts it in): expected 403, got %v", err)
	}
	onlyManagement := old.DeepCopy()
	onlyManagement.Spec.Management = features.FeatureManagementDynamic
	if err := run(admission.Update, onlyManagement, old, admin); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.management") {
		t.Errorf("making a Feature in kube-system Dynamic first: expected 403, got %v", err)
	}
	if err := run(admission.Update, onlyManagement, old, apiserver); err != nil {
		t.Errorf("kube-apiserver setting management: %v", err)
	}
	createdDynamic := testFeature()
	createdDynamic.Spec.Management = features.FeatureManagementDynamic
	if err := run(admission.Create, createdDynamic, nil, admin); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.management") {
		t.Errorf("creating a Dynamic Feature in kube-system: expected 403, got %v", err)
	}
	// A third party's Features are its own: it may make one Dynamic and set
	// its desired state.
	theirs, theirsDynamic := old.DeepCopy(), dynamic.DeepCopy()
	theirs.Namespace, theirsDynamic.Namespace = "example", "example"
	if err := run(admission.Update, theirsDynamic, theirs, admin); err != nil {
		t.Errorf("making a third party's Feature Dynamic and setting desiredState: %v", err)
	}
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}
	if err := run(admission.Update, labelled, old, admin); err != nil {
		t.Errorf("a label change: %v", err)
	}
}

func TestLoadConfiguration(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		nilRead bool
		want    []ReporterMapping
		wantErr []string
	}{
		{name: "no config", nilRead: true},
		{name: "empty config", config: "  \n"},
		{
			name: "yaml",
			config: `
reporters:
- user: system:serviceaccount:foo:bar
  component: foo-controller
- group: example.com:controllers
  component: example-controller
`,
			want: testConfig.Reporters,
		},
		{
			name:   "json with type information",
			config: `{"apiVersion":"featurestatus.admission.k8s.io/v1alpha1","kind":"FeatureStatusConfiguration","reporters":[{"user":"u","component":"c"}]}`,
			want:   []ReporterMapping{{User: "u", Component: "c"}},
		},
		{
			name:    "empty component",
			config:  "reporters:\n- user: u\n",
			wantErr: []string{"reporters[0].component: required"},
		},
		{
			name:    "neither user nor group",
			config:  "reporters:\n- user: u\n  component: c\n- component: d\n",
			wantErr: []string{"reporters[1]: one of user or group is required"},
		},
		{
			name:    "both user and group",
			config:  "reporters:\n- user: u\n  group: g\n  component: c\n",
			wantErr: []string{"reporters[0]: only one of user or group may be set"},
		},
		{
			name:    "kube-apiserver is reserved",
			config:  "reporters:\n- user: u\n  component: kube-apiserver\n",
			wantErr: []string{`reporters[0].component: "kube-apiserver" is reserved`},
		},
		{
			name:    "invalid component",
			config:  "reporters:\n- group: g\n  component: Foo_Controller\n",
			wantErr: []string{`reporters[0].component: invalid value "Foo_Controller"`},
		},
		{
			name:    "unknown field",
			config:  "reporters:\n- user: u\n  compnent: c\n",
			wantErr: []string{"decoding the FeatureStatus configuration", "compnent"},
		},
		{
			name:    "wrong kind",
			config:  "kind: AdmissionConfiguration\n",
			wantErr: []string{`kind: must be "FeatureStatusConfiguration" or empty`},
		},
		{
			name:    "wrong apiVersion",
			config:  "apiVersion: v1\n",
			wantErr: []string{`apiVersion: must be "featurestatus.admission.k8s.io/v1alpha1" or empty`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cfg *Configuration
			var err error
			if tc.nilRead {
				cfg, err = LoadConfiguration(nil)
			} else {
				cfg, err = LoadConfiguration(strings.NewReader(tc.config))
			}
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("expected an error containing %q", tc.wantErr)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(cfg.Reporters) != len(tc.want) {
				t.Fatalf("got reporters %+v, want %+v", cfg.Reporters, tc.want)
			}
			for i := range tc.want {
				if cfg.Reporters[i] != tc.want[i] {
					t.Errorf("reporters[%d] = %+v, want %+v", i, cfg.Reporters[i], tc.want[i])
				}
			}
		})
	}
}

func TestNewPluginRejectsBadConfig(t *testing.T) {
	_, err := NewPlugin(&Configuration{Reporters: []ReporterMapping{{Component: "c"}}})
	if err == nil || !strings.Contains(err.Error(), "one of user or group is required") {
		t.Errorf("unexpected error: %v", err)
	}
}

// TestRegister goes through the admission configuration file and the
// plugin registry, as kube-apiserver does.
func TestRegister(t *testing.T) {
	plugins := admission.NewPlugins()
	Register(plugins, nil)
	if got := plugins.Registered(); !sets.New(got...).Has(PluginName) {
		t.Fatalf("registered %v", got)
	}

	scheme := runtime.NewScheme()
	apiserverinstall.Install(scheme)
	load := func(t *testing.T, file string) (admission.Interface, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "admission.yaml")
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		provider, err := admission.ReadAdmissionConfiguration([]string{PluginName}, path, scheme)
		if err != nil {
			t.Fatal(err)
		}
		config, err := provider.ConfigFor(PluginName)
		if err != nil {
			t.Fatal(err)
		}
		return plugins.InitPlugin(PluginName, config, admission.PluginInitializers{})
	}

	t.Run("good", func(t *testing.T) {
		plugin, err := load(t, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: FeatureStatus
  configuration:
    reporters:
    - user: system:serviceaccount:foo:bar
      component: foo-controller
`)
		if err != nil {
			t.Fatal(err)
		}
		old := testFeature()
		obj := old.DeepCopy()
		obj.Status.Uses = append(obj.Status.Uses, features.FeatureUse{
			Component: "foo-controller", Enabled: true, Reporters: []string{"foo-1"}, FirstReportTime: t1})
		attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
			featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, fooSA)
		if err := plugin.(admission.ValidationInterface).Validate(context.Background(), attrs, nil); err != nil {
			t.Errorf("unexpected error: %v", err)
		}
	})

	t.Run("none", func(t *testing.T) {
		plugin, err := plugins.InitPlugin(PluginName, nil, admission.PluginInitializers{})
		if err != nil || plugin == nil {
			t.Fatalf("got %v, %v", plugin, err)
		}
	})

	t.Run("bad", func(t *testing.T) {
		_, err := load(t, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: FeatureStatus
  configuration:
    reporters:
    - component: foo-controller
`)
		if err == nil || !strings.Contains(err.Error(), "one of user or group is required") {
			t.Errorf("expected the bad configuration to be rejected, got %v", err)
		}
	})
}

func TestRecommendedOrder(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{
			in:   []string{"NamespaceLifecycle", "NodeRestriction", "TaintNodesByCondition", "ValidatingAdmissionWebhook"},
			want: []string{"NamespaceLifecycle", "NodeRestriction", PluginName, "TaintNodesByCondition", "ValidatingAdmissionWebhook"},
		},
		{
			in:   []string{"NamespaceLifecycle", "MutatingAdmissionPolicy", "ValidatingAdmissionWebhook"},
			want: []string{"NamespaceLifecycle", PluginName, "MutatingAdmissionPolicy", "ValidatingAdmissionWebhook"},
		},
		{in: []string{"A"}, want: []string{"A", PluginName}},
		{in: nil, want: []string{PluginName}},
		{in: []string{PluginName, "NodeRestriction"}, want: []string{PluginName, "NodeRestriction"}},
	}
	for _, tc := range tests {
		in := slices.Clone(tc.in)
		if got := RecommendedOrder(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("RecommendedOrder(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("RecommendedOrder modified its input %v", in)
		}
	}
}
