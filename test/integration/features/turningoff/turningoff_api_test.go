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

package turningoff

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

const (
	turningOffNamespace = "served-while-turning-off"
	// The gates: both serve whole resources, GA and on by default in
	// v1.37.2, and may still be turned off.
	pcrGate = "PodCertificateRequest"
	svmGate = "StorageVersionMigrator"
	// The tasks that hold each Feature in Disabling: PodCertificateRequest's
	// explicit registration waits for pods with podCertificate volumes;
	// StorageVersionMigrator's derived one for the stored migrations.
	pcrHoldTask = "wait-for-no-pod-certificate-volumes"
	svmHoldTask = "wait-for-no-storageversionmigrations-storagemigration-k8s-io"
)

var (
	pcrGVR = certificatesv1.SchemeGroupVersion.WithResource("podcertificaterequests")
	svmGVR = storagemigrationv1.SchemeGroupVersion.WithResource("storageversionmigrations")
)

func turningOffFlags(t testing.TB, on bool) []string {
	return []string{fmt.Sprintf("--feature-gates=FeatureLifecycle=true,%s=%t,%s=%t", pcrGate, on, svmGate, on),
		"--runtime-config=features.k8s.io/v1alpha1=true",
		harness.Lifecycle{WaitForUsesPeriod: 3 * time.Second}.Flag(t)}
}

