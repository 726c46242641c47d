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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/kubernetes/test/e2e_features/framework"
	testutils "k8s.io/kubernetes/test/utils/featureenv"
)

// kindClusterPrefix starts the name of every cluster these tests create;
// the process id follows.
const kindClusterPrefix = "ff-kind-"

// unprivilegedDocker is the docker kind runs here: kind starts each node
// and runs each command in it with --privileged, which these machines
// refuse (test/e2e/README.md). In docker run, --privileged becomes what
// runFlags adds beyond kind's own flags; in docker exec it is dropped (the
// command gets the node's capabilities). Every other argument and command
// goes to the real docker (%s) unchanged.
const unprivilegedDocker = `#!/bin/sh
command=$1
for a do
  shift
  if [ "$a" != --privileged ]; then
    set -- "$@" "$a"
  elif [ "$command" = run ]; then
    set -- "$@" --cap-add=ALL --cap-drop=SYS_RESOURCE --security-opt systempaths=unconfined
  fi
done
exec %s "$@"
`

// unprivilegedKubeProxyPatch is appended to kubeadmConfigPatches (the last
// key of hack/kind/featureflags.yaml): kube-proxy, unprivileged here, must
// not write the conntrack sysctls (kind does the same for rootless nodes;
// it already leaves nf_conntrack_max alone).
const unprivilegedKubeProxyPatch = `- |
  kind: KubeProxyConfiguration
  conntrack:
    tcpEstablishedTimeout: 0s
    tcpCloseWaitTimeout: 0s
`

// kindBinary returns kind as make kind builds it, skipping the test when it
// is missing (failing it with FEATUREFLAGS_E2E_NODE=1).
func kindBinary(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FEATUREFLAGS_BIN_DIR")
	if dir == "" {
		root, err := testutils.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "_output", "bin")
	}
	kind := filepath.Join(dir, "kind")
	if _, err := os.Stat(kind); err != nil {
		if os.Getenv(NodeRequiredEnv) == "1" {
			t.Fatalf("%s is missing: build it with make kind", kind)
		}
		t.Skipf("%s is missing: build it with make kind", kind)
	}
	return kind
}

