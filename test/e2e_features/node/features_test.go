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

package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/kubernetes/test/utils/featuretest"
)

// etcdClientConfig is a client of the etcd kubeadm runs on n, at n's
// address with kube-apiserver's client certificate (read from n).
func etcdClientConfig(t *testing.T, n *node) clientv3.Config {
	t.Helper()
	read := func(path string) []byte { return []byte(n.exec("cat", path) + "\n") }
	cert, err := tls.X509KeyPair(read("/etc/kubernetes/pki/apiserver-etcd-client.crt"), read("/etc/kubernetes/pki/apiserver-etcd-client.key"))
	if err != nil {
		t.Fatalf("kube-apiserver's etcd client certificate on %s: %v", n.name, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(read("/etc/kubernetes/pki/etcd/ca.crt")) {
		t.Fatalf("no certificate in %s's etcd CA", n.name)
	}
	return clientv3.Config{
		Endpoints:   []string{"https://" + net.JoinHostPort(n.ip(), "2379")},
		DialTimeout: 10 * time.Second,
		TLS:         &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: roots, MinVersion: tls.VersionTLS12},
	}
}

// selfSignedCA returns a PEM CA certificate for a ClusterTrustBundle.
func selfSignedCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "featureflags-e2e-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestNodeImageClusterTrustBundleProjection runs, on one node of the
// image, a pod that projects a ClusterTrustBundle into a volume (the
// kubelet really mounts it: the pod is Ready), then turns
// ClusterTrustBundleProjection off in kube-apiserver, kube-controller-manager,
// kube-scheduler (their static pod manifests) and the kubelet (its
// configuration): the Feature holds Disabling on the task that waits for
// pods with such volumes, naming the pod, and reaches Disabled once the pod is
// deleted.
func TestNodeImageClusterTrustBundleProjection(t *testing.T) {
	name := "ff-node-ctb-" + strconv.Itoa(os.Getpid())
	n, start := singleNodeCluster(t, name)
	must := n.mustKubectl

	const feature, pod = "cluster-trust-bundle-projection", "ctb-pod"
	n.writeFile("/tmp/ctb.yaml", fmt.Sprintf(`apiVersion: certificates.k8s.io/v1
kind: ClusterTrustBundle
metadata:
  name: featureflags-e2e
spec:
  trustBundle: |
%s---
apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  containers:
  - name: pause
    image: registry.k8s.io/pause:%s
    volumeMounts:
    - name: ca
      mountPath: /ca
  volumes:
  - name: ca
    projected:
      sources:
      - clusterTrustBundle:
          name: featureflags-e2e
          path: ca.pem
`, indent(selfSignedCA(t), "    "), pod, pauseTag(t, n)))
	must("create", "-f", "/tmp/ctb.yaml")
	waitTrue(t, n, start, "pod "+pod+" Ready (its clusterTrustBundle volume mounted)", 2*time.Minute,
		"get", "pod", pod, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	if state := must("get", "feature", feature, "-n", "kube-system", "-o", "jsonpath={.status.state}"); state != "Enabled" {
		t.Fatalf("Feature %s is %q, want Enabled", feature, state)
	}

	// The gate off everywhere, as an admin would: the static pods restart
	// when their manifests change, the kubelet when told.
	off := "ClusterTrustBundleProjection=false"
	n.exec("sed", "-i", "s/FeatureLifecycle=true/FeatureLifecycle=true,"+off+"/", "/etc/kubernetes/manifests/kube-apiserver.yaml")
	for _, c := range []string{"kube-controller-manager", "kube-scheduler"} {
		n.exec("sed", "-i", `/^    - `+c+`$/a\    - --feature-gates=`+off, "/etc/kubernetes/manifests/"+c+".yaml")
	}
	n.exec("sed", "-i", `s/^featureGates:$/featureGates:\n  ClusterTrustBundleProjection: false/`, "/var/lib/kubelet/config.yaml")
	n.exec("systemctl", "restart", "kubelet")
	offAt := time.Now()

	// Disabling, held by the pod.
	var state, task, message string
	read := func() {
		out, _ := n.kubectl("get", "feature", feature, "-n", "kube-system", "-o",
			`jsonpath={.status.state}|{.status.tasks[0].name}|{.status.tasks[0].message}`)
		parts := strings.SplitN(out, "|", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		state, task, message = parts[0], parts[1], parts[2]
	}
	if err := poll(5*time.Minute, func() bool {
		read()
		return state == "Disabling" && task == "wait-for-no-cluster-trust-bundle-volumes" && strings.Contains(message, pod)
	}); err != nil {
		t.Fatalf("%s must hold Disabling on wait-for-no-cluster-trust-bundle-volumes naming %s: %s %s %q", feature, pod, state, task, message)
	}
	t.Logf("%.0fs after the gate was turned off: %s Disabling, %s: %s", time.Since(offAt).Seconds(), feature, task, message)
	time.Sleep(15 * time.Second)
	if read(); state != "Disabling" {
		t.Fatalf("%s must stay Disabling while %s runs: %s", feature, pod, state)
	}

	// Deleting the pod completes the transition.
	deleted := time.Now()
	must("delete", "pod", pod, "--wait=false")
	if err := poll(3*time.Minute, func() bool { read(); return state == "Disabled" }); err != nil {
		t.Fatalf("%s must be Disabled once %s is deleted: %s %s %q", feature, pod, state, task, message)
	}
	t.Logf("%s Disabled %.0fs after %s was deleted", feature, time.Since(deleted).Seconds(), pod)
}

// rolloutGaps restarts the pods of StatefulSet name (a template
// annotation), waits until the rollout is done and returns the seconds
// between the creation of consecutive new pods, in order: pods replaced
// together are created within a second of each other.
func rolloutGaps(t *testing.T, n *node, name, revision string, replicas int) []float64 {
	t.Helper()
	// Every pod available first (minReadySeconds after Ready): the
	// controller replaces unavailable pods without counting them.
	if err := poll(3*time.Minute, func() bool {
		out, _ := n.kubectl("get", "statefulset", name, "-o", "jsonpath={.status.availableReplicas}")
		return out == strconv.Itoa(replicas)
	}); err != nil {
		t.Fatalf("StatefulSet %s: not every pod available", name)
	}
	n.mustKubectl("patch", "statefulset", name, "--type=merge", "-p",
		`{"spec":{"template":{"metadata":{"annotations":{"featureflags.e2e/revision":"`+revision+`"}}}}}`)
	if out, err := n.kubectl("rollout", "status", "statefulset/"+name, "--timeout=5m"); err != nil {
		t.Fatalf("rollout of %s: %v\n%s", name, err, out)
	}
	out := n.mustKubectl("get", "pods", "-l", "app="+name, "-o", `jsonpath={range .items[*]}{.metadata.creationTimestamp}{"\n"}{end}`)
	var times []time.Time
	for _, line := range strings.Fields(out) {
		at, err := time.Parse(time.RFC3339, line)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, at)
	}
	if len(times) != replicas {
		t.Fatalf("%d pods of %s after the rollout, want %d", len(times), name, replicas)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	var gaps []float64
	for i := 1; i < len(times); i++ {
		gaps = append(gaps, times[i].Sub(times[i-1]).Seconds())
	}
	return gaps
}

// together counts the gaps of at most a second: pods replaced together.
func together(gaps []float64) int {
	n := 0
	for _, g := range gaps {
		if g <= 1 {
			n++
		}
	}
	return n
}

// TestNodeImageMaxUnavailableStatefulSet rolls a StatefulSet of 4 pods
// with maxUnavailable: 2 (and minReadySeconds: 5, so that each new pod
// counts as unavailable a while): with MaxUnavailableStatefulSet on (its
// default at 1.37) the controller replaces pods two at a time; after the
// gate is turned off in kube-apiserver and kube-controller-manager the
// Feature goes Disabled, its task clears maxUnavailable (neither the API nor
// kubeadm's etcd, read over TLS with kube-apiserver's client certificate,
// holds it), and the next rollout replaces one pod at a time.
func TestNodeImageMaxUnavailableStatefulSet(t *testing.T) {
	name := "ff-node-sts-" + strconv.Itoa(os.Getpid())
	n, _ := singleNodeCluster(t, name)
	must := n.mustKubectl

	const feature, sts, replicas = "max-unavailable-stateful-set", "web", 4
	n.writeFile("/tmp/sts.yaml", fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: %[1]s
spec:
  replicas: %[3]d
  serviceName: %[1]s
  podManagementPolicy: Parallel
  minReadySeconds: 5
  selector:
    matchLabels: {app: %[1]s}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 2}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: pause
        image: registry.k8s.io/pause:%[2]s
`, sts, pauseTag(t, n), replicas))
	must("create", "-f", "/tmp/sts.yaml")
	if out, err := n.kubectl("rollout", "status", "statefulset/"+sts, "--timeout=5m"); err != nil {
		t.Fatalf("StatefulSet %s: %v\n%s", sts, err, out)
	}
	if got := must("get", "statefulset", sts, "-o", "jsonpath={.spec.updateStrategy.rollingUpdate.maxUnavailable}"); got != "2" {
		t.Fatalf("maxUnavailable is %q with the gate on, want 2", got)
	}
	// The etcd read below sees the field while the gate is on.
	if ss := featuretest.StoredStatefulSetsVia(t, etcdClientConfig(t, n), "registry", "default")[sts]; ss == nil || !featuretest.HasMaxUnavailable(ss) {
		t.Fatalf("etcd of %s does not hold StatefulSet %s with maxUnavailable while the gate is on: %v", name, sts, ss)
	}
	gaps := rolloutGaps(t, n, sts, "1", replicas)
	t.Logf("gate on: seconds between the creations of the new pods %v", gaps)
	if together(gaps) < 2 {
		t.Errorf("with maxUnavailable 2 the pods must be replaced two at a time: gaps %v", gaps)
	}

	// The gate off in kube-apiserver and kube-controller-manager.
	off := "MaxUnavailableStatefulSet=false"
	n.exec("sed", "-i", "s/FeatureLifecycle=true/FeatureLifecycle=true,"+off+"/", "/etc/kubernetes/manifests/kube-apiserver.yaml")
	n.exec("sed", "-i", `/^    - kube-controller-manager$/a\    - --feature-gates=`+off, "/etc/kubernetes/manifests/kube-controller-manager.yaml")
	offAt := time.Now()
	var state string
	if err := poll(5*time.Minute, func() bool {
		state, _ = n.kubectl("get", "feature", feature, "-n", "kube-system", "-o", "jsonpath={.status.state}")
		return state == "Disabled"
	}); err != nil {
		out, _ := n.kubectl("get", "feature", feature, "-n", "kube-system", "-o", "yaml")
		t.Fatalf("%s is %q 5 minutes after the gate was turned off:\n%s", feature, state, out)
	}
	t.Logf("%s Disabled %.0fs after the gate was turned off", feature, time.Since(offAt).Seconds())
	if got := must("get", "statefulset", sts, "-o", "jsonpath={.spec.updateStrategy.rollingUpdate}"); strings.Contains(got, "maxUnavailable") {
		t.Fatalf("the API still returns maxUnavailable once the Feature is Disabled: %s", got)
	}
	// The API may hide a field its gate turns off; etcd must not hold it.
	stored := featuretest.StoredStatefulSetsVia(t, etcdClientConfig(t, n), "registry", "default")
	if ss := stored[sts]; ss == nil {
		t.Fatalf("etcd of %s holds no StatefulSet %s (it holds %d)", name, sts, len(stored))
	} else if featuretest.HasMaxUnavailable(ss) {
		t.Fatalf("etcd still holds maxUnavailable %v in StatefulSet %s once the Feature is Disabled", ss.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable, sts)
	}
	t.Logf("etcd of %s: StatefulSet %s stored without maxUnavailable (generation %d)", name, sts, stored[sts].Generation)
	// The controller, restarted with the gate off, may still be starting.
	if err := poll(2*time.Minute, func() bool {
		out, err := n.kubectl("get", "--raw", "/healthz")
		return err == nil && out == "ok"
	}); err != nil {
		t.Fatal("kube-apiserver is not healthy")
	}
	gaps = rolloutGaps(t, n, sts, "2", replicas)
	t.Logf("gate off: seconds between the creations of the new pods %v", gaps)
	if together(gaps) != 0 {
		t.Errorf("without maxUnavailable the pods must be replaced one at a time: gaps %v", gaps)
	}
}