// TestServedWhileDisabling turns off two gates that serve whole resources,
// PodCertificateRequest (podcertificaterequests in certificates.k8s.io/v1,
// a group-version upstream keeps serving) and StorageVersionMigrator
// (storagemigration.k8s.io/v1, a group-version that goes away with it),
// with objects of both stored, and checks that while each Feature is
// Disabling its resource can be listed, read, watched and deleted by an
// admin, not written, not read by a user RBAC does not allow, and is in
// aggregated discovery; and that once the Feature is Disabled the resource is
// not served (404) and is gone from discovery, as upstream.
func TestServedWhileDisabling(t *testing.T) {
	ctx := context.Background()
	server := harness.StartAPIServerProcess(t, "turning-off-api", harness.SharedEtcd().Prefix, turningOffFlags(t, true)...)
	admin := server.ClientConfig()
	kube := kubernetes.NewForConfigOrDie(admin)
	features := featuresclient.NewForConfigOrDie(admin)
	for _, gate := range []string{pcrGate, svmGate} {
		featuretest.WaitForConverged(t, features, featuresv1alpha1.FeatureName(gate), featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	}

	// Objects of both resources, and a pod with a podCertificate volume,
	// which holds PodCertificateRequest in Disabling.
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: turningOffNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().ServiceAccounts(turningOffNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "lifecycle"},
		AutomountServiceAccountToken: ptr.To(false)}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Pods(turningOffNamespace).Create(ctx, podCertificatePod(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pcrNames := []string{"pcr-a", "pcr-b", "pcr-c"}
	for _, name := range pcrNames {
		if _, err := kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).Create(ctx, podCertificateRequest(t, name), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating PodCertificateRequest %s with the gate on: %v", name, err)
		}
	}
	svmNames := []string{"svm-a", "svm-b", "svm-c"}
	for _, name := range svmNames {
		if _, err := kube.StoragemigrationV1().StorageVersionMigrations().Create(ctx, storageVersionMigration(name), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating StorageVersionMigration %s with the gate on: %v", name, err)
		}
	}

	// Disabled: the resources are not served by upstream any more; the Features
	// turn off and their waits hold them in Disabling.
	restart := time.Now()
	server.Restart(t, turningOffFlags(t, false)...)
	pcrFeature := waitForActiveTask(t, features, pcrGate, pcrHoldTask, time.Minute)
	svmFeature := waitForActiveTask(t, features, svmGate, svmHoldTask, time.Minute)
	t.Logf("both Features held in Disabling %.1fs after the restart began; %s says: %s", time.Since(restart).Seconds(), svmHoldTask, svmFeature.Status.Tasks[0].Message)
	_ = pcrFeature
	if !strings.Contains(svmFeature.Status.Tasks[0].Message, "svm-") {
		t.Errorf("%s does not name the stored objects: %q", svmHoldTask, svmFeature.Status.Tasks[0].Message)
	}

	// Served to read and delete.
	served := time.Now()
	var pcrs *certificatesv1.PodCertificateRequestList
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		pcrs, err = kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("podcertificaterequests are not served while %s is Disabling: %v", pcrGate, err)
	}
	t.Logf("podcertificaterequests served %.2fs after the Feature was seen Disabling", time.Since(served).Seconds())
	if got := pcrNamesOf(pcrs.Items); !slices.Equal(got, pcrNames) {
		t.Errorf("listed podcertificaterequests %v, want %v", got, pcrNames)
	}
	svms, err := kube.StoragemigrationV1().StorageVersionMigrations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("storageversionmigrations are not served while %s is Disabling: %v", svmGate, err)
	}
	if len(svms.Items) != len(svmNames) {
		t.Errorf("listed %d storageversionmigrations, want %d", len(svms.Items), len(svmNames))
	}
	got, err := kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).Get(ctx, "pcr-a", metav1.GetOptions{})
	if err != nil || got.Spec.SignerName != "example.com/signer" {
		t.Errorf("get pcr-a while Disabling: %v, %+v", err, got)
	}
	if got, err := kube.StoragemigrationV1().StorageVersionMigrations().Get(ctx, "svm-a", metav1.GetOptions{}); err != nil || got.Spec.Resource.Resource != "deployments" {
		t.Errorf("get svm-a while Disabling: %v, %+v", err, got)
	}
	// As kubectl get asks: a table, from the resource's own convertor.
	table, err := kube.CoreV1().RESTClient().Get().AbsPath("/apis/certificates.k8s.io/v1/namespaces/"+turningOffNamespace+"/podcertificaterequests").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil || !strings.Contains(string(table), `"kind":"Table"`) || !strings.Contains(string(table), "pcr-a") {
		t.Errorf("podcertificaterequests as a table while Disabling: %v %s", err, table)
	}
	checkDiscovery(t, kube, pcrGVR, true)
	checkDiscovery(t, kube, svmGVR, true)
	checkGroupListed(t, kube, svmGVR.GroupVersion(), true)
	checkDiscovery(t, kube, certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), true)
	if got := legacyResources(t, kube, pcrGVR.GroupVersion()); !slices.Contains(got, "podcertificaterequests") || !slices.Contains(got, "certificatesigningrequests") {
		t.Errorf("the version discovery document of %s lists %v while Disabling", pcrGVR.GroupVersion(), got)
	}
	if got := legacyResources(t, kube, svmGVR.GroupVersion()); !slices.Equal(got, []string{"storageversionmigrations"}) {
		t.Errorf("the version discovery document of %s lists %v while Disabling", svmGVR.GroupVersion(), got)
	}
	// kubectl explain knows them: discovery lists them and the served
	// OpenAPI v3 documents describe them.
	for _, field := range []string{"podcertificaterequests.spec.signerName", "storageversionmigrations.spec.resource"} {
		if out, err := harness.Kubectl(t, server, "explain", field); err != nil || !strings.Contains(out, "FIELD:") {
			t.Errorf("kubectl explain %s while Disabling: %v\n%s", field, err, out)
		}
	}

	// Not written.
	_, err = kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).Create(ctx, podCertificateRequest(t, "pcr-new"), metav1.CreateOptions{})
	expectRefused(t, "create podcertificaterequests", err, pcrGate)
	got.Labels = map[string]string{"changed": "true"}
	_, err = kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).Update(ctx, got, metav1.UpdateOptions{})
	expectRefused(t, "update podcertificaterequests", err, pcrGate)
	_, err = kube.StoragemigrationV1().StorageVersionMigrations().Create(ctx, storageVersionMigration("svm-new"), metav1.CreateOptions{})
	expectRefused(t, "create storageversionmigrations", err, svmGate)
	_, err = kube.StoragemigrationV1().StorageVersionMigrations().Patch(ctx, "svm-a", types.MergePatchType, []byte(`{"metadata":{"labels":{"changed":"true"}}}`), metav1.PatchOptions{})
	expectRefused(t, "patch storageversionmigrations", err, svmGate)
	_, err = kube.StoragemigrationV1().StorageVersionMigrations().UpdateStatus(ctx, &svms.Items[0], metav1.UpdateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("update of storageversionmigrations/status while Disabling: %v, want 404 (subresources are not served)", err)
	}

	// Not read by a user RBAC does not allow.
	nobody := restclient.CopyConfig(admin)
	nobody.Impersonate = restclient.ImpersonationConfig{UserName: "nobody"}
	nobodyKube := kubernetes.NewForConfigOrDie(nobody)
	if _, err := nobodyKube.CertificatesV1().PodCertificateRequests(turningOffNamespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a user without RBAC listed podcertificaterequests: %v, want Forbidden", err)
	}
	if _, err := nobodyKube.StoragemigrationV1().StorageVersionMigrations().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a user without RBAC listed storageversionmigrations: %v, want Forbidden", err)
	}

	// Watched and deleted: a watch from the list sees the deletes.
	w, err := kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: pcrs.ResourceVersion})
	if err != nil {
		t.Fatalf("watch podcertificaterequests while Disabling: %v", err)
	}
	defer w.Stop()
	for _, name := range pcrNames[:2] {
		if err := kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete %s while Disabling: %v", name, err)
		}
	}
	if err := kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatalf("deletecollection of podcertificaterequests while Disabling: %v", err)
	}
	deleted := map[string]bool{}
	timeout := time.After(30 * time.Second)
	for len(deleted) < len(pcrNames) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended after %d deletes", len(deleted))
			}
			if ev.Type == watch.Deleted {
				deleted[ev.Object.(*certificatesv1.PodCertificateRequest).Name] = true
			}
		case <-timeout:
			t.Fatalf("the watch saw the deletes of %v only", deleted)
		}
	}
	// The aggregator's autoregister controller deletes an APIService it syncs
	// continuously, and never one it synced once at start, as it did at this
	// restart if it first synced once the Feature was known to be
	// Disabling: make it so, so that the check below does not depend on
	// that race.
	aggregator := aggregatorclient.NewForConfigOrDie(admin)
	if _, err := aggregator.ApiregistrationV1().APIServices().Patch(ctx, "v1."+svmGVR.Group, types.MergePatchType,
		[]byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"onstart"}}}`, autoregister.AutoRegisterManagedLabel)), metav1.PatchOptions{}); err != nil {
		t.Fatalf("labelling the APIService of %s as synced on start: %v", svmGVR.GroupVersion(), err)
	}
	if err := kube.StoragemigrationV1().StorageVersionMigrations().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatalf("deletecollection of storageversionmigrations while Disabling: %v", err)
	}
	deletedAt := time.Now()

	// StorageVersionMigrator's wait is over once they are gone; podcertificaterequests
	// stay served while the pod holds their Feature.
	featuretest.WaitForConverged(t, features, featuresv1alpha1.FeatureName(svmGate), featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)
	t.Logf("%s Disabled %.1fs after its objects were deleted", svmGate, time.Since(deletedAt).Seconds())
	expectNotServed(t, kube, svmGVR)
	// storagemigration.k8s.io/v1 exists only for storageversionmigrations:
	// gone from the group lists, its documents 404, as upstream's.
	checkGroupListed(t, kube, svmGVR.GroupVersion(), false)
	if out, err := harness.Kubectl(t, server, "explain", "storageversionmigrations"); err == nil || !strings.Contains(out, "doesn't have a resource type") {
		t.Errorf("kubectl explain storageversionmigrations once Disabled: %v\n%s", err, out)
	}
	if _, err := kube.CertificatesV1().PodCertificateRequests(turningOffNamespace).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("podcertificaterequests not served while %s is still Disabling: %v", pcrGate, err)
	}

	if err := kube.CoreV1().Pods(turningOffNamespace).Delete(ctx, "certificate", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	featuretest.WaitForConverged(t, features, featuresv1alpha1.FeatureName(pcrGate), featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)
	expectNotServed(t, kube, pcrGVR)
	checkDiscovery(t, kube, certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), true)
	if got := legacyResources(t, kube, pcrGVR.GroupVersion()); slices.Contains(got, "podcertificaterequests") || !slices.Contains(got, "certificatesigningrequests") {
		t.Errorf("the version discovery document of %s lists %v once Disabled", pcrGVR.GroupVersion(), got)
	}
}

// legacyResources returns the resources (not subresources) the version
// discovery document of gv lists.
func legacyResources(t *testing.T, kube kubernetes.Interface, gv schema.GroupVersion) []string {
	t.Helper()
	list := &metav1.APIResourceList{}
	body, err := kube.CoreV1().RESTClient().Get().AbsPath("/apis/"+gv.String()).SetHeader("Accept", "application/json").DoRaw(context.Background())
	if err != nil {
		t.Errorf("reading /apis/%s: %v", gv, err)
		return nil
	}
	if err := json.Unmarshal(body, list); err != nil {
		t.Fatalf("reading /apis/%s: %v", gv, err)
	}
	var out []string
	for _, r := range list.APIResources {
		if !strings.Contains(r.Name, "/") {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return out
}

// checkGroupListed checks that the legacy group list (/apis, served from
// the aggregator's APIServices) lists gv and that its group and version
// documents are served, or that none is, allowing the aggregator a moment to
// register or remove gv's local APIService.
func checkGroupListed(t *testing.T, kube kubernetes.Interface, gv schema.GroupVersion, want bool) {
	t.Helper()
	var listed bool
	var codes []int
	_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		groups := &metav1.APIGroupList{}
		body, err := kube.CoreV1().RESTClient().Get().AbsPath("/apis").SetHeader("Accept", "application/json").DoRaw(ctx)
		if err != nil || json.Unmarshal(body, groups) != nil {
			return false, nil
		}
		listed = false
		for _, g := range groups.Groups {
			for _, v := range g.Versions {
				if g.Name == gv.Group && v.Version == gv.Version {
					listed = true
				}
			}
		}
		codes = nil
		for _, path := range []string{"/apis/" + gv.Group, "/apis/" + gv.String()} {
			code := 0
			err := kube.CoreV1().RESTClient().Get().AbsPath(path).SetHeader("Accept", "application/json").Do(ctx).StatusCode(&code).Error()
			if code == 0 && apierrors.IsNotFound(err) {
				// A 404 whose body is not a Status.
				code = http.StatusNotFound
			}
			codes = append(codes, code)
		}
		wantCode := http.StatusNotFound
		if want {
			wantCode = http.StatusOK
		}
		return listed == want && codes[0] == wantCode && codes[1] == wantCode, nil
	})
	if listed != want {
		t.Errorf("/apis lists %s: %t, want %t", gv, listed, want)
	}
	t.Logf("/apis/%s, /apis/%s: %v (listed in /apis: %t)", gv.Group, gv, codes, listed)
	for _, code := range codes {
		if (code == http.StatusOK) != want {
			t.Errorf("the group and version documents of %s answer %v, want them served: %t", gv, codes, want)
			break
		}
	}
}

// waitForActiveTask waits until gate's Feature is Disabling with task
// active, and returns it.
func waitForActiveTask(t *testing.T, client featuresclient.Interface, gate, task string, timeout time.Duration) *featuresv1alpha1.Feature {
	t.Helper()
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		var err error
		f, err = client.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(gate), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return f.Status.State == featuresv1alpha1.FeatureStateDisabling && len(f.Status.Tasks) > 0 && f.Status.Tasks[0].Name == task &&
			f.Status.Tasks[0].Message != "", nil
	})
	if err != nil {
		t.Fatalf("%s did not reach Disabling with %s active: %+v", gate, task, f)
	}
	return f
}

// expectRefused checks that err refuses a write while gate's Feature is
// Disabling, saying why.
func expectRefused(t *testing.T, what string, err error, gate string) {
	t.Helper()
	if !apierrors.IsMethodNotSupported(err) {
		t.Errorf("%s while Disabling: %v, want it refused with 405", what, err)
		return
	}
	for _, want := range []string{"kube-system/" + featuresv1alpha1.FeatureName(gate), "Disabling", "read and delete"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s refused with %q, which does not say %q", what, err, want)
		}
	}
}

// expectNotServed checks that gvr answers 404 as upstream's and is not in
// discovery.
func expectNotServed(t *testing.T, kube kubernetes.Interface, gvr schema.GroupVersionResource) {
	t.Helper()
	path := "/apis/" + gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
	if gvr == pcrGVR {
		path = "/apis/" + gvr.Group + "/" + gvr.Version + "/namespaces/" + turningOffNamespace + "/" + gvr.Resource
	}
	// Each apiserver stops serving once its informer sees the Feature Disabled,
	// a moment after the status says so; allow that moment, as discovery.
	for _, verb := range []string{"GET", "POST", "DELETE"} {
		var status int
		var err error
		start := time.Now()
		_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			status = 0
			err = kube.CoreV1().RESTClient().Verb(verb).AbsPath(path).Body([]byte("{}")).Do(ctx).StatusCode(&status).Error()
			// A 404 whose body is not a Status leaves status 0 and a NotFound
			// error (the group-version is not served at all).
			return status == 404 || apierrors.IsNotFound(err), nil
		})
		if status != 404 && !apierrors.IsNotFound(err) {
			t.Errorf("%s %s once Disabled: %d (%v) for 10s, want 404", verb, path, status, err)
		} else if waited := time.Since(start); waited > 200*time.Millisecond {
			t.Logf("%s %s: 404 %.1fs after the Feature was seen Disabled", verb, path, waited.Seconds())
		}
	}
	checkDiscovery(t, kube, gvr, false)
}

// checkDiscovery checks that (aggregated) discovery lists gvr, or not.
func checkDiscovery(t *testing.T, kube kubernetes.Interface, gvr schema.GroupVersionResource, want bool) {
	t.Helper()
	// Aggregated discovery is refreshed on change; allow a moment.
	var found bool
	_ = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, lists, err := kube.Discovery().ServerGroupsAndResources()
		if err != nil && lists == nil {
			t.Logf("discovery: %v", err)
			return false, nil
		}
		found = false
		for _, l := range lists {
			if l.GroupVersion != gvr.GroupVersion().String() {
				continue
			}
			for _, r := range l.APIResources {
				if r.Name == gvr.Resource {
					found = true
				}
			}
		}
		return found == want, nil
	})
	if found != want {
		t.Errorf("discovery lists %s: %t, want %t", gvr.String(), found, want)
	}
}

func pcrNamesOf(items []certificatesv1.PodCertificateRequest) []string {
	var out []string
	for _, i := range items {
		out = append(out, i.Name)
	}
	slices.Sort(out)
	return out
}

// podCertificatePod is a pod with a projected podCertificate volume, only
// stored (no node): it holds PodCertificateRequest in Disabling.
func podCertificatePod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "certificate", Namespace: turningOffNamespace},
		Spec: corev1.PodSpec{
			ServiceAccountName:           "lifecycle",
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				VolumeMounts: []corev1.VolumeMount{{Name: "cert", MountPath: "/var/run/cert", ReadOnly: true}}}},
			Volumes: []corev1.Volume{{Name: "cert", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{PodCertificate: &corev1.PodCertificateProjection{
					SignerName: "example.com/signer", KeyType: "ED25519", CredentialBundlePath: "credentialbundle.pem"}}}}}}},
		},
	}
}

// podCertificateRequest is a valid PodCertificateRequest: an empty stub
// CSR signed with an Ed25519 key, as a kubelet sends.
func podCertificateRequest(t *testing.T, name string) *certificatesv1.PodCertificateRequest {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	csr, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, priv)
	if err != nil {
		t.Fatal(err)
	}
	podUID := types.UID("00000000-0000-0000-0000-0000000000" + fmt.Sprintf("%02d", len(name)))
	return &certificatesv1.PodCertificateRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: turningOffNamespace},
		Spec: certificatesv1.PodCertificateRequestSpec{
			SignerName:           "example.com/signer",
			PodName:              "certificate",
			PodUID:               podUID,
			ServiceAccountName:   "lifecycle",
			ServiceAccountUID:    "00000000-0000-0000-0000-000000000002",
			NodeName:             "node-1",
			NodeUID:              "00000000-0000-0000-0000-000000000003",
			MaxExpirationSeconds: ptr.To[int32](86400),
			StubPKCS10Request:    csr,
		},
	}
}

func storageVersionMigration(name string) *storagemigrationv1.StorageVersionMigration {
	return &storagemigrationv1.StorageVersionMigration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}},
	}
}
