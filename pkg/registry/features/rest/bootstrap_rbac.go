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
	"errors"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
	"k8s.io/klog/v2"

	"k8s.io/featureflags/pkg/apis/features"
)

// ReporterRBACName is the name of the Role and of the RoleBinding, in
// kube-system, that let the components report the feature gates they
// checked.
const ReporterRBACName = "system:feature-reporter"

// ReporterRBACNamespace is the namespace of the reporter Role and RoleBinding:
// the one where Kubernetes' own Features live.
const ReporterRBACNamespace = metav1.NamespaceSystem

// bootstrapMetadata is the metadata of upstream's bootstrap RBAC objects
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), so that tools treat
// ours alike. An administrator who sets the autoupdate annotation to
// "false" opts the object out of reconciliation, as upstream's.
func bootstrapMetadata() metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        ReporterRBACName,
		Namespace:   ReporterRBACNamespace,
		Labels:      map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
		Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"},
	}
}

// ReporterRole returns the Role that lets a component read Features and
// keep its FeatureReport: read the Features of kube-system, and create,
// get, patch, update and delete featurereports. The FeatureStatus admission
// plugin narrows the report grant to the component's own report (a node's
// to the one of its own name).
func ReporterRole() *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: bootstrapMetadata(),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{features.GroupName}, Resources: []string{"features"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{features.GroupName}, Resources: []string{"featurereports"}, Verbs: []string{"create", "get", "patch", "update", "delete"}},
		},
	}
}

// ReporterRoleBinding returns the RoleBinding of ReporterRole to the built-in
// reporters: kube-controller-manager, kube-scheduler and the nodes. Further
// reporters get their own RoleBinding to the Role: reconciliation puts this
// binding's subjects back to exactly these.
func ReporterRoleBinding() *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: bootstrapMetadata(),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ReporterRBACName},
		Subjects: []rbacv1.Subject{
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user.KubeControllerManager},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user.KubeScheduler},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: user.NodesGroup},
		},
	}
}

// ViewerClusterRoleName is the name of the ClusterRole that adds reading
// Features to the default user-facing roles.
const ViewerClusterRoleName = "system:aggregate-features-to-view"

// aggregateToViewLabel aggregates a ClusterRole into upstream's "view" role,
// which "edit" and "admin" aggregate in turn.
const aggregateToViewLabel = "rbac.authorization.k8s.io/aggregate-to-view"

// ViewerClusterRole returns the ClusterRole that lets whoever holds view,
// edit or admin (in a namespace, or cluster-wide) read the Features there
// and the reports they are aggregated from: get, list and watch features
// and featurereports. Kubernetes' own are in kube-system, so a
// namespace admin elsewhere sees only the third-party Features of their
// namespace.
func ViewerClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{
			Name: ViewerClusterRoleName,
			Labels: map[string]string{
				"kubernetes.io/bootstrapping": "rbac-defaults",
				aggregateToViewLabel:          "true",
			},
			Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"},
		},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{features.GroupName}, Resources: []string{"features", "featurereports"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
}

