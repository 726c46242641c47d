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
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	"k8s.io/apiserver/pkg/authorization/authorizer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubefeatures "k8s.io/kubernetes/pkg/features"

	"k8s.io/kubernetes/pkg/apis/features"
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
			DesiredState: features.FeatureDesiredStateEnabled,
			Management:   features.FeatureManagementCommandLine,
		},
		Status: features.FeatureStatus{
			State:      features.FeatureStateEnabled,
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

// TestValidateStatus: only kube-apiserver (and superusers) write the status
// of a Feature; reporters write their FeatureReport, which kube-apiserver
// aggregates into status.uses.
func TestValidateStatus(t *testing.T) {
	p, err := enabledPlugin(t, testConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		user    user.Info
		mutate  func(f *features.Feature)
		allowed bool
	}{
		{"kube-apiserver changes the state", apiserver, func(f *features.Feature) { f.Status.State = features.FeatureStateDisabling }, true},
		{"a superuser changes the uses", admin, func(f *features.Feature) { f.Status.Uses = f.Status.Uses[:1] }, true},
		{"kube-controller-manager adds its entry", kcm, func(f *features.Feature) {
			f.Status.Uses = append(f.Status.Uses, features.FeatureUse{Component: "kube-controller-manager", Enabled: false, Reporters: []string{"kcm-2"}, FirstReportTime: t1})
		}, false},
		{"kube-controller-manager changes the scheduler's entry", kcm, func(f *features.Feature) {
			use(t, f, "kube-scheduler", true).Reporters = []string{"scheduler-2"}
		}, false},
		{"a node adds itself", nodeFoo, func(f *features.Feature) {
			use(t, f, "kubelet", true).Reporters = []string{"foo", "bar"}
		}, false},
		{"a configured reporter changes the state", fooSA, func(f *features.Feature) { f.Status.State = features.FeatureStateDisabled }, false},
		{"a user who is no reporter", alice, func(f *features.Feature) { dropUse(f, "kubelet", false) }, false},
		{"a reporter writes status unchanged", kcm, func(f *features.Feature) {}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := testFeature()
			obj := old.DeepCopy()
			tc.mutate(obj)
			attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
				featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, tc.user)
			err := p.Validate(context.Background(), attrs, nil)
			if tc.allowed {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "only kube-apiserver writes the status of a Feature") ||
				!strings.Contains(err.Error(), "FeatureReport") {
				t.Fatalf("want a 403 that points to FeatureReports, got %v", err)
			}
		})
	}
}

var (
	reportsGVR = schema.GroupVersionResource{Group: features.GroupName, Version: "v1alpha1", Resource: "featurereports"}
	reportGVK  = schema.GroupVersionKind{Group: features.GroupName, Version: "v1alpha1", Kind: "FeatureReport"}
)

func testReport(component, identity string, lease *features.FeatureReportLease) *features.FeatureReport {
	return &features.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: component + "." + identity, Namespace: "kube-system"},
		Spec: features.FeatureReportSpec{Component: component, Identity: identity, HolderLease: lease,
			Gates: []features.FeatureReportGate{{Name: "X", Enabled: true}}},
	}
}

