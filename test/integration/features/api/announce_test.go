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

package api

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// TestAnnounce checks that the apiserver announces one Feature per gate it
// knows, with the gate's spec and configured value.
func TestAnnounce(t *testing.T) {
	e := startServer(t, harness.LifecycleFlags...)
	gates := harness.KnownGates()
	if len(gates) < 100 {
		t.Fatalf("expected the kube, apiserver and component-base gates, got %d", len(gates))
	}
	items := harness.WaitForFeatures(t, e.features, len(gates))
	byGate := map[string]featuresv1alpha1.Feature{}
	for _, f := range items {
		byGate[f.Spec.Gate] = f
	}
	all := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	for _, g := range gates {
		f, ok := byGate[string(g)]
		if !ok {
			t.Errorf("no Feature for gate %s", g)
			continue
		}
		if f.Name != featuresv1alpha1.FeatureName(string(g)) {
			t.Errorf("Feature of %s is named %s", g, f.Name)
		}
		wantState := featuresv1alpha1.FeatureStateDisabled
		if utilfeature.DefaultFeatureGate.Enabled(g) {
			wantState = featuresv1alpha1.FeatureStateEnabled
		}
		spec := all[g]
		if f.Status.State != wantState || *f.Status.Default != spec.Default || f.Status.LockToDefault != spec.LockToDefault ||
			f.Status.PreRelease != inventory.PreRelease(spec) || f.Status.Version != featurelifecycle.VersionOf(utilfeature.DefaultFeatureGate.DeepCopy()) {
			t.Errorf("Feature %s: status %+v does not match gate spec %+v (enabled=%t)", f.Name, f.Status, spec, utilfeature.DefaultFeatureGate.Enabled(g))
		}
	}
	lifecycle := byGate["FeatureLifecycle"]
	if lifecycle.Status.State != featuresv1alpha1.FeatureStateEnabled || lifecycle.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled ||
		lifecycle.Status.PreRelease != featuresv1alpha1.FeaturePreReleaseAlpha || *lifecycle.Status.Default {
		t.Fatalf("FeatureLifecycle announced as %+v / %+v", lifecycle.Spec, lifecycle.Status)
	}
}

// TestAnnounceTwoServers runs two apiserver processes on one etcd prefix: both
// announce at once, and the result is still exactly one Feature per gate. A
// restart announces again without re-creating a Feature or changing its
// spec, state or description (uses and conditions move on their own as the
// two apiservers report and lead, so resourceVersions are not compared).
func TestAnnounceTwoServers(t *testing.T) {
	prefix := harness.SharedEtcd().Prefix
	a := harness.StartAPIServerProcess(t, "apiserver-a", prefix, harness.LifecycleFlags...)
	b := harness.StartAPIServerProcess(t, "apiserver-b", prefix, harness.LifecycleFlags...)
	want := len(harness.KnownGates())
	items := harness.WaitForFeatures(t, featuresclient.NewForConfigOrDie(a.ClientConfig()), want)

	seen := map[string]bool{}
	for _, f := range items {
		if seen[f.Spec.Gate] {
			t.Fatalf("gate %s announced twice", f.Spec.Gate)
		}
		seen[f.Spec.Gate] = true
	}
	// A restart announces again without re-creating or redescribing anything.
	before := announced(t, featuresclient.NewForConfigOrDie(b.ClientConfig()))
	b.Restart(t, harness.LifecycleFlags...)
	waitForLog(t, b, "Announced features", 2)
	after := announced(t, featuresclient.NewForConfigOrDie(b.ClientConfig()))
	if len(before) != want || len(after) != want {
		t.Fatalf("expected %d Features before and after the restart, got %d and %d", want, len(before), len(after))
	}
	var changed []string
	for name, a := range before {
		if after[name] != a {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Fatalf("re-announcing changed %d Features, e.g. %v", len(changed), changed[:min(len(changed), 5)])
	}

	checkViewerClusterRole(t, kubernetes.NewForConfigOrDie(a.ClientConfig()))
}

// viewerClusterRoleName is the bootstrap ClusterRole aggregated into view
// (kube-controller-manager's aggregation controller copies its rules into
// view; no controller runs here).
const viewerClusterRoleName = "system:aggregate-to-view"

// checkViewerClusterRole checks, against an apiserver that authorizes with
// RBAC, that bootstrap policy lets the roles aggregated into view read
// Features and FeatureReports (system:aggregate-to-view, with the
// FeatureLifecycle gate on), and that, bound in a namespace, it lets a user
// read that namespace's Features and not write them.
func checkViewerClusterRole(t *testing.T, kube kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	var role *rbacv1.ClusterRole
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		role, err = kube.RbacV1().ClusterRoles().Get(ctx, viewerClusterRoleName, metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("ClusterRole %s was not bootstrapped", viewerClusterRoleName)
	}
	readsFeatures := false
	for _, r := range role.Rules {
		if slices.Contains(r.APIGroups, "features.k8s.io") && slices.Contains(r.Resources, "features") && slices.Contains(r.Resources, "featurereports") &&
			slices.Contains(r.Resources, "featuretargets") {
			readsFeatures = true
		}
	}
	if !readsFeatures {
		t.Errorf("ClusterRole %s does not read features, featurereports and featuretargets: %+v", viewerClusterRoleName, role.Rules)
	}
	if role.Labels["rbac.authorization.k8s.io/aggregate-to-view"] != "true" {
		t.Errorf("ClusterRole %s labels %v: not aggregated into view", role.Name, role.Labels)
	}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.RbacV1().RoleBindings("team-a").Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "alice-views-features"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: viewerClusterRoleName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allowed := func(verb, namespace string) bool {
		review, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: featuresv1alpha1.GroupName, Resource: "features", Verb: verb, Namespace: namespace}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return review.Status.Allowed
	}
	// The binding reaches the authorizer's cache shortly.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return allowed("list", "team-a"), nil
	}); err != nil {
		t.Fatal("alice, bound to the viewer ClusterRole in team-a, may not list its Features")
	}
	for _, c := range []struct{ verb, namespace string }{{"get", "team-a"}, {"watch", "team-a"}} {
		if !allowed(c.verb, c.namespace) {
			t.Errorf("alice may not %s Features in %s", c.verb, c.namespace)
		}
	}
	for _, c := range []struct{ verb, namespace string }{{"list", "kube-system"}, {"update", "team-a"}, {"patch", "team-a"}, {"delete", "team-a"}} {
		if allowed(c.verb, c.namespace) {
			t.Errorf("alice may %s Features in %s", c.verb, c.namespace)
		}
	}
}

// waitForLog waits until the process's log holds a message n times.
func waitForLog(t *testing.T, p *harness.APIServerProcess, msg string, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return strings.Count(p.LogTail(1<<30), msg) >= n, nil
	})
	if err != nil {
		t.Fatalf("%s did not log %q %d times", p.Name, msg, n)
	}
}

// announced returns, per Feature, what announcing decides: identity,
// spec, state and description.
func announced(t *testing.T, client featuresclient.Interface) map[string]string {
	t.Helper()
	list, err := client.FeaturesV1alpha1().Features("kube-system").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range list.Items {
		out[f.Name] = fmt.Sprintf("uid=%s generation=%d spec=%+v state=%s default=%v preRelease=%s lock=%t version=%s",
			f.UID, f.Generation, f.Spec, f.Status.State, *f.Status.Default, f.Status.PreRelease, f.Status.LockToDefault, f.Status.Version)
	}
	return out
}
