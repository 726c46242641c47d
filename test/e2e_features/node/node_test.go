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

// Package node tests the kind node image of this tree
// (hack/build-node-image.sh, make node-image) on this machine's Docker
// engine, started the way kind starts a node but with the flags these
// machines need instead of --privileged.
package node

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/kubernetes/test/e2e_features/framework"
	testutils "k8s.io/kubernetes/test/utils/featureenv"
)

// Environment of these tests.
const (
	// NodeImageEnv names the node image (default featureflags/node:<release>
	// of go.mod, as hack/build-node-image.sh tags it).
	NodeImageEnv = "FEATUREFLAGS_NODE_IMAGE"
	// NodeRequiredEnv set to 1 makes a missing node image fail the tests;
	// with only framework.RequiredEnv (make test-e2e, which does not build
	// the node image) they are skipped when the image is missing.
	NodeRequiredEnv = "FEATUREFLAGS_E2E_NODE"
)

// runFlags are what kind passes to docker run for a node, with
// --privileged replaced by what these machines allow (test/e2e/README.md).
var runFlags = []string{
	"--cap-add=ALL", "--cap-drop=SYS_RESOURCE",
	"--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
	"--security-opt", "systempaths=unconfined", "--cgroupns=private",
	"--tmpfs", "/run", "--tmpfs", "/tmp", "-v", "/lib/modules:/lib/modules:ro",
	// kind: /var is a volume, so containerd's overlayfs snapshotter is not
	// on the container's overlay root.
	"-v", "/var",
}

func nodeImage(t *testing.T) string {
	if img := os.Getenv(NodeImageEnv); img != "" {
		return img
	}
	release, err := testutils.Release()
	if err != nil {
		t.Fatal(err)
	}
	return "featureflags/node:" + release
}

// requireNodeImage skips the test unless FEATUREFLAGS_E2E=1 and a Docker
// engine answers; a missing image skips it too, or fails it with
// FEATUREFLAGS_E2E_NODE=1.
func requireNodeImage(t *testing.T) string {
	t.Helper()
	if os.Getenv(framework.RequiredEnv) != "1" && os.Getenv(NodeRequiredEnv) != "1" {
		t.Skipf("node image test skipped: set %s=1 (make node-image builds the image)", NodeRequiredEnv)
	}
	ctx := context.Background()
	if _, err := framework.Docker(ctx, "version", "--format", "{{.Server.Version}}"); err != nil {
		t.Fatalf("no Docker engine: %v", err)
	}
	img := nodeImage(t)
	if _, err := framework.Docker(ctx, "image", "inspect", "--format", "{{.Id}}", img); err != nil {
		if os.Getenv(NodeRequiredEnv) == "1" {
			t.Fatalf("node image %s is missing: build it with make node-image", img)
		}
		t.Skipf("node image %s is missing: build it with make node-image, then run with %s=1", img, NodeRequiredEnv)
	}
	return img
}

// node is one node container.
type node struct {
	t    *testing.T
	name string
}

func startNode(t *testing.T, img, name string, extra ...string) *node {
	ctx := context.Background()
	args := append([]string{"run", "-d", "--name", name, "--hostname", name,
		"--label", "io.featureflags.e2e.run=" + name, "--label", "io.featureflags.e2e.pid=" + strconv.Itoa(os.Getpid())},
		runFlags...)
	args = append(append(args, extra...), img)
	start := time.Now()
	if _, err := framework.Docker(ctx, args...); err != nil {
		t.Fatal(err)
	}
	n := &node{t: t, name: name}
	t.Cleanup(func() {
		n.saveLogs()
		_, _ = framework.Docker(context.Background(), "rm", "-f", "-v", name)
	})
	// systemd is up when it says running (or degraded: a unit this
	// container cannot run failed; it is listed).
	var state string
	if err := poll(90*time.Second, func() bool {
		state, _ = n.execOut("systemctl", "is-system-running")
		return state == "running" || state == "degraded"
	}); err != nil {
		t.Fatalf("systemd in %s: %q after 90s", name, state)
	}
	if state == "degraded" {
		failed, _ := n.execOut("systemctl", "--failed", "--no-legend", "--plain")
		t.Logf("systemd is degraded; failed units:\n%s", failed)
	}
	t.Logf("%s: systemd %s after %v", name, state, time.Since(start).Round(100*time.Millisecond))
	var info string
	if err := poll(60*time.Second, func() bool {
		var err error
		info, err = n.execOut("crictl", "info")
		return err == nil
	}); err != nil {
		t.Fatalf("containerd in %s does not answer crictl info: %s", name, info)
	}
	t.Logf("%s: containerd answers the CRI after %v", name, time.Since(start).Round(100*time.Millisecond))
	return n
}

