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

package rest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"
)

var (
	rolesResource        = rbacv1.SchemeGroupVersion.WithResource("roles")
	roleBindingsResource = rbacv1.SchemeGroupVersion.WithResource("rolebindings")
)

func newClient(objects ...runtime.Object) *fake.Clientset {
	kubeSystem := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: metav1.NamespaceSystem}}
	return fake.NewClientset(append([]runtime.Object{kubeSystem}, objects...)...)
}

// writes returns the mutating actions the client saw.
func writes(client *fake.Clientset) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			out = append(out, a)
		}
	}
	return out
}

func getRBAC(t *testing.T, client *fake.Clientset) (*rbacv1.Role, *rbacv1.RoleBinding) {
	t.Helper()
	ctx := context.Background()
	role, err := client.RbacV1().Roles(ReporterRBACNamespace).Get(ctx, ReporterRBACName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	binding, err := client.RbacV1().RoleBindings(ReporterRBACNamespace).Get(ctx, ReporterRBACName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return role, binding
}

// checkRBAC checks that the client holds exactly the expected rules,
// subjects, role reference and bootstrap metadata.
func checkRBAC(t *testing.T, client *fake.Clientset) {
	t.Helper()
	role, binding := getRBAC(t, client)
	if want := ReporterRole().Rules; !apiequality.Semantic.DeepEqual(role.Rules, want) {
		t.Errorf("role rules = %+v, want %+v", role.Rules, want)
	}
	if want := ReporterRoleBinding().Subjects; !apiequality.Semantic.DeepEqual(binding.Subjects, want) {
		t.Errorf("binding subjects = %+v, want %+v", binding.Subjects, want)
	}
	if want := ReporterRoleBinding().RoleRef; binding.RoleRef != want {
		t.Errorf("binding roleRef = %+v, want %+v", binding.RoleRef, want)
	}
	for _, meta := range []metav1.ObjectMeta{role.ObjectMeta, binding.ObjectMeta} {
		if got := meta.Labels["kubernetes.io/bootstrapping"]; got != "rbac-defaults" {
			t.Errorf("%s: label kubernetes.io/bootstrapping = %q", meta.Name, got)
		}
		if got := meta.Annotations[rbacv1.AutoUpdateAnnotationKey]; got != "true" {
			t.Errorf("%s: annotation %s = %q", meta.Name, rbacv1.AutoUpdateAnnotationKey, got)
		}
	}
}

func TestReporterRole(t *testing.T) {
	// Nothing more than reading Features and writing their status.
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"features.k8s.io"}, Resources: []string{"features"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"features.k8s.io"}, Resources: []string{"featurereports"}, Verbs: []string{"create", "get", "patch", "update", "delete"}},
	}
	if got := ReporterRole().Rules; !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("rules = %+v, want %+v", got, want)
	}
	want2 := []rbacv1.Subject{
		{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "system:kube-controller-manager"},
		{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "system:kube-scheduler"},
		{APIGroup: "rbac.authorization.k8s.io", Kind: "Group", Name: "system:nodes"},
	}
	if got := ReporterRoleBinding().Subjects; !apiequality.Semantic.DeepEqual(got, want2) {
		t.Errorf("subjects = %+v, want %+v", got, want2)
	}
}

func TestEnsureReporterRBACIdempotent(t *testing.T) {
	ctx := context.Background()
	client := newClient()

	if err := EnsureReporterRBAC(ctx, client); err != nil {
		t.Fatal(err)
	}
	created := map[schema.GroupVersionResource]int{}
	for _, a := range writes(client) {
		if a.GetVerb() != "create" {
			t.Errorf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource)
		}
		created[a.GetResource()]++
	}
	if created[rolesResource] != 1 || created[roleBindingsResource] != 1 || len(created) != 2 {
		t.Errorf("created %v, want one Role and one RoleBinding", created)
	}
	checkRBAC(t, client)

	client.ClearActions()
	if err := EnsureReporterRBAC(ctx, client); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("second call wrote %v", w)
	}
	if len(client.Actions()) == 0 {
		t.Error("second call did not even read")
	}
}