// TestValidateReports: a reporter writes only its own report, a node only
// the one of its own name, naming no lease but its own node lease.
func TestValidateReports(t *testing.T) {
	p, err := enabledPlugin(t, testConfig)
	if err != nil {
		t.Fatal(err)
	}
	nodeLease := func(name string) *features.FeatureReportLease {
		return &features.FeatureReportLease{Namespace: "kube-node-lease", Name: name}
	}
	for _, tc := range []struct {
		name    string
		user    user.Info
		report  *features.FeatureReport
		ops     []admission.Operation
		wantErr string // "" when allowed
	}{
		{"kube-controller-manager writes its report", kcm, testReport("kube-controller-manager", "host-1", nil), nil, ""},
		{"kube-scheduler writes its report", scheduler, testReport("kube-scheduler", "host-1", nil), nil, ""},
		{"kube-controller-manager writes the scheduler's report", kcm, testReport("kube-scheduler", "host-1", nil), nil,
			`kube-controller-manager may only write its own FeatureReport, not one of component "kube-scheduler"`},
		{"a node writes its report", nodeFoo, testReport("kubelet", "foo", nodeLease("foo")), nil, ""},
		{"a node writes its report without a lease", nodeFoo, testReport("kubelet", "foo", nil), nil, ""},
		{"a node writes another node's report", nodeFoo, testReport("kubelet", "bar", nodeLease("bar")), nil,
			`node "foo" may only write the FeatureReport of its own identity "foo", not of "bar"`},
		{"a node names another node's lease", nodeFoo, testReport("kubelet", "foo", nodeLease("bar")), nil,
			`node "foo" may only name its own node lease kube-node-lease/foo as spec.holderLease, not kube-node-lease/bar`},
		{"a node names an identity lease", nodeFoo, testReport("kubelet", "foo", &features.FeatureReportLease{Namespace: "kube-system", Name: "apiserver-x"}), nil,
			`may only name its own node lease`},
		{"a node writes a scheduler's report", nodeFoo, testReport("kube-scheduler", "foo", nil), nil,
			`kubelet may only write its own FeatureReport, not one of component "kube-scheduler"`},
		{"a configured user writes its component's report", fooSA, testReport("foo-controller", "pod-1", nil), nil, ""},
		{"a configured group member writes its component's report", exampleC, testReport("example-controller", "pod-1", nil), nil, ""},
		{"a configured user writes kube-apiserver's report", fooSA, testReport("kube-apiserver", "apiserver-x", nil), nil,
			`only kube-apiserver writes the FeatureReports of component "kube-apiserver"`},
		{"kube-apiserver writes its report", apiserver, testReport("kube-apiserver", "apiserver-x", nil), nil, ""},
		{"a superuser deletes a node's report", admin, testReport("kubelet", "bar", nil), []admission.Operation{admission.Delete}, ""},
		{"a user who is no reporter", alice, testReport("kubelet", "alice", nil), nil, `user "alice" is not a known feature reporter`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := tc.ops
			if ops == nil {
				ops = []admission.Operation{admission.Create, admission.Update, admission.Delete}
			}
			for _, op := range ops {
				var obj, old runtime.Object
				var opts runtime.Object = &metav1.CreateOptions{}
				switch op {
				case admission.Create:
					obj = tc.report
				case admission.Update:
					obj, old, opts = tc.report, tc.report.DeepCopy(), &metav1.UpdateOptions{}
				case admission.Delete:
					old, opts = tc.report, &metav1.DeleteOptions{}
				}
				attrs := admission.NewAttributesRecord(obj, old, reportGVK, tc.report.Namespace, tc.report.Name,
					reportsGVR, "", op, opts, false, tc.user)
				err := p.Validate(context.Background(), attrs, nil)
				if tc.wantErr == "" {
					if err != nil {
						t.Fatalf("%s: unexpected error: %v", op, err)
					}
					continue
				}
				if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: want a 403 containing %q, got %v", op, tc.wantErr, err)
				}
			}
		})
	}
}

// reportAuthorizer allows ReportVerb on featurereports named by component
// in namespace for user, as a Role and RoleBinding there would, and
// records what it was asked.
type reportAuthorizer struct {
	user, namespace, component string
	err                        error
	asked                      []authorizer.Attributes
}