func (n *node) execOut(args ...string) (string, error) {
	return framework.Docker(context.Background(), append([]string{"exec", n.name}, args...)...)
}

func (n *node) exec(args ...string) string {
	n.t.Helper()
	out, err := n.execOut(args...)
	if err != nil {
		n.t.Fatal(err)
	}
	return out
}

// saveLogs keeps the journal of the node's units in _output/e2e/<test>.
func (n *node) saveLogs() {
	root, err := testutils.RepoRoot()
	if err != nil {
		return
	}
	dir := filepath.Join(root, "_output", "e2e", strings.ReplaceAll(n.t.Name(), "/", "_"))
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	out, _ := framework.Docker(context.Background(), "exec", n.name, "journalctl", "--no-pager", "-o", "short-precise")
	_ = os.WriteFile(filepath.Join(dir, n.name+".journal.log"), []byte(out), 0o644)
}

func poll(timeout time.Duration, ok func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if ok() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", timeout)
		}
		time.Sleep(time.Second)
	}
}

// TestNodeImageBoots starts one node from the image: systemd runs,
// containerd answers the CRI, and every image the build imported is in
// containerd's k8s.io namespace (kubeadm's control plane, pause, CoreDNS,
// the CNI daemon), with the files kind reads.
func TestNodeImageBoots(t *testing.T) {
	img := requireNodeImage(t)
	n := startNode(t, img, "ff-node-boot-"+strconv.Itoa(os.Getpid()))

	images := n.exec("crictl", "images")
	t.Logf("crictl images:\n%s", images)
	version := n.exec("cat", "/kind/version")
	want := []string{
		"registry.k8s.io/kube-apiserver", "registry.k8s.io/kube-controller-manager",
		"registry.k8s.io/kube-scheduler", "registry.k8s.io/etcd", "registry.k8s.io/pause",
		"registry.k8s.io/coredns/coredns", "docker.io/featureflags/ffnetd",
	}
	for _, w := range want {
		if !strings.Contains(images, w+" ") {
			t.Errorf("crictl images lists no %s", w)
		}
	}
	if !strings.Contains(images, version) {
		t.Errorf("no image is tagged with the release of /kind/version (%s)", version)
	}
	for _, f := range []string{"/kind/manifests/default-cni.yaml", "/kind/manifests/default-storage.yaml",
		"/etc/containerd/config.toml", "/etc/systemd/system/kubelet.service.d/10-kubeadm.conf"} {
		if _, err := n.execOut("test", "-s", f); err != nil {
			t.Errorf("%s is missing or empty", f)
		}
	}
	for _, bin := range []string{"kubelet", "kubeadm", "kubectl", "containerd", "runc", "crictl", "/opt/cni/bin/ptp"} {
		out, err := n.execOut("sh", "-c", "command -v "+bin)
		if err != nil {
			t.Errorf("%s is missing: %s", bin, out)
		}
	}
	t.Logf("kubelet: %s", n.exec("kubelet", "--version"))
	t.Logf("kubeadm: %s", n.exec("kubeadm", "version", "-o", "short"))
	t.Logf("runc: %s", strings.SplitN(n.exec("runc", "--version"), "\n", 2)[0])
}