// kindCommand runs kind with env and returns its combined output.
func kindCommand(ctx context.Context, kind string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, kind, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// deleteStaleKindClusters deletes the clusters a killed run of these tests
// left behind: those whose process is gone.
func deleteStaleKindClusters(t *testing.T, kind string, env []string) {
	t.Helper()
	out, err := kindCommand(context.Background(), kind, env, "get", "clusters")
	if err != nil {
		t.Fatalf("kind get clusters: %v\n%s", err, out)
	}
	for _, name := range strings.Fields(out) {
		pid, err := strconv.Atoi(strings.TrimPrefix(name, kindClusterPrefix))
		if !strings.HasPrefix(name, kindClusterPrefix) || err != nil || syscall.Kill(pid, 0) == nil {
			continue
		}
		if out, err := kindCommand(context.Background(), kind, env, "delete", "cluster", "--name", name); err != nil {
			t.Logf("deleting the stale cluster %s: %v\n%s", name, err, out)
		}
		_, _ = framework.Docker(context.Background(), "network", "rm", name)
	}
}

// TestKindCreateCluster creates a cluster with kind itself (make kind) from
// the node image and hack/kind/featureflags.yaml, the README's command:
// kind's own kubeadm configuration with the file's patches, kubeadm init
// and join, the image's default CNI and storage manifests and its wait for
// the control plane. Only --privileged changes (unprivilegedDocker), and
// kubeadm's privileged kube-proxy is made unprivileged afterwards, as in
// installNetwork. Then: every node is Ready, the feature-lifecycle Feature
// is Enabled, every kubelet reports under its node name, CoreDNS (which reaches
// kube-apiserver through kube-proxy's service rules) is available, and a
// pod runs on a worker. Last, kindClusterChecks run on the cluster.
func TestKindCreateCluster(t *testing.T) {
	img := requireNodeImage(t)
	kind := kindBinary(t)
	root, err := testutils.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cli := os.Getenv(framework.DockerEnv)
	if cli == "" {
		cli = "docker"
	}
	realDocker, err := exec.LookPath(cli)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "docker"), fmt.Appendf(nil, unprivilegedDocker, realDocker), 0o755); err != nil {
		t.Fatal(err)
	}
	name := kindClusterPrefix + strconv.Itoa(os.Getpid())
	kubeconfig := filepath.Join(dir, "kubeconfig")
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"),
		// A network of the cluster's own, removed with it.
		"KIND_EXPERIMENTAL_DOCKER_NETWORK="+name, "KUBECONFIG="+kubeconfig)
	deleteStaleKindClusters(t, kind, env)

	nodes := []*node{{t: t, name: name + "-control-plane"}, {t: t, name: name + "-worker"}, {t: t, name: name + "-worker2"}}
	cp, workers := nodes[0], nodes[1:]
	t.Cleanup(func() {
		for _, n := range nodes {
			n.saveLogs()
		}
		if out, err := kindCommand(context.Background(), kind, env, "delete", "cluster", "--name", name); err != nil {
			t.Errorf("kind delete cluster: %v\n%s", err, out)
		}
		_, _ = framework.Docker(context.Background(), "network", "rm", name)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	// The README's configuration, plus what an unprivileged node needs.
	readme, err := os.ReadFile(filepath.Join(root, "hack", "kind", "featureflags.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "kind.yaml")
	if err := os.WriteFile(config, append(readme, unprivilegedKubeProxyPatch...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := kindCommand(ctx, kind, env, "create", "cluster", "--name", name, "--image", img,
		"--config", config, "--wait", "3m", "--retain", "-v", "1")
	if err != nil {
		t.Fatalf("kind create cluster: %v\n%s", err, out)
	}
	t.Logf("kind create cluster (3 nodes, --wait 3m): %v\n%s", time.Since(start).Round(time.Second), out)

	must := cp.mustKubectl
	unprivilegedKubeProxy(cp)
	for _, n := range nodes {
		waitTrue(t, cp, start, "node "+n.name+" Ready", 3*time.Minute,
			"get", "node", n.name, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	}
	t.Logf("nodes:\n%s", must("get", "nodes", "-o", "wide"))
	if got := must("get", "storageclass", "standard", "-o", "jsonpath={.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}"); got != "true" {
		t.Errorf("kind's default StorageClass standard: is-default-class %q, want true", got)
	}

	var state string
	if err := poll(2*time.Minute, func() bool {
		state, _ = cp.kubectl("get", "feature", "feature-lifecycle", "-n", "kube-system", "-o", "jsonpath={.status.state}")
		return state == "Enabled"
	}); err != nil {
		t.Errorf("the feature-lifecycle Feature is %q, want Enabled", state)
	}
	var reports string
	if err := poll(2*time.Minute, func() bool {
		reports, _ = cp.kubectl("get", "featurereports", "-n", "kube-system")
		for _, n := range nodes {
			if !strings.Contains(reports, "kubelet."+n.name+" ") {
				return false
			}
		}
		return true
	}); err != nil {
		t.Errorf("not every kubelet reports:\n%s", reports)
	}
	t.Logf("featurereports:\n%s", reports)

	waitTrue(t, cp, start, "CoreDNS Available", 3*time.Minute,
		"-n", "kube-system", "get", "deployment", "coredns", "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
	pod := "pause-" + workers[0].name
	must("run", pod, "--image=registry.k8s.io/pause:"+pauseTag(t, cp), "--restart=Never",
		"--overrides", `{"apiVersion":"v1","spec":{"nodeName":"`+workers[0].name+`"}}`)
	waitTrue(t, cp, start, "pod "+pod+" Ready", 2*time.Minute,
		"get", "pod", pod, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)

	for _, check := range kindClusterChecks {
		check(t, kindCluster{kind: kind, env: env, name: name, cp: cp, start: start})
	}
}

// kindCluster is the cluster TestKindCreateCluster made, for its checks.
type kindCluster struct {
	kind  string   // the kind binary
	env   []string // kind's environment
	name  string   // the cluster's name
	cp    *node    // its control-plane node
	start time.Time
}

// kindClusterChecks run last, in order, on the cluster TestKindCreateCluster
// made; the files of later commits of the series add theirs.
var kindClusterChecks []func(*testing.T, kindCluster)
