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

package reporting

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-base/featuregate"
	"k8s.io/features/options"
	featuretasks "k8s.io/features/tasks"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/test/integration/authutil"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// reporterRole is what a third party's operator needs to report its gates
// in its namespace: read its Features and their targets, write its
// reports, and report as its component (the verb "report" on
// featurereports named after it).
func reporterRole(namespace, component string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: component + "-feature-reporter", Namespace: namespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"features.k8s.io"}, Resources: []string{"features", "featuretargets"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"features.k8s.io"}, Resources: []string{"featurereports"}, Verbs: []string{"get", "create", "update", "patch"}},
			{APIGroups: []string{"features.k8s.io"}, Resources: []string{"featurereports"}, Verbs: []string{"report"}, ResourceNames: []string{component}},
		},
	}
}

// TestThirdPartyReporter: an operator that uses component-base's feature
// gate reports its own gates in its own namespace with k8s.io/features, in
// no list of the FeatureStatus plugin: RBAC in that namespace decides that
// it reports as its component, and it cannot write the reports of another
// component there, nor reports in another namespace. A Dynamic Feature the
// tenant declares for one of its gates is led by kube-apiserver: the
// operator follows it, and it turns off once the operator reports it off.
func TestThirdPartyReporter(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	admin := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	const (
		tenant    = "tenant-a"
		other     = "tenant-b"
		component = "my-operator"
		operator  = "system:serviceaccount:tenant-a:my-operator"
	)
	for _, ns := range []string{tenant, other} {
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	role := reporterRole(tenant, component)
	if _, err := admin.RbacV1().Roles(tenant).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: tenant},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: component, Namespace: tenant}},
	}
	if _, err := admin.RbacV1().RoleBindings(tenant).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	granted(ctx, t, admin, role, component)
	config := restclient.CopyConfig(apiserver.ClientConfig())
	config.Impersonate = restclient.ImpersonationConfig{UserName: operator,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + tenant, "system:authenticated"}}
	client := kubernetes.NewForConfigOrDie(config)

	// The operator's own gates: MyGate set by its flags, MyDynamicGate
	// left to follow its Feature.
	const myGate, dynamicGate = featuregate.Feature("MyGate"), featuregate.Feature("MyDynamicGate")
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(map[featuregate.Feature]featuregate.FeatureSpec{
		myGate:      {Default: false, PreRelease: featuregate.Alpha},
		dynamicGate: {Default: false, PreRelease: featuregate.Alpha},
	}); err != nil {
		t.Fatal(err)
	}
	// The tenant's admin declares the Feature of MyDynamicGate, Dynamic and
	// desired Enabled, before the operator starts.
	dynamic, err := admin.FeaturesV1alpha1().Features(tenant).Create(ctx, &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureName(string(dynamicGate)), Namespace: tenant},
		Spec: featuresv1alpha1.FeatureSpec{Gate: string(dynamicGate), Management: featuresv1alpha1.FeatureManagementDynamic,
			DesiredState: featuresv1alpha1.FeatureDesiredStateEnabled},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := gate.SetFromMap(map[string]bool{string(myGate): true}); err != nil {
		t.Fatal(err)
	}

	// Adopting reporting: these are the lines an operator adds.
	reporting, stop := context.WithCancel(ctx)
	defer stop()
	fl := &options.Options{}
	if err := fl.Start(reporting, gate, client, options.Component{Name: component, Namespace: tenant, Identity: "pod-1"}); err != nil {
		t.Fatalf("starting the reporter: %v", err)
	}

	if !gate.Enabled(myGate) {
		t.Fatal("MyGate is off")
	}
	// It follows the Feature's target, which the Feature's leader
	// publishes once it has seen the new Feature. Read on a copy: a query
	// before then would report the gate's default as the operator's use.
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return gate.DeepCopy().Enabled(dynamicGate), nil
	}); err != nil {
		t.Fatal("MyDynamicGate does not follow its Feature, desired Enabled")
	}
	if !gate.Enabled(dynamicGate) {
		t.Fatal("MyDynamicGate is off")
	}
	var got *featuresv1alpha1.FeatureReport
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = admin.FeaturesV1alpha1().FeatureReports(tenant).Get(ctx, component+".pod-1", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		enabled := 0
		for _, g := range got.Spec.Gates {
			if (g.Name == string(myGate) || g.Name == string(dynamicGate)) && g.Enabled {
				enabled++
			}
		}
		return enabled == 2, nil
	}); err != nil {
		t.Fatalf("the operator's report in %s does not say MyGate and MyDynamicGate are on: %+v", tenant, got)
	}

	// kube-apiserver leads the tenant's Dynamic Feature: Enabled with the
	// operator's use; asked Disabled, Disabling until the operator, which
	// follows it, reports it off, then Disabled.
	waitForState := func(want featuresv1alpha1.FeatureState) *featuresv1alpha1.Feature {
		t.Helper()
		var f *featuresv1alpha1.Feature
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			gate.Enabled(dynamicGate) // the operator keeps using it
			var err error
			f, err = admin.FeaturesV1alpha1().Features(tenant).Get(ctx, dynamic.Name, metav1.GetOptions{})
			return err == nil && f.Status.State == want && f.Status.ObservedGeneration == f.Generation, nil
		}); err != nil {
			t.Fatalf("the tenant's Feature is not %s: %+v", want, f)
		}
		return f
	}
	f := waitForState(featuresv1alpha1.FeatureStateEnabled)
	// Its leader aggregates the report into the uses on its next pass.
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := admin.FeaturesV1alpha1().Features(tenant).Get(ctx, dynamic.Name, metav1.GetOptions{})
		if err == nil {
			f = got
		}
		return err == nil && len(f.Status.Uses) > 0, nil
	})
	if len(f.Status.Uses) != 1 || f.Status.Uses[0].Component != component || !f.Status.Uses[0].Enabled {
		t.Errorf("Enabled, with uses %+v, want the operator's, enabled", f.Status.Uses)
	}
	watch, err := admin.FeaturesV1alpha1().Features(tenant).Watch(ctx, metav1.SingleObject(f.ObjectMeta))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Stop()
	if _, err := admin.FeaturesV1alpha1().Features(tenant).Patch(ctx, f.Name, types.MergePatchType,
		[]byte(`{"spec":{"desiredState":"Disabled"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	f = waitForState(featuresv1alpha1.FeatureStateDisabled)
	if gate.Enabled(dynamicGate) {
		t.Error("the Feature is Disabled and the operator's gate is on")
	}
	states := []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled}
	timeout := time.After(30 * time.Second)
	for states[len(states)-1] != featuresv1alpha1.FeatureStateDisabled {
		select {
		case ev, ok := <-watch.ResultChan():
			if !ok {
				t.Fatalf("the watch of the tenant's Feature ended after %v", states)
			}
			if g, ok := ev.Object.(*featuresv1alpha1.Feature); ok && g.Status.State != states[len(states)-1] {
				states = append(states, g.Status.State)
			}
		case <-timeout:
			t.Fatalf("the watch of the tenant's Feature saw %v only", states)
		}
	}
	if len(states) != 3 || states[1] != featuresv1alpha1.FeatureStateDisabling {
		t.Errorf("states seen: %v, want Enabled, Disabling, Disabled", states)
	}
	t.Logf("the tenant's Feature went %v, Disabled %.1fs after it was asked to, uses %+v", states, time.Since(asked).Seconds(), f.Status.Uses)

	// Not another component's report, even in its namespace, and nothing
	// in another namespace.
	report := func(namespace, component string) *featuresv1alpha1.FeatureReport {
		return &featuresv1alpha1.FeatureReport{
			ObjectMeta: metav1.ObjectMeta{Name: component + ".pod-1", Namespace: namespace},
			Spec: featuresv1alpha1.FeatureReportSpec{Component: component, Identity: "pod-1",
				Gates: []featuresv1alpha1.FeatureReportGate{{Name: string(myGate), Enabled: true}}},
		}
	}
	_, err = client.FeaturesV1alpha1().FeatureReports(tenant).Create(ctx, report(tenant, "other-operator"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `may not report as component "other-operator" in namespace "tenant-a"`) {
		t.Errorf("the operator wrote another component's report: %v", err)
	}
	_, err = client.FeaturesV1alpha1().FeatureReports(other).Create(ctx, report(other, component), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("the operator wrote a report in %s: %v", other, err)
	}
	// Granted create in the other namespace, but not "report": admission
	// refuses it.
	broad := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "reports-writer", Namespace: other},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"features.k8s.io"}, Resources: []string{"featurereports"}, Verbs: []string{"create"}}},
	}
	if _, err := admin.RbacV1().Roles(other).Create(ctx, broad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	broadBinding := binding.DeepCopy()
	broadBinding.Namespace, broadBinding.Name, broadBinding.RoleRef.Name = other, broad.Name, broad.Name
	if _, err := admin.RbacV1().RoleBindings(other).Create(ctx, broadBinding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var write error
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, write = client.FeaturesV1alpha1().FeatureReports(other).Create(ctx, report(other, component), metav1.CreateOptions{})
		// RBAC's cache takes the new binding in; then admission answers.
		return write == nil || strings.Contains(write.Error(), "not a known feature reporter"), nil
	}); err != nil || !apierrors.IsForbidden(write) {
		t.Errorf("with create but not report in %s, the operator's write: %v (%v)", other, write, err)
	}
}

// taskOwnerRole lets a third party's controller mark the tasks its
// component owns done: update of features/status in its namespace (the
// FeatureStatus plugin narrows it to those tasks).
func taskOwnerRole(namespace, name string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"features.k8s.io"}, Resources: []string{"features/status"}, Verbs: []string{"get", "update", "patch"}},
		},
	}
}

// bind binds role to the service account sa of the role's namespace.
func bind(ctx context.Context, t *testing.T, admin kubernetes.Interface, role *rbacv1.Role, sa string) {
	t.Helper()
	if _, err := admin.RbacV1().Roles(role.Namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name + "-" + sa, Namespace: role.Namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: role.Namespace}},
	}
	if _, err := admin.RbacV1().RoleBindings(role.Namespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	granted(ctx, t, admin, role, sa)
}

// granted waits until the authorizer's cache holds the binding of role to
// the service account sa of its namespace: each rule's first verb on its
// first resource (and name) is allowed.
func granted(ctx context.Context, t *testing.T, admin kubernetes.Interface, role *rbacv1.Role, sa string) {
	t.Helper()
	for _, rule := range role.Rules {
		var name string
		if len(rule.ResourceNames) > 0 {
			name = rule.ResourceNames[0]
		}
		authutil.WaitForNamedAuthorizationUpdate(t, ctx, admin.AuthorizationV1(), serviceaccount.MakeUsername(role.Namespace, sa), role.Namespace,
			rule.Verbs[0], name, schema.GroupResource{Group: rule.APIGroups[0], Resource: rule.Resources[0]}, true)
	}
}

// serviceAccountClient is a client that impersonates the service account
// sa of namespace.
func serviceAccountClient(config *restclient.Config, namespace, sa string) kubernetes.Interface {
	config = restclient.CopyConfig(config)
	config.Impersonate = restclient.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":" + sa,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	return kubernetes.NewForConfigOrDie(config)
}

// TestThirdPartyDeclaredFeature: a third party declares its gate in its
// namespace (stage, default, its component, a task its controller owns)
// and kube-apiserver leads it: Enabled at the declared default; asked Disabled, it
// waits until the declared component reports the gate off, then until the
// owner's controller marks its task done, which another service account of
// the namespace cannot do; then Disabled. A declaration of one of Kubernetes'
// own gates is refused.
func TestThirdPartyDeclaredFeature(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "apiserver", harness.SharedEtcd().Prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	admin := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	const (
		tenant    = "widgets-system"
		component = "widget-controller"
		gateName  = featuregate.Feature("Widgets")
	)
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bind(ctx, t, admin, reporterRole(tenant, component), component)
	bind(ctx, t, admin, taskOwnerRole(tenant, "feature-task-owner"), component)
	bind(ctx, t, admin, reporterRole(tenant, "widget-dashboard"), "intruder")
	bind(ctx, t, admin, taskOwnerRole(tenant, "feature-task-owner-2"), "intruder")
	operator := serviceAccountClient(apiserver.ClientConfig(), tenant, component)
	intruder := serviceAccountClient(apiserver.ClientConfig(), tenant, "intruder")

	// One of Kubernetes' own gates cannot be declared in a tenant's namespace.
	_, err := admin.FeaturesV1alpha1().Features(tenant).Create(ctx, &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: "max-unavailable-stateful-set", Namespace: tenant},
		Spec: featuresv1alpha1.FeatureSpec{Gate: "MaxUnavailableStatefulSet", Management: featuresv1alpha1.FeatureManagementDynamic,
			Declaration: &featuresv1alpha1.FeatureDeclaration{PreRelease: featuresv1alpha1.FeaturePreReleaseAlpha}},
	}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `spec.declaration: gate "MaxUnavailableStatefulSet" is one of Kubernetes' own gates`) {
		t.Errorf("declaring kube-system's MaxUnavailableStatefulSet in %s: want 403 naming spec.declaration, got %v", tenant, err)
	}
	// Bad input: a field-level error, nothing stored.
	_, err = admin.FeaturesV1alpha1().Features(tenant).Create(ctx, &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureName(string(gateName)), Namespace: tenant},
		Spec: featuresv1alpha1.FeatureSpec{Gate: string(gateName), Management: featuresv1alpha1.FeatureManagementDynamic,
			Declaration: &featuresv1alpha1.FeatureDeclaration{PreRelease: featuresv1alpha1.FeaturePreReleaseBeta,
				Tasks: []featuresv1alpha1.FeatureDeclaredTask{{Name: "migrate-widgets", Transition: "Disabled", Owner: component}}}},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.declaration.tasks[0].transition") {
		t.Errorf("a declared task with transition Disabled: want 422 naming spec.declaration.tasks[0].transition, got %v", err)
	}

	declared, err := admin.FeaturesV1alpha1().Features(tenant).Create(ctx, &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureName(string(gateName)), Namespace: tenant},
		Spec: featuresv1alpha1.FeatureSpec{Gate: string(gateName), Management: featuresv1alpha1.FeatureManagementDynamic,
			Declaration: &featuresv1alpha1.FeatureDeclaration{PreRelease: featuresv1alpha1.FeaturePreReleaseBeta, Default: true,
				Components: []string{component},
				Tasks: []featuresv1alpha1.FeatureDeclaredTask{{Name: "migrate-widgets", Transition: featuresv1alpha1.FeatureStateDisabling,
					Owner: component, Description: "Rewrite every Widget without the fields of the feature."}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	gate := featuregate.NewFeatureGate()
	if err := gate.Add(map[featuregate.Feature]featuregate.FeatureSpec{gateName: {Default: true, PreRelease: featuregate.Beta}}); err != nil {
		t.Fatal(err)
	}
	reporting, stop := context.WithCancel(ctx)
	defer stop()
	fl := &options.Options{}
	if err := fl.Start(reporting, gate, operator, options.Component{Name: component, Namespace: tenant, Identity: "pod-1"}); err != nil {
		t.Fatalf("starting the reporter: %v", err)
	}

	waitFor := func(what string, cond func(*featuresv1alpha1.Feature) bool) *featuresv1alpha1.Feature {
		t.Helper()
		var f *featuresv1alpha1.Feature
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			gate.Enabled(gateName) // the operator keeps using it
			var err error
			f, err = admin.FeaturesV1alpha1().Features(tenant).Get(ctx, declared.Name, metav1.GetOptions{})
			return err == nil && cond(f), nil
		}); err != nil {
			t.Fatalf("the declared Feature is not %s: %+v", what, f)
		}
		return f
	}
	f := waitFor("Enabled with the operator's use", func(f *featuresv1alpha1.Feature) bool {
		return f.Status.State == featuresv1alpha1.FeatureStateEnabled && len(f.Status.Uses) == 1
	})
	if f.Status.PreRelease != featuresv1alpha1.FeaturePreReleaseBeta || f.Status.Default == nil || !*f.Status.Default {
		t.Errorf("status of the declared Feature: preRelease %q, default %v; want Beta, true", f.Status.PreRelease, f.Status.Default)
	}

	if _, err := admin.FeaturesV1alpha1().Features(tenant).Patch(ctx, f.Name, types.MergePatchType,
		[]byte(`{"spec":{"desiredState":"Disabled"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	f = waitFor("waiting for its owner's task", func(f *featuresv1alpha1.Feature) bool {
		return f.Status.State == featuresv1alpha1.FeatureStateDisabling && len(f.Status.Tasks) == 1 &&
			f.Status.Tasks[0].Name == "migrate-widgets" && f.Status.Tasks[0].Message != ""
	})
	reached := time.Since(asked)
	if gate.Enabled(gateName) {
		t.Error("the gate is on and the Feature waits for the owner's task, past wait-for-uses")
	}
	if task := f.Status.Tasks[0]; task.Owner != component || !strings.Contains(task.Message, "waiting for component "+component) {
		t.Errorf("the owner's task: %+v", task)
	}

	// Another service account of the namespace, with update on
	// features/status, cannot complete it.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		f, err := intruder.FeaturesV1alpha1().Features(tenant).Get(ctx, declared.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		f.Status.Tasks[0].Done = true
		_, err = intruder.FeaturesV1alpha1().Features(tenant).UpdateStatus(ctx, f, metav1.UpdateOptions{})
		return err
	})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `status.tasks[0]: user "system:serviceaccount:widgets-system:intruder" may not complete task "migrate-widgets": it is owned by component "widget-controller"`) {
		t.Errorf("another service account completing the owner's task: want 403 naming the field and the owner, got %v", err)
	}
	if got := waitFor("still waiting", func(*featuresv1alpha1.Feature) bool { return true }); len(got.Status.Tasks) != 1 || got.Status.Tasks[0].Done {
		t.Errorf("the refused write changed the task: %+v", got.Status.Tasks)
	}

	// The owner's controller, with k8s.io/features/tasks, sees its task,
	// reports progress, then completes it.
	if task, ok := featuretasks.Active(f, component); !ok || task.Name != "migrate-widgets" {
		t.Fatalf("the owner's controller does not see its task as active: %+v", f.Status.Tasks)
	}
	if err := featuretasks.Update(ctx, operator, tenant, declared.Name, "migrate-widgets", "5/10 widgets", "migrating"); err != nil {
		t.Fatal(err)
	}
	waitFor("showing the owner's progress", func(f *featuresv1alpha1.Feature) bool {
		return len(f.Status.Tasks) == 1 && f.Status.Tasks[0].Progress == "5/10 widgets" && f.Status.Tasks[0].Message == "migrating"
	})
	completed := time.Now()
	if err := featuretasks.Complete(ctx, operator, tenant, declared.Name, "migrate-widgets", "rewrote 10 widgets"); err != nil {
		t.Fatal(err)
	}
	f = waitFor("Disabled", func(f *featuresv1alpha1.Feature) bool {
		return f.Status.State == featuresv1alpha1.FeatureStateDisabled && len(f.Status.Tasks) == 0
	})
	t.Logf("the declared Feature reached its owner's task %.1fs after it was asked Disabled, and Disabled %.1fs after the owner completed it",
		reached.Seconds(), time.Since(completed).Seconds())
}