// kubeadmConfig is what kind's generated kubeadm configuration amounts to
// for one control-plane node, with the patch of README.md ("kind node
// image") that turns the feature lifecycle on.
const kubeadmConfig = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: %[2]s
clusterName: featureflags
controlPlaneEndpoint: "%[1]s:6443"
apiServer:
  certSANs: [localhost, "127.0.0.1"]
  extraArgs:
  - name: feature-gates
    value: FeatureLifecycle=true
  - name: runtime-config
    value: features.k8s.io/v1alpha1=true
controllerManager:
  extraArgs:
  - name: enable-hostpath-provisioner
    value: "true"
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/16
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
# A well-known token, as kind's, for the nodes that join.
bootstrapTokens:
- token: abcdef.0123456789abcdef
localAPIEndpoint:
  advertiseAddress: "%[1]s"
  bindPort: 6443
nodeRegistration:
  criSocket: unix:///run/containerd/containerd.sock
  kubeletExtraArgs:
  - name: node-ip
    value: "%[1]s"
skipPhases:
- preflight
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# The kubelet reports its gates (FeatureLifecycle is alpha).
featureGates:
  FeatureLifecycle: true
cgroupDriver: systemd
cgroupRoot: /kubelet
failSwapOn: false
failCgroupV1: false
imageGCHighThresholdPercent: 100
evictionHard:
  nodefs.available: "0%%"
  nodefs.inodesFree: "0%%"
  imagefs.available: "0%%"
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
# No conntrack sysctls: kube-proxy runs unprivileged here (see below).
conntrack:
  maxPerCore: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`

// singleNodeCluster starts node name from the image, runs kubeadm init on
// it, lets pods run on it (no control-plane taint), installs the network
// and waits until the node is Ready. It returns the node and when it began.
func singleNodeCluster(t *testing.T, name string) (*node, time.Time) {
	t.Helper()
	n := startNode(t, requireNodeImage(t), name)
	start := time.Now()
	ip := kubeadmInit(t, n)
	n.mustKubectl("taint", "nodes", "--all", "node-role.kubernetes.io/control-plane-")
	installNetwork(t, n, ip)
	waitTrue(t, n, start, "node "+name+" Ready", 3*time.Minute, "get", "node", name, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	return n, start
}

// TestNodeImageKubeadm runs, in one node container, what kind runs in a
// control-plane node: kubeadm init with the feature lifecycle on, the
// default CNI manifest of the image; then the node is Ready, a pod runs with
// an address from the CNI, the Features are served and our kubelet reports
// its gates under its node name.
func TestNodeImageKubeadm(t *testing.T) {
	name := "ff-node-cp-" + strconv.Itoa(os.Getpid())
	n, start := singleNodeCluster(t, name)
	must := n.mustKubectl
	waitFor := func(what string, timeout time.Duration, args ...string) {
		t.Helper()
		waitTrue(t, n, start, what, timeout, args...)
	}

	must("run", "smoke", "--image=registry.k8s.io/pause:"+pauseTag(t, n), "--restart=Never")
	waitFor("pod smoke Ready", 2*time.Minute, "get", "pod", "smoke", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	// CoreDNS is Ready once it lists Services through the kubernetes
	// Service's address: kube-proxy's rules and the CNI's routes work.
	waitFor("CoreDNS Ready", 2*time.Minute, "-n", "kube-system", "get", "deployment", "coredns", "-o",
		`jsonpath={.status.conditions[?(@.type=="Available")].status}`)
	podIP := must("get", "pod", "smoke", "-o", "jsonpath={.status.podIP}")
	if !strings.HasPrefix(podIP, "10.244.") {
		t.Errorf("pod smoke has address %q, not one of the pod subnet 10.244.0.0/16", podIP)
	}
	t.Logf("pod smoke Running with address %s", podIP)
	t.Logf("pods:\n%s", must("get", "pods", "-A", "-o", "wide"))

	state := must("get", "feature", "feature-lifecycle", "-n", "kube-system", "-o", "jsonpath={.status.state}")
	if state != "Enabled" {
		t.Errorf("Feature feature-lifecycle is %q, want Enabled", state)
	}
	var reports string
	if err := poll(60*time.Second, func() bool {
		reports, _ = n.kubectl("get", "featurereports", "-n", "kube-system")
		return strings.Contains(reports, "kubelet."+name)
	}); err != nil {
		t.Errorf("no FeatureReport kubelet.%s after 60s:\n%s", name, reports)
	}
	t.Logf("featurereports:\n%s", reports)
}

// pauseTag is the tag of the pause image the node's containerd pins.
func pauseTag(t *testing.T, n *node) string {
	out := n.exec("sh", "-c", `sed -n "s/.*sandbox = 'registry.k8s.io\/pause:\(.*\)'/\1/p" /etc/containerd/config.toml`)
	if out == "" {
		t.Fatal("no sandbox image in /etc/containerd/config.toml")
	}
	return out
}

func (n *node) writeFile(path, content string) {
	n.t.Helper()
	cli := os.Getenv(framework.DockerEnv)
	if cli == "" {
		cli = "docker"
	}
	cmd := exec.Command(cli, "exec", "-i", n.name, "sh", "-c", "cat > "+path)
	cmd.Stdin = strings.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil {
		n.t.Fatalf("writing %s: %v: %s", path, err, out)
	}
}

func (n *node) kubectl(args ...string) (string, error) {
	return n.execOut(append([]string{"kubectl", "--kubeconfig=/etc/kubernetes/admin.conf"}, args...)...)
}

func (n *node) mustKubectl(args ...string) string {
	n.t.Helper()
	out, err := n.kubectl(args...)
	if err != nil {
		n.t.Fatal(err)
	}
	return out
}

// ip is the node's address on its Docker network.
func (n *node) ip() string {
	n.t.Helper()
	ip, err := framework.Docker(context.Background(), "inspect", "--format",
		"{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", n.name)
	if err != nil {
		n.t.Fatal(err)
	}
	return ip
}

// kubeadmInit runs kubeadm init on n with kubeadmConfig, as kind does, and
// returns n's address (the control-plane endpoint's host).
func kubeadmInit(t *testing.T, n *node) string {
	t.Helper()
	ip := n.ip()
	version := n.exec("cat", "/kind/version")
	n.writeFile("/kind/kubeadm.conf", fmt.Sprintf(kubeadmConfig, ip, version))
	start := time.Now()
	if out, err := n.execOut("kubeadm", "init", "--config=/kind/kubeadm.conf", "--skip-token-print", "--v=1"); err != nil {
		kubelet, _ := n.execOut("journalctl", "-u", "kubelet", "--no-pager", "-n", "60")
		t.Fatalf("kubeadm init: %v\n%s\nkubelet:\n%s", err, out, kubelet)
	}
	t.Logf("kubeadm init on %s: %v", n.name, time.Since(start).Round(time.Second))
	return ip
}

// installNetwork does what kind does after kubeadm init: the image's default
// CNI manifest, with the control-plane endpoint kind patches in. A
// privileged container needs every device of the node's device cgroup,
// which a node that is not privileged itself cannot grant (cgroup v1 here):
// kubeadm's kube-proxy runs with the capabilities it uses instead (kind's
// privileged nodes run it as kubeadm makes it).
func installNetwork(t *testing.T, n *node, ip string) {
	t.Helper()
	must := n.mustKubectl
	unprivilegedKubeProxy(n)
	must("create", "-f", "/kind/manifests/default-cni.yaml")
	must("-n", "kube-system", "set", "env", "daemonset/ffnetd", "CONTROL_PLANE_ENDPOINT="+ip+":6443")
}

// unprivilegedKubeProxy runs kubeadm's kube-proxy DaemonSet with the
// capabilities it uses instead of privileged (installNetwork says why).
func unprivilegedKubeProxy(n *node) {
	n.t.Helper()
	n.mustKubectl("-n", "kube-system", "patch", "daemonset", "kube-proxy", "--type=json", "-p",
		`[{"op":"replace","path":"/spec/template/spec/containers/0/securityContext","value":{"privileged":false,"capabilities":{"add":["NET_ADMIN","NET_RAW"]}}}]`)
}

// waitTrue waits until kubectl args, run on n, prints True.
func waitTrue(t *testing.T, n *node, start time.Time, what string, timeout time.Duration, args ...string) {
	t.Helper()
	var out string
	if err := poll(timeout, func() bool {
		out, _ = n.kubectl(args...)
		return out == "True"
	}); err != nil {
		pods, _ := n.kubectl("get", "pods", "-A", "-o", "wide")
		// The last words of kube-system's crashing containers.
		crashed, _ := n.kubectl("logs", "-n", "kube-system", "-l", "k8s-app=kube-dns", "--previous", "--tail=20", "--prefix")
		t.Fatalf("%s: %q after %v\n%s\n%s", what, out, timeout, pods, crashed)
	}
	t.Logf("%s after %v", what, time.Since(start).Round(time.Second))
}

// joinConfig is kind's JoinConfiguration for a worker: %[1]s is the
// control plane's address, %[2]s the worker's.
const joinConfig = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
nodeRegistration:
  criSocket: unix:///run/containerd/containerd.sock
  kubeletExtraArgs:
  - name: node-ip
    value: "%[2]s"
discovery:
  bootstrapToken:
    apiServerEndpoint: "%[1]s:6443"
    token: abcdef.0123456789abcdef
    unsafeSkipCAVerification: true
skipPhases:
- preflight
`

