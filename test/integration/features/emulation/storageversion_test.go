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

package emulation

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

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/lifecycle"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// storageVersionObjects is how many MutatingAdmissionPolicyBindings
// TestEmulationVersionDrivesLifecycle stores to follow the storage version
// migration of the Feature of MutatingAdmissionPolicy: the only storage
// version change between the versions this binary emulates
// (pkg/features/inventory/zz_generated.version-changes.yaml) is
// admissionregistration.k8s.io's v1beta1 -> v1 at 1.37.
const storageVersionObjects = 200

const (
	storageGate     = "MutatingAdmissionPolicy"
	storageResource = "mutatingadmissionpolicybindings"
)

// storageVersionAt is how the bindings are stored at each version.
var storageVersionAt = map[string]string{"1.36": "admissionregistration.k8s.io/v1beta1", "1.37": "admissionregistration.k8s.io/v1"}

// storeBindings creates the bindings with an apiserver emulating at and
// checks their encoding in etcd.
func storeBindings(t *testing.T, c *featuretest.Clients, etcd []string, prefix string, at *version.Version) {
	t.Helper()
	ctx := context.Background()
	featuretest.ForEach(t, 8, storageVersionObjects, func(_, i int) error {
		_, err := c.Kube[0].AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("storage-version-%04d", i)},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: fmt.Sprintf("policy-%d.example.com", i)},
		}, metav1.CreateOptions{})
		return err
	})
	if got := storedVersions(t, etcd, prefix, storageResource); !allAt(got, storageVersionAt[at.String()], storageVersionObjects) {
		t.Fatalf("at %s the bindings must be stored at %s: %v", at, storageVersionAt[at.String()], summarize(got))
	}
}

// checkStorageMigration checks, after the apiservers moved to emulation
// version to, that the Feature of storageGate ran task (w watched it since
// before the move) while staying Enabled, holds for to with no task left, and
// that every binding is stored at to's version with its spec.
func checkStorageMigration(t *testing.T, c *featuretest.Clients, etcd []string, prefix string, to *version.Version, task string, w *featuretest.FeatureWatcher, ready time.Time) {
	t.Helper()
	name := featuresv1alpha1.FeatureName(storageGate)
	f := waitForVersion(t, c.Features[0], name, to.String())
	t.Logf("-> %s: %s converged with no task left %.1fs after the apiserver was ready", to, name, time.Since(ready).Seconds())
	ran, states := false, map[featuresv1alpha1.FeatureState]bool{}
	for _, o := range w.Get() {
		ran = ran || o.Task == task
		states[o.State] = true
	}
	if !ran {
		t.Errorf("-> %s: the version-keyed task %s never ran on %s", to, task, name)
	}
	if f.Status.State != featuresv1alpha1.FeatureStateEnabled || len(states) != 1 {
		t.Errorf("-> %s: %s must stay Enabled while its version-keyed task runs: states %v", to, name, slices.Collect(maps.Keys(states)))
	}
	want := storageVersionAt[to.String()]
	if got := storedVersions(t, etcd, prefix, storageResource); !allAt(got, want, storageVersionObjects) {
		t.Errorf("-> %s: every binding must be stored at %s: %v", to, want, summarize(got))
	} else {
		t.Logf("-> %s: %d bindings stored at %s (read from etcd)", to, len(got), want)
	}
	list, err := c.Kube[0].AdmissionregistrationV1().MutatingAdmissionPolicyBindings().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list.Items {
		if !strings.HasSuffix(b.Spec.PolicyName, ".example.com") {
			t.Errorf("-> %s: %s lost its spec: %+v", to, b.Name, b.Spec)
		}
	}
	for _, cond := range []string{featuresv1alpha1.FeatureConditionUpgradeSafe, featuresv1alpha1.FeatureConditionDowngradeSafe} {
		if c := meta.FindStatusCondition(f.Status.Conditions, cond); c != nil && c.Reason == "VersionTaskPending" {
			t.Errorf("-> %s: %s still says a version-keyed task is pending: %+v", to, cond, c)
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
