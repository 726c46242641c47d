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

package features

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	"k8s.io/features/gatename"

	"k8s.io/featureflags/test/integration/features/lifecycle"
	"k8s.io/featureflags/test/integration/framework"
	"k8s.io/featureflags/test/utils/featuretest"
)

// storageVersionObjects is how many MutatingAdmissionPolicyBindings the
// test stores.
const storageVersionObjects = 200

// TestStorageVersionMigrationFollowsTheVersion stores
// MutatingAdmissionPolicyBindings with a kube-apiserver emulating 1.36,
// where admissionregistration.k8s.io stores them at v1beta1, and restarts
// it at 1.37, where they are stored at v1 (the only storage version change
// between the versions this binary emulates:
// pkg/features/inventory/zz_generated.version-changes.yaml): the Feature
// of MutatingAdmissionPolicy queues the built-in version-keyed task
// migrate-storage-to-1-37, which rewrites every binding at v1 (read from
// etcd) while the Feature stays On; back at 1.36,
// migrate-storage-below-1-37 rewrites them at v1beta1 again. Nothing is
// lost on the way.
func TestStorageVersionMigrationFollowsTheVersion(t *testing.T) {
	ctx := context.Background()
	prefix := framework.SharedEtcd().Prefix
	etcd := []string{framework.EtcdURL()}
	name := gatename.ObjectName("MutatingAdmissionPolicy")
	low, high := version.MajorMinor(1, 36), version.MajorMinor(1, 37)
	const resource = "mutatingadmissionpolicybindings"

	apiserver := framework.StartAPIServerProcess(t, "storage-version", prefix, versionFlags(low)...)
	c := featuretest.NewClients(apiserver.ClientConfig())
	admin := c.Features[0]
	waitForVersion(t, admin, name, low.String())

	featuretest.ForEach(t, 8, storageVersionObjects, func(_, i int) error {
		_, err := c.Kube[0].AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("storage-version-%04d", i)},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: fmt.Sprintf("policy-%d.example.com", i)},
		}, metav1.CreateOptions{})
		return err
	})
	if got := storedVersions(t, etcd, prefix, resource); !allAt(got, "admissionregistration.k8s.io/v1beta1", storageVersionObjects) {
		t.Fatalf("at %s the bindings must be stored at admissionregistration.k8s.io/v1beta1: %v", low, summarize(got))
	}

	for _, step := range []struct {
		to          *version.Version
		task, final string
	}{
		{high, "migrate-storage-to-1-37", "admissionregistration.k8s.io/v1"},
		{low, "migrate-storage-below-1-37", "admissionregistration.k8s.io/v1beta1"},
	} {
		w := featuretest.WatchFeature(t, c, name)
		apiserver.Restart(t, versionFlags(step.to)...)
		ready := time.Now()
		f := waitForVersion(t, admin, name, step.to.String())
		t.Logf("-> %s: %s converged with no task left %.1fs after the apiserver was ready", step.to, name, time.Since(ready).Seconds())
		ran, states := false, map[featuresv1alpha1.FeatureState]bool{}
		for _, o := range w.Get() {
			ran = ran || o.Task == step.task
			states[o.State] = true
		}
		if !ran {
			t.Errorf("-> %s: the version-keyed task %s never ran on %s", step.to, step.task, name)
		}
		if f.Status.State != featuresv1alpha1.FeatureStateOn || len(states) != 1 {
			t.Errorf("-> %s: %s must stay On while its version-keyed task runs: states %v", step.to, name, slices.Collect(maps.Keys(states)))
		}
		got := storedVersions(t, etcd, prefix, resource)
		if !allAt(got, step.final, storageVersionObjects) {
			t.Errorf("-> %s: every binding must be stored at %s: %v", step.to, step.final, summarize(got))
		} else {
			t.Logf("-> %s: %d bindings stored at %s (read from etcd)", step.to, len(got), step.final)
		}
		list, err := c.Kube[0].AdmissionregistrationV1().MutatingAdmissionPolicyBindings().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range list.Items {
			if !strings.HasSuffix(b.Spec.PolicyName, ".example.com") {
				t.Errorf("-> %s: %s lost its spec: %+v", step.to, b.Name, b.Spec)
			}
		}
		for _, cond := range []string{featuresv1alpha1.FeatureConditionUpgradeSafe, featuresv1alpha1.FeatureConditionDowngradeSafe} {
			if c := meta.FindStatusCondition(f.Status.Conditions, cond); c != nil && c.Reason == "VersionTaskPending" {
				t.Errorf("-> %s: %s still says a version-keyed task is pending: %+v", step.to, cond, c)
			}
		}
	}
}

// waitForVersion waits until the Feature name holds for version, with no
// task left and Converged=True, and returns it.
func waitForVersion(t *testing.T, admin featuresclient.Interface, name, version string) *featuresv1alpha1.Feature {
	t.Helper()
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		f = got
		return f.Status.Version == version && len(f.Status.Tasks) == 0 &&
			meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged), nil
	})
	if err != nil {
		if f == nil {
			t.Fatalf("%s could not be read", name)
		}
		t.Fatalf("%s did not converge at version %s: %+v", name, version, f.Status)
	}
	return f
}

// storedVersions reads every object of resource (its etcd key prefix)
// directly from etcd and returns the group/version each is encoded at, by
// key.
func storedVersions(t *testing.T, endpoints []string, prefix, resource string) map[string]string {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := client.Get(ctx, path.Join("/", prefix, resource)+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		_, gvk, err := lifecycle.DecodeStored(kv.Value)
		if gvk == nil {
			t.Fatalf("decoding %s: %v", kv.Key, err)
		}
		out[string(kv.Key)] = gvk.GroupVersion().String()
	}
	return out
}

// allAt reports whether stored holds n objects, all at groupVersion.
func allAt(stored map[string]string, groupVersion string, n int) bool {
	if len(stored) != n {
		return false
	}
	for _, gv := range stored {
		if gv != groupVersion {
			return false
		}
	}
	return true
}

// summarize counts stored objects by group/version.
func summarize(stored map[string]string) map[string]int {
	out := map[string]int{}
	for _, gv := range stored {
		out[gv]++
	}
	return out
}