// webCorefile makes CoreDNS a web server of one page: /health on 8080.
const webCorefile = `.:53 {
    health :8080
}
`

// TestNodeImageCluster starts a control-plane node and two workers on a
// Docker network of their own, as kind does (kubeadm init, the default CNI,
// kubeadm join): every node is Ready and its kubelet reports its gates under
// its node name; ffnetd routes every node's pod range, so a pod on each
// worker is reached from the control-plane node and from the other worker.
func TestNodeImageCluster(t *testing.T) {
	img := requireNodeImage(t)
	ctx := context.Background()
	id := strconv.Itoa(os.Getpid())
	network := "ff-node-net-" + id
	if _, err := framework.Docker(ctx, "network", "create", "--label", "io.featureflags.e2e.run="+network,
		"--label", "io.featureflags.e2e.pid="+id, network); err != nil {
		t.Fatal(err)
	}
	// Registered first, so run last: after the nodes are removed.
	t.Cleanup(func() { _, _ = framework.Docker(context.Background(), "network", "rm", network) })
	start := time.Now()
	cp := startNode(t, img, "ff-node-cp-"+id, "--network", network)
	workers := []*node{
		startNode(t, img, "ff-node-w1-"+id, "--network", network),
		startNode(t, img, "ff-node-w2-"+id, "--network", network),
	}
	cpIP := kubeadmInit(t, cp)
	installNetwork(t, cp, cpIP)
	for _, w := range workers {
		w.writeFile("/kind/kubeadm.conf", fmt.Sprintf(joinConfig, cpIP, w.ip()))
		joinStart := time.Now()
		if out, err := w.execOut("kubeadm", "join", "--config=/kind/kubeadm.conf", "--v=1"); err != nil {
			kubelet, _ := w.execOut("journalctl", "-u", "kubelet", "--no-pager", "-n", "40")
			t.Fatalf("kubeadm join on %s: %v\n%s\nkubelet:\n%s", w.name, err, out, kubelet)
		}
		t.Logf("kubeadm join on %s: %v", w.name, time.Since(joinStart).Round(time.Second))
	}
	for _, n := range append([]*node{cp}, workers...) {
		waitTrue(t, cp, start, "node "+n.name+" Ready", 3*time.Minute,
			"get", "node", n.name, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	}
	t.Logf("nodes:\n%s", cp.mustKubectl("get", "nodes", "-o", "wide"))

	// Real kubelets report their gates under their node names.
	var reports string
	if err := poll(90*time.Second, func() bool {
		reports, _ = cp.kubectl("get", "featurereports", "-n", "kube-system")
		for _, n := range append([]*node{cp}, workers...) {
			if !strings.Contains(reports, "kubelet."+n.name+" ") {
				return false
			}
		}
		return true
	}); err != nil {
		// Say why, from the kubelets' journals: cmd/kubelet stops reporting
		// for good when the kubeconfig TLS bootstrap wrote names a client
		// certificate that is not there yet (a race it can lose).
		var why []string
		for _, n := range append([]*node{cp}, workers...) {
			if !strings.Contains(reports, "kubelet."+n.name+" ") {
				line, _ := n.execOut("sh", "-c", `journalctl -u kubelet --no-pager | grep -m1 "Not reporting feature gate uses" || true`)
				why = append(why, n.name+": "+line)
			}
		}
		t.Errorf("not every kubelet reports after 90s:\n%s\n%s", reports, strings.Join(why, "\n"))
	}
	t.Logf("featurereports:\n%s", reports)

	// A web page on each worker, reached across nodes.
	cp.writeFile("/tmp/web.yaml", webManifest(workers, corednsImage(t, cp)))
	cp.mustKubectl("create", "-f", "/tmp/web.yaml")
	ips := map[string]string{}
	for _, w := range workers {
		pod := "web-" + w.name
		waitTrue(t, cp, start, "pod "+pod+" Ready", 2*time.Minute,
			"get", "pod", pod, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		ips[w.name] = cp.mustKubectl("get", "pod", pod, "-o", "jsonpath={.status.podIP}")
	}
	get := func(from *node, ip string) (string, error) {
		return from.execOut("timeout", "10", "bash", "-c",
			`exec 3<>/dev/tcp/`+ip+`/8080 && printf 'GET /health HTTP/1.0\r\n\r\n' >&3 && cat <&3`)
	}
	for i, w := range workers {
		other := workers[1-i]
		for _, from := range []*node{cp, other} {
			var out string
			var err error
			if perr := poll(30*time.Second, func() bool {
				out, err = get(from, ips[w.name])
				return err == nil && strings.Contains(out, "200 OK")
			}); perr != nil {
				routes, _ := from.execOut("ip", "route")
				t.Errorf("from %s, pod web-%s (%s): %v %q\nroutes of %s:\n%s", from.name, w.name, ips[w.name], err, out, from.name, routes)
				continue
			}
			t.Logf("from %s, pod web-%s at %s answers 200 OK", from.name, w.name, ips[w.name])
		}
	}
	t.Logf("routes of %s:\n%s", cp.name, cp.exec("ip", "route"))
}

// corednsImage is the CoreDNS image of the node (the one kubeadm deploys).
func corednsImage(t *testing.T, n *node) string {
	out := n.exec("sh", "-c", `crictl images -o json | grep -o '"registry.k8s.io/coredns/coredns:[^"]*"' | head -1 | tr -d '"'`)
	if out == "" {
		t.Fatal("no CoreDNS image on the node")
	}
	return out
}

func webManifest(workers []*node, image string) string {
	m := `apiVersion: v1
kind: ConfigMap
metadata:
  name: web
data:
  Corefile: |
` + indent(webCorefile, "    ")
	for _, w := range workers {
		m += fmt.Sprintf(`---
apiVersion: v1
kind: Pod
metadata:
  name: web-%[1]s
spec:
  nodeName: %[1]s
  containers:
  - name: web
    image: %[2]s
    imagePullPolicy: IfNotPresent
    args: ["-conf", "/etc/web/Corefile"]
    readinessProbe:
      httpGet:
        path: /health
        port: 8080
      periodSeconds: 2
    volumeMounts:
    - name: web
      mountPath: /etc/web
  volumes:
  - name: web
    configMap:
      name: web
`, w.name, image)
	}
	return m
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}
