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

	"k8s.io/featureflags/test/e2e/framework"
	testutils "k8s.io/featureflags/test/utils"
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
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	return "featureflags/node:" + strings.TrimSpace(string(out))
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

func startNode(t *testing.T, img, name string) *node {
	ctx := context.Background()
	args := append([]string{"run", "-d", "--name", name, "--hostname", name,
		"--label", "io.featureflags.e2e.run=" + name, "--label", "io.featureflags.e2e.pid=" + strconv.Itoa(os.Getpid())},
		runFlags...)
	args = append(args, img)
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