func TestEnsureReporterRBACCreatesNamespace(t *testing.T) {
	client := fake.NewClientset()
	if err := EnsureReporterRBAC(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Namespaces().Get(context.Background(), metav1.NamespaceSystem, metav1.GetOptions{}); err != nil {
		t.Errorf("kube-system: %v", err)
	}
	checkRBAC(t, client)
}

func TestEnsureReporterRBACRepairs(t *testing.T) {
	tests := []struct {
		name    string
		objects func() []runtime.Object
		check   func(t *testing.T, client *fake.Clientset)
	}{
		{
			name: "role with an extra rule",
			objects: func() []runtime.Object {
				role := ReporterRole()
				role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}})
				return []runtime.Object{role, ReporterRoleBinding()}
			},
		},
		{
			name: "role with an extra verb",
			objects: func() []runtime.Object {
				role := ReporterRole()
				role.Rules[0].Verbs = append(role.Rules[0].Verbs, "delete")
				return []runtime.Object{role, ReporterRoleBinding()}
			},
		},
		{
			name: "role missing the status rule",
			objects: func() []runtime.Object {
				role := ReporterRole()
				role.Rules = role.Rules[:1]
				return []runtime.Object{role, ReporterRoleBinding()}
			},
		},
		{
			name: "role and binding without bootstrap metadata keep the admin's",
			objects: func() []runtime.Object {
				role, binding := ReporterRole(), ReporterRoleBinding()
				role.Labels, role.Annotations = map[string]string{"team": "a"}, nil
				binding.Labels, binding.Annotations = nil, map[string]string{"note": "b"}
				return []runtime.Object{role, binding}
			},
			check: func(t *testing.T, client *fake.Clientset) {
				role, binding := getRBAC(t, client)
				if role.Labels["team"] != "a" || binding.Annotations["note"] != "b" {
					t.Errorf("lost the admin's metadata: %v %v", role.Labels, binding.Annotations)
				}
			},
		},
		{
			name: "binding with an extra and without a subject",
			objects: func() []runtime.Object {
				binding := ReporterRoleBinding()
				binding.Subjects = append(binding.Subjects[1:], rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:authenticated"})
				return []runtime.Object{ReporterRole(), binding}
			},
		},
		{
			name: "binding to another role",
			objects: func() []runtime.Object {
				binding := ReporterRoleBinding()
				binding.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}
				return []runtime.Object{ReporterRole(), binding}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := newClient(tc.objects()...)
			if err := EnsureReporterRBAC(context.Background(), client); err != nil {
				t.Fatal(err)
			}
			if len(writes(client)) == 0 {
				t.Error("nothing was written")
			}
			checkRBAC(t, client)
			if tc.check != nil {
				tc.check(t, client)
			}

			client.ClearActions()
			if err := EnsureReporterRBAC(context.Background(), client); err != nil {
				t.Fatal(err)
			}
			if w := writes(client); len(w) != 0 {
				t.Errorf("second call wrote %v", w)
			}
		})
	}
}

func TestEnsureReporterRBACRespectsOptOut(t *testing.T) {
	role := ReporterRole()
	role.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}})
	client := newClient(role, ReporterRoleBinding())
	if err := EnsureReporterRBAC(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("wrote %v to an opted-out role", w)
	}
	got, _ := getRBAC(t, client)
	if len(got.Rules) != 3 {
		t.Errorf("opted-out role changed: %+v", got.Rules)
	}
}