// EnsureViewerClusterRole creates or reconciles ViewerClusterRole with
// upstream's RBAC reconciliation, as kube-apiserver's bootstrap policy does
// for its own aggregated roles: missing rules and labels are added, extra
// ones an administrator added are kept, and a ClusterRole whose autoupdate
// annotation is "false" is left alone. The caller retries on error.
func EnsureViewerClusterRole(ctx context.Context, client kubernetes.Interface) error {
	role := ViewerClusterRole()
	err := retryOnConflict(ctx, func() error {
		result, err := (&reconciliation.ReconcileRoleOptions{
			Role:    reconciliation.ClusterRoleRuleOwner{ClusterRole: role.DeepCopy()},
			Client:  reconciliation.ClusterRoleModifier{Client: client.RbacV1().ClusterRoles()},
			Confirm: true,
		}).Run()
		if err != nil {
			return err
		}
		if result.Operation != reconciliation.ReconcileNone {
			klog.InfoS("Reconciled the Feature viewer ClusterRole", "name", ViewerClusterRoleName, "operation", result.Operation,
				"protected", result.Protected, "missingRules", len(result.MissingRules))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reconciling ClusterRole %s: %w", ViewerClusterRoleName, err)
	}
	return nil
}

// EnsureReporterRBAC creates or reconciles, in kube-system, the Role
// ReporterRole and the RoleBinding ReporterRoleBinding. It uses upstream's
// RBAC reconciliation (k8s.io/component-helpers/auth/rbac/reconciliation, as
// kube-apiserver's bootstrap policy does), but strictly: extra rules and
// extra subjects are removed, because this Role grants status writes to
// every node. It writes nothing when both objects are as expected, tolerates
// a concurrent create, retries conflicts, and leaves alone an object whose
// autoupdate annotation is "false". It creates kube-system when it is
// missing and the client may. The caller retries on error (e.g. until the
// RBAC API is served).
//
// The reconciliation helpers do not take a context; ctx is checked between
// attempts.
func EnsureReporterRBAC(ctx context.Context, client kubernetes.Interface) error {
	role := ReporterRole()
	err := retryOnConflict(ctx, func() error {
		result, err := (&reconciliation.ReconcileRoleOptions{
			Role:                   reconciliation.RoleRuleOwner{Role: role.DeepCopy()},
			Client:                 reconciliation.RoleModifier{Client: client.RbacV1(), NamespaceClient: client.CoreV1().Namespaces()},
			Confirm:                true,
			RemoveExtraPermissions: true,
		}).Run()
		if err != nil {
			return err
		}
		logResult("Role", result.Operation, result.Protected, "missingRules", len(result.MissingRules), "extraRules", len(result.ExtraRules))
		return nil
	})
	if err != nil {
		return fmt.Errorf("reconciling Role %s/%s: %w", ReporterRBACNamespace, ReporterRBACName, err)
	}

	binding := ReporterRoleBinding()
	err = retryOnConflict(ctx, func() error {
		result, err := (&reconciliation.ReconcileRoleBindingOptions{
			RoleBinding:         reconciliation.RoleBindingAdapter{RoleBinding: binding.DeepCopy()},
			Client:              reconciliation.RoleBindingClientAdapter{Client: client.RbacV1(), NamespaceClient: client.CoreV1().Namespaces()},
			Confirm:             true,
			RemoveExtraSubjects: true,
		}).Run()
		if err != nil {
			return err
		}
		logResult("RoleBinding", result.Operation, result.Protected, "missingSubjects", len(result.MissingSubjects), "extraSubjects", len(result.ExtraSubjects))
		return nil
	})
	if err != nil {
		return fmt.Errorf("reconciling RoleBinding %s/%s: %w", ReporterRBACNamespace, ReporterRBACName, err)
	}
	return nil
}

// retryOnConflict runs fn until it does not return a conflict, as
// retry.RetryOnConflict, and stops with ctx's error when ctx is done before
// fn succeeded. (retry.RetryOnConflict alone reports success then, because
// it takes a context error for a timeout of its own backoff.)
func retryOnConflict(ctx context.Context, fn func() error) error {
	succeeded := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
		succeeded = true
		return nil
	})
	if err == nil && !succeeded {
		if err = ctx.Err(); err == nil {
			err = errors.New("gave up")
		}
	}
	return err
}

func logResult(kind string, op reconciliation.ReconcileOperation, protected bool, keysAndValues ...any) {
	switch {
	case protected && op != reconciliation.ReconcileNone:
		klog.InfoS("Feature reporter RBAC differs from the default but opted out of reconciliation",
			append([]any{"kind", kind, "namespace", ReporterRBACNamespace, "name", ReporterRBACName,
				"annotation", rbacv1.AutoUpdateAnnotationKey + "=false"}, keysAndValues...)...)
	case op != reconciliation.ReconcileNone:
		klog.InfoS("Reconciled feature reporter RBAC",
			append([]any{"kind", kind, "namespace", ReporterRBACNamespace, "name", ReporterRBACName, "operation", op}, keysAndValues...)...)
	}
}