func (a *reportAuthorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	a.asked = append(a.asked, attrs)
	if a.err != nil {
		return authorizer.DecisionNoOpinion, "", a.err
	}
	if attrs.GetUser().GetName() == a.user && attrs.GetVerb() == ReportVerb && attrs.GetAPIGroup() == "features.k8s.io" &&
		attrs.GetResource() == "featurereports" && attrs.GetNamespace() == a.namespace && attrs.GetName() == a.component && attrs.IsResourceRequest() {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no RBAC rule allows it", nil
}

// TestReportersByRBAC: a third party's reporter, in no list, writes the
// reports of the component RBAC lets it report as, in the namespace RBAC
// lets it, and no others; a built-in reporter gains components the same
// way.
func TestReportersByRBAC(t *testing.T) {
	operator := &user.DefaultInfo{Name: "system:serviceaccount:tenant-a:my-operator", Groups: []string{"system:serviceaccounts", user.AllAuthenticated}}
	in := func(namespace string, r *features.FeatureReport) *features.FeatureReport {
		r.Namespace = namespace
		return r
	}
	for _, tc := range []struct {
		name    string
		user    user.Info
		report  *features.FeatureReport
		authErr error
		wantErr string // "" when allowed
	}{
		{"its component in its namespace", operator, in("tenant-a", testReport("my-operator", "pod-1", nil)), nil, ""},
		{"another component in its namespace", operator, in("tenant-a", testReport("other-operator", "pod-1", nil)), nil,
			`user "system:serviceaccount:tenant-a:my-operator" is not a known feature reporter and may not report as component "other-operator" in namespace "tenant-a": grant it the verb "report" on featurereports.features.k8s.io named "other-operator" in that namespace (a Role with resourceNames: [other-operator]), besides get, create and patch (no RBAC rule allows it)`},
		{"its component in another namespace", operator, in("tenant-b", testReport("my-operator", "pod-1", nil)), nil,
			`may not report as component "my-operator" in namespace "tenant-b"`},
		{"kube-apiserver's component", operator, in("tenant-a", testReport("kube-apiserver", "pod-1", nil)), nil,
			`only kube-apiserver writes the FeatureReports of component "kube-apiserver"`},
		{"the authorizer fails", operator, in("tenant-a", testReport("my-operator", "pod-1", nil)), errors.New("webhook unreachable"),
			`could not decide whether "system:serviceaccount:tenant-a:my-operator" may report as component "my-operator": webhook unreachable`},
		{"a built-in reporter as another component", kcm, in("tenant-a", testReport("other-operator", "host-1", nil)), nil,
			`kube-controller-manager may only write its own FeatureReport, not one of component "other-operator" (no RBAC rule allows it)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := enabledPlugin(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			authz := &reportAuthorizer{user: operator.Name, namespace: "tenant-a", component: "my-operator", err: tc.authErr}
			p.SetAuthorizer(authorizer.AuthorizerFunc(authz.Authorize))
			for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete} {
				var obj, old runtime.Object
				switch op {
				case admission.Create:
					obj = tc.report
				case admission.Update:
					obj, old = tc.report, tc.report.DeepCopy()
				case admission.Delete:
					old = tc.report
				}
				attrs := admission.NewAttributesRecord(obj, old, reportGVK, tc.report.Namespace, tc.report.Name,
					reportsGVR, "", op, nil, false, tc.user)
				err := p.Validate(context.Background(), attrs, nil)
				if tc.wantErr == "" {
					if err != nil {
						t.Fatalf("%s: unexpected error: %v", op, err)
					}
					continue
				}
				if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: want a 403 containing %q, got %v", op, tc.wantErr, err)
				}
			}
			if tc.report.Spec.Component != "kube-apiserver" && len(authz.asked) != 3 {
				t.Errorf("the authorizer was asked %d times for 3 writes", len(authz.asked))
			}
		})
	}

	// Without an authorizer (a plugin not yet initialized), nobody in no
	// list reports.
	p, err := enabledPlugin(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := in("tenant-a", testReport("my-operator", "pod-1", nil))
	attrs := admission.NewAttributesRecord(r, nil, reportGVK, r.Namespace, r.Name, reportsGVR, "", admission.Create, nil, false, operator)
	if err := p.Validate(context.Background(), attrs, nil); !apierrors.IsForbidden(err) {
		t.Errorf("without an authorizer: want 403, got %v", err)
	}
}

func TestValidateOtherResources(t *testing.T) {
	p, err := enabledPlugin(t, nil)
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
	p, err := enabledPlugin(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Handles(admission.Connect) {
		t.Errorf("handles %s", admission.Connect)
	}
	if !p.Handles(admission.Update) || !p.Handles(admission.Create) || !p.Handles(admission.Delete) {
		t.Error("does not handle Create, Update and Delete (of reports)")
	}
}

// TestFeatureRules covers the rules on the Feature itself: only known gates
// in kube-system, and no desiredState through the API for CommandLine
// Features, for everyone but kube-apiserver.
func TestFeatureRules(t *testing.T) {
	p, err := enabledPlugin(t, nil)
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
	flipped.Spec.DesiredState = features.FeatureDesiredStateDisabled
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

	// Central: desired state follows the apiservers' flags; Dynamic (which
	// kube-apiserver set from its flags): whoever RBAC lets update Features
	// sets it.
	central := old.DeepCopy()
	central.Spec.Management = features.FeatureManagementCentral
	centralOff := central.DeepCopy()
	centralOff.Spec.DesiredState = features.FeatureDesiredStateDisabled
	if err := run(admission.Update, centralOff, central, admin); !apierrors.IsForbidden(err) ||
		!strings.Contains(err.Error(), "managed by Central follows the kube-apiservers' --feature-gates") ||
		!strings.Contains(err.Error(), "--feature-lifecycle-dynamic-gates") {
		t.Errorf("setting desiredState of a Central Feature: expected 403 saying why, got %v", err)
	}
	optedIn := old.DeepCopy()
	optedIn.Spec.Management = features.FeatureManagementDynamic
	optedInOff := optedIn.DeepCopy()
	optedInOff.Spec.DesiredState = features.FeatureDesiredStateDisabled
	if err := run(admission.Update, optedInOff, optedIn, admin); err != nil {
		t.Errorf("setting desiredState of a Dynamic Feature: %v", err)
	}
	if err := run(admission.Update, optedIn, optedInOff, alice); err != nil {
		t.Errorf("anyone RBAC lets update Features sets a Dynamic desired state: %v", err)
	}
	toCentral := optedIn.DeepCopy()
	toCentral.Spec.Management = features.FeatureManagementCentral
	if err := run(admission.Update, toCentral, optedIn, admin); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "--feature-lifecycle-central-gates") {
		t.Errorf("changing the management of a Feature in kube-system: expected 403 saying the flags decide, got %v", err)
	}
	// A third party's Central Feature takes its desired state from the API
	// (its components apply it when they restart); a CommandLine one does not.
	theirsCentral, theirsCentralOff := central.DeepCopy(), centralOff.DeepCopy()
	theirsCentral.Namespace, theirsCentralOff.Namespace = "example", "example"
	if err := run(admission.Update, theirsCentralOff, theirsCentral, alice); err != nil {
		t.Errorf("setting desiredState of a third party's Central Feature: %v", err)
	}
	theirsFlipped := flipped.DeepCopy()
	theirsFlipped.Namespace = "example"
	if err := run(admission.Update, theirsFlipped, theirs, alice); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "set spec.management to Central or Dynamic") {
		t.Errorf("setting desiredState of a third party's CommandLine Feature: expected 403 saying how, got %v", err)
	}

	// A declaration of one of Kubernetes' own gates, in a tenant's
	// namespace, is refused on create and on update; of its own gate, it is
	// its own business.
	declaredX := elsewhere.DeepCopy()
	declaredX.Name, declaredX.Spec.Gate = "x", "X"
	declaredX.Spec.Declaration = &features.FeatureDeclaration{PreRelease: features.FeaturePreReleaseAlpha}
	for _, tc := range []struct {
		op       admission.Operation
		obj, old *features.Feature
	}{{admission.Create, declaredX, nil}, {admission.Update, declaredX, elsewhere}} {
		if err := run(tc.op, tc.obj, tc.old, admin); !apierrors.IsForbidden(err) ||
			!strings.Contains(err.Error(), `spec.declaration: gate "X" is one of Kubernetes' own gates, declared by kube-apiserver in kube-system/x`) {
			t.Errorf("%s: declaring kube-system's gate X in a tenant's namespace: expected 403 naming the field, got %v", tc.op, err)
		}
	}
	declaredOwn := elsewhere.DeepCopy()
	declaredOwn.Spec.Declaration = &features.FeatureDeclaration{PreRelease: features.FeaturePreReleaseAlpha}
	if err := run(admission.Create, declaredOwn, nil, alice); err != nil {
		t.Errorf("declaring its own gate: %v", err)
	}
}

// TestOwnedTasks: a component's reporter (RBAC's "report" on featurereports
// named after it, in the Feature's namespace) marks the tasks it owns done
// and writes their message and progress; nothing else of status, no task
// kube-apiserver runs, and no task another component owns.
func TestOwnedTasks(t *testing.T) {
	operator := &user.DefaultInfo{Name: "system:serviceaccount:tenant-a:my-operator", Groups: []string{"system:serviceaccounts", user.AllAuthenticated}}
	other := &user.DefaultInfo{Name: "system:serviceaccount:tenant-a:other", Groups: []string{"system:serviceaccounts", user.AllAuthenticated}}
	base := func() *features.Feature {
		f := testFeature()
		f.Namespace, f.Name, f.Spec.Gate = "tenant-a", "widgets", "Widgets"
		f.Status.Tasks = []features.FeatureTask{
			{Name: "wait-for-uses"},
			{Name: "migrate-widgets", Owner: "my-operator"},
			{Name: "drain-queue", Owner: "queue-worker"},
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		user    user.Info
		mutate  func(f *features.Feature)
		wantErr string // "" when allowed
	}{
		{"the owner marks its task done", operator, func(f *features.Feature) { f.Status.Tasks[1].Done = true }, ""},
		{"the owner reports progress", operator, func(f *features.Feature) {
			f.Status.Tasks[1].Progress, f.Status.Tasks[1].Message = "3/10", "migrating"
		}, ""},
		{"another user marks it done", other, func(f *features.Feature) { f.Status.Tasks[1].Done = true },
			`status.tasks[1]: user "system:serviceaccount:tenant-a:other" may not complete task "migrate-widgets": it is owned by component "my-operator", whose reporters are authorized for the verb "report" on featurereports.features.k8s.io named "my-operator" in namespace "tenant-a" (no RBAC rule allows it)`},
		{"the owner marks another component's task done", operator, func(f *features.Feature) { f.Status.Tasks[2].Done = true },
			`status.tasks[2]: user "system:serviceaccount:tenant-a:my-operator" may not complete task "drain-queue": it is owned by component "queue-worker"`},
		{"the owner writes a task kube-apiserver runs", operator, func(f *features.Feature) { f.Status.Tasks[0].Message = "done, trust me" },
			`status.tasks[0]: task "wait-for-uses" is run by kube-apiserver, not by a component`},
		{"the owner writes its task's checkpoint", operator, func(f *features.Feature) { f.Status.Tasks[1].Checkpoint = "x" },
			`status.tasks[1]: the owner of task "migrate-widgets" may set only its done, message and progress`},
		{"the owner drops a task", operator, func(f *features.Feature) { f.Status.Tasks = f.Status.Tasks[:2] },
			`status.tasks: only kube-apiserver writes the status of a Feature`},
		{"the owner changes the state", operator, func(f *features.Feature) {
			f.Status.Tasks[1].Done = true
			f.Status.State = features.FeatureStateDisabled
		}, `status: only kube-apiserver writes the status of a Feature`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := enabledPlugin(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			authz := &reportAuthorizer{user: operator.Name, namespace: "tenant-a", component: "my-operator"}
			p.SetAuthorizer(authorizer.AuthorizerFunc(authz.Authorize))
			old := base()
			obj := old.DeepCopy()
			tc.mutate(obj)
			attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
				featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, tc.user)
			err = p.Validate(context.Background(), attrs, nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want a 403 containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}

// TestAdmitRecordsWhoSetDesiredState: a change of desiredState through the
// API is annotated with who made it and the generation it makes, so that
// kube-apiserver names them in an event; kube-apiserver's own are not.
func TestAdmitRecordsWhoSetDesiredState(t *testing.T) {
	p, err := enabledPlugin(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := testFeature()
	old.Spec.Management = features.FeatureManagementDynamic
	old.Generation = 4
	admit := func(obj *features.Feature, u user.Info) {
		attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name, featuresGVR, "", admission.Update, nil, false, u)
		if err := p.Admit(context.Background(), attrs, nil); err != nil {
			t.Fatal(err)
		}
	}
	off := old.DeepCopy()
	off.Spec.DesiredState = features.FeatureDesiredStateDisabled
	admit(off, alice)
	if got := off.Annotations["features.k8s.io/desired-state-set-by"]; got != "alice (generation 5)" {
		t.Errorf("annotation %q, want alice (generation 5)", got)
	}
	byAPIServer := old.DeepCopy()
	byAPIServer.Spec.DesiredState = features.FeatureDesiredStateDisabled
	admit(byAPIServer, apiserver)
	if _, ok := byAPIServer.Annotations["features.k8s.io/desired-state-set-by"]; ok {
		t.Error("kube-apiserver's own changes are not annotated")
	}
	same := old.DeepCopy()
	same.Labels = map[string]string{"a": "b"}
	admit(same, alice)
	if _, ok := same.Annotations["features.k8s.io/desired-state-set-by"]; ok {
		t.Error("a change that leaves desiredState alone is not annotated")
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
	Register(plugins)
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
		return plugins.InitPlugin(PluginName, config, admission.PluginInitializers{gateInitializer{lifecycleGate(t, true)}})
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
		report := testReport("foo-controller", "foo-1", nil)
		attrs := admission.NewAttributesRecord(report, nil, reportGVK, report.Namespace, report.Name,
			reportsGVR, "", admission.Create, &metav1.CreateOptions{}, false, fooSA)
		if err := plugin.(admission.ValidationInterface).Validate(context.Background(), attrs, nil); err != nil {
			t.Errorf("the configured user writes its component's report: unexpected error: %v", err)
		}
	})

	t.Run("none", func(t *testing.T) {
		plugin, err := plugins.InitPlugin(PluginName, nil, admission.PluginInitializers{gateInitializer{lifecycleGate(t, true)}})
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

// TestOffWithoutTheGate checks that with the FeatureLifecycle gate off the
// plugin admits what it would refuse with the gate on.
func TestOffWithoutTheGate(t *testing.T) {
	report := testReport("kube-apiserver", "somebody-else", nil)
	attrs := admission.NewAttributesRecord(report, nil, reportGVK, report.Namespace, report.Name,
		reportsGVR, "", admission.Create, &metav1.CreateOptions{}, false, fooSA)
	for _, on := range []bool{true, false} {
		p, err := NewPlugin(testConfig)
		if err != nil {
			t.Fatal(err)
		}
		p.InspectFeatureGates(lifecycleGate(t, on))
		if err := p.ValidateInitialization(); err != nil {
			t.Fatal(err)
		}
		err = p.Validate(context.Background(), attrs, nil)
		if on && !apierrors.IsForbidden(err) {
			t.Errorf("with FeatureLifecycle on: got %v, want forbidden", err)
		}
		if !on && err != nil {
			t.Errorf("with FeatureLifecycle off the plugin must admit everything, got %v", err)
		}
	}
}

// lifecycleGate returns a copy of the default feature gate with
// FeatureLifecycle set to on.
func lifecycleGate(t *testing.T, on bool) featuregate.FeatureGate {
	t.Helper()
	gate := utilfeature.DefaultFeatureGate.DeepCopy()
	if err := gate.SetFromMap(map[string]bool{string(kubefeatures.FeatureLifecycle): on}); err != nil {
		t.Fatal(err)
	}
	return gate
}

// enabledPlugin is NewPlugin with the FeatureLifecycle gate on.
func enabledPlugin(t *testing.T, cfg *Configuration) (*Plugin, error) {
	p, err := NewPlugin(cfg)
	if err == nil {
		p.InspectFeatureGates(lifecycleGate(t, true))
	}
	return p, err
}

// gateInitializer tells plugins the feature gate, as kube-apiserver's
// generic initializer does.
type gateInitializer struct{ gate featuregate.FeatureGate }

func (i gateInitializer) Initialize(plugin admission.Interface) {
	if w, ok := plugin.(interface {
		InspectFeatureGates(featuregate.FeatureGate)
	}); ok {
		w.InspectFeatureGates(i.gate)
	}
}

// TestRolloutRule: spec.rollout only on a Dynamic Feature of kube-system
// whose gate can canary on nodes, with the reason in the error otherwise.
func TestRolloutRule(t *testing.T) {
	p, err := enabledPlugin(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.knownGate = func(string) bool { return true }
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}
	run := func(obj, old *features.Feature) error {
		attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
			featuresGVR, "", admission.Update, nil, false, admin)
		return p.Validate(context.Background(), attrs, nil)
	}
	old := testFeature()
	old.Spec.Management = features.FeatureManagementDynamic
	rolling := old.DeepCopy()
	rolling.Spec.Rollout = &features.FeatureRollout{}
	if err := run(rolling, old); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "no gate can roll out in steps") {
		t.Errorf("without canaries: expected 403, got %v", err)
	}
	p.canCanary = func(gate string, bySelector bool) error {
		if gate != old.Spec.Gate {
			return fmt.Errorf("%s cannot be rolled out in steps", gate)
		}
		if bySelector {
			return fmt.Errorf("%s canaries on apiservers, which have no labels", gate)
		}
		return nil
	}
	if err := run(rolling, old); err != nil {
		t.Errorf("a Dynamic Feature whose gate can canary: %v", err)
	}
	bySelector := rolling.DeepCopy()
	bySelector.Spec.Rollout.Steps = []features.FeatureRolloutStep{{Count: 1}, {Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}}}
	if err := run(bySelector, old); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.rollout: "+old.Spec.Gate+" canaries on apiservers, which have no labels") {
		t.Errorf("a step by label where the gate canaries on apiservers: expected 403, got %v", err)
	}
	other := rolling.DeepCopy()
	other.Spec.Gate, other.Name = "Other", "other"
	if err := run(other, old); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "Other cannot be rolled out in steps") {
		t.Errorf("a gate that cannot canary: expected 403, got %v", err)
	}
	commandLine := rolling.DeepCopy()
	commandLine.Spec.Management = features.FeatureManagementCommandLine
	oldCommandLine := old.DeepCopy()
	oldCommandLine.Spec.Management = features.FeatureManagementCommandLine
	if err := run(commandLine, oldCommandLine); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "only a Dynamic Feature") {
		t.Errorf("a CommandLine Feature: expected 403, got %v", err)
	}
	theirs := rolling.DeepCopy()
	theirs.Namespace = "example"
	oldTheirs := old.DeepCopy()
	oldTheirs.Namespace = "example"
	if err := run(theirs, oldTheirs); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "third parties") {
		t.Errorf("a third party's Feature: expected 403, got %v", err)
	}
}

func TestTargetsAreKubeAPIServers(t *testing.T) {
	p, err := enabledPlugin(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	target := &features.FeatureTarget{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-deletion-cost", Namespace: "kube-system"},
		Spec: features.FeatureTargetSpec{Gate: "PodDeletionCost", Management: features.FeatureManagementDynamic,
			DesiredState: features.FeatureDesiredStateEnabled},
	}
	gvr := schema.GroupVersionResource{Group: features.GroupName, Version: "v1alpha1", Resource: "featuretargets"}
	gvk := schema.GroupVersionKind{Group: features.GroupName, Version: "v1alpha1", Kind: "FeatureTarget"}
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete} {
		for _, u := range []*user.DefaultInfo{apiserver, admin, kcm, alice} {
			attrs := admission.NewAttributesRecord(target, target, gvk, "kube-system", target.Name, gvr, "", op, nil, false, u)
			err := p.Validate(context.Background(), attrs, nil)
			if u == apiserver || u == admin {
				if err != nil {
					t.Errorf("%s by %s: %v", op, u.Name, err)
				}
				continue
			}
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "derives its target from the Feature") {
				t.Errorf("%s by %s: want a 403 naming where targets come from, got %v", op, u.Name, err)
			}
		}
	}
}