func TestEnsureReporterRBACRetriesConflicts(t *testing.T) {
	role := ReporterRole()
	role.Rules = role.Rules[:1]
	binding := ReporterRoleBinding()
	binding.Subjects = binding.Subjects[:1]
	client := newClient(role, binding)
	conflicts := map[string]int{}
	for _, resource := range []string{"roles", "rolebindings"} {
		client.PrependReactor("update", resource, func(action clienttesting.Action) (bool, runtime.Object, error) {
			if conflicts[resource]++; conflicts[resource] == 1 {
				return true, nil, apierrors.NewConflict(rbacv1.Resource(resource), ReporterRBACName, nil)
			}
			return false, nil, nil
		})
	}
	if err := EnsureReporterRBAC(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	if conflicts["roles"] != 2 || conflicts["rolebindings"] != 2 {
		t.Errorf("updates %v, want a conflict and a retry for each", conflicts)
	}
	checkRBAC(t, client)
}

func TestEnsureReporterRBACToleratesConcurrentCreate(t *testing.T) {
	client := newClient()
	// Another apiserver creates both objects between our get and our create.
	for _, obj := range []runtime.Object{ReporterRole(), ReporterRoleBinding()} {
		resource := "roles"
		if _, ok := obj.(*rbacv1.RoleBinding); ok {
			resource = "rolebindings"
		}
		raced := false
		client.PrependReactor("create", resource, func(action clienttesting.Action) (bool, runtime.Object, error) {
			if raced {
				return false, nil, nil
			}
			raced = true
			if err := client.Tracker().Add(obj); err != nil {
				return true, nil, err
			}
			return true, nil, apierrors.NewAlreadyExists(rbacv1.Resource(resource), ReporterRBACName)
		})
	}
	if err := EnsureReporterRBAC(context.Background(), client); err != nil {
		t.Fatal(err)
	}
	checkRBAC(t, client)
}

func TestEnsureReporterRBACCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	client := newClient()
	if err := EnsureReporterRBAC(ctx, client); err == nil {
		t.Error("expected an error for a cancelled context")
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("wrote %v with a cancelled context", w)
	}
}

// TestEnsureViewerClusterRole: the ClusterRole is created aggregated into
// view; a second run writes nothing; a lost label or rule is put back while
// an administrator's extra rule is kept; an opted-out role is left alone.
func TestEnsureViewerClusterRole(t *testing.T) {
	ctx := context.Background()
	client := newClient()
	if err := EnsureViewerClusterRole(ctx, client); err != nil {
		t.Fatal(err)
	}
	role, err := client.RbacV1().ClusterRoles().Get(ctx, ViewerClusterRoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if role.Labels["rbac.authorization.k8s.io/aggregate-to-view"] != "true" {
		t.Errorf("labels %v: the ClusterRole must aggregate into view", role.Labels)
	}
	if !apiequality.Semantic.DeepEqual(role.Rules, ViewerClusterRole().Rules) {
		t.Errorf("rules %+v, want %+v", role.Rules, ViewerClusterRole().Rules)
	}

	client.ClearActions()
	if err := EnsureViewerClusterRole(ctx, client); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("a second run wrote %v", w)
	}

	extra := rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}
	role.Rules = []rbacv1.PolicyRule{extra}
	delete(role.Labels, "rbac.authorization.k8s.io/aggregate-to-view")
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := EnsureViewerClusterRole(ctx, client); err != nil {
		t.Fatal(err)
	}
	repaired, err := client.RbacV1().ClusterRoles().Get(ctx, ViewerClusterRoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	covers, _ := rbacvalidation.Covers(repaired.Rules, append(ViewerClusterRole().Rules, extra))
	if repaired.Labels["rbac.authorization.k8s.io/aggregate-to-view"] != "true" || !covers {
		t.Errorf("after repair: labels %v, rules %+v; want the label and rules back and the extra rule kept", repaired.Labels, repaired.Rules)
	}

	repaired.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	repaired.Rules = []rbacv1.PolicyRule{extra}
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, repaired, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	if err := EnsureViewerClusterRole(ctx, client); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("an opted-out ClusterRole was written: %v", w)
	}
}
