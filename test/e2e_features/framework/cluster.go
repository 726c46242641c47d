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

package framework

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	testutils "k8s.io/kubernetes/test/utils/featureenv"
)

// Ports inside the containers.
const (
	etcdClientPort        = 2379
	etcdPeerPort          = 2380
	apiserverPort         = 6443
	controllerManagerPort = 10257
	schedulerPort         = 10259
)

// credentialsDir is where every container finds the cluster's credentials
// and kubeconfigs (mounted read-only).
const credentialsDir = "/etc/featureflags"

// Options configure a cluster.
type Options struct {
	// EtcdMembers and APIServers default to 3.
	EtcdMembers, APIServers int
	// APIServerFlags are appended to the harness's flags of every apiserver
	// (APIServerArgs): feature gates, runtime config, lifecycle tunables.
	APIServerFlags []string
	// ControllerManagerFlags and SchedulerFlags are appended to the
	// harness's flags of kube-controller-manager and kube-scheduler.
	ControllerManagerFlags, SchedulerFlags []string
	// NoControllerManager and NoScheduler leave them out.
	NoControllerManager, NoScheduler bool
}

// Cluster is a control plane in containers on a private Docker network: an
// etcd cluster, apiservers (each its own host name, so its own identity
// lease), our kube-controller-manager and kube-scheduler (talking to the
// first apiserver unless a test re-creates them). Tests reach members
// through their ports published on this host's loopback interface.
type Cluster struct {
	// ID is the random name of this cluster's run.
	ID string
	// Network is the Docker network's name; Subnet its address range.
	Network, Subnet string
	// Etcd and APIServers are the members, in order.
	Etcd, APIServers []*Member
	// ControllerManager and Scheduler are nil when left out.
	ControllerManager, Scheduler *Member
	// Artifacts is the directory that receives every container's log.
	Artifacts string

	dir string
}

// StartCluster starts a cluster and waits until every member is ready. It
// is removed (containers, network, volumes) when the test ends, pass or
// fail, after the containers' logs are saved in Artifacts.
func StartCluster(t testing.TB, opts Options) *Cluster {
	t.Helper()
	Require(t)
	if opts.EtcdMembers == 0 {
		opts.EtcdMembers = 3
	}
	if opts.APIServers == 0 {
		opts.APIServers = 3
	}
	ctx := context.Background()
	c := &Cluster{ID: randomID()}
	c.Network = "ff-e2e-" + c.ID
	c.Artifacts = artifactsDir(t)
	var err error
	if c.dir, err = os.MkdirTemp("", "ff-e2e-"+c.ID+"-"); err != nil {
		t.Fatal(err)
	}
	// Containers run as root; the directory is mounted read-only.
	if err := os.Chmod(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.remove(t) })
	if err := testutils.WriteCredentials(c.dir); err != nil {
		t.Fatal(err)
	}
	if err := c.createNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	prefix := strings.TrimSuffix(c.Subnet, "0/24")

	// etcd.
	var initial []string
	for i := range opts.EtcdMembers {
		initial = append(initial, fmt.Sprintf("etcd-%d=http://%s%d:%d", i, prefix, 10+i, etcdPeerPort))
	}
	for i := range opts.EtcdMembers {
		name := fmt.Sprintf("etcd-%d", i)
		ip := fmt.Sprintf("%s%d", prefix, 10+i)
		volume := c.Network + "-" + name
		if _, err := Docker(ctx, "volume", "create", "--label", labelRun+"="+c.ID, "--label", labelPID+"="+strconv.Itoa(os.Getpid()), volume); err != nil {
			t.Fatal(err)
		}
		m := c.newMember(t, name, ip, Image("etcd"), []int{etcdClientPort})
		m.volumes = []string{volume + ":/var/lib/etcd"}
		m.Args = []string{
			"--name=" + name,
			"--data-dir=/var/lib/etcd",
			fmt.Sprintf("--listen-client-urls=http://0.0.0.0:%d", etcdClientPort),
			fmt.Sprintf("--advertise-client-urls=http://%s:%d", ip, etcdClientPort),
			fmt.Sprintf("--listen-peer-urls=http://0.0.0.0:%d", etcdPeerPort),
			fmt.Sprintf("--initial-advertise-peer-urls=http://%s:%d", ip, etcdPeerPort),
			"--initial-cluster=" + strings.Join(initial, ","),
			"--initial-cluster-state=new",
			"--initial-cluster-token=" + c.Network,
			// Members share two cores with the control plane: a longer
			// election timeout than the default 1 s keeps a busy member
			// from calling elections.
			"--heartbeat-interval=200",
			"--election-timeout=2000",
		}
		port := m.Ports[etcdClientPort]
		m.ready = func(ctx context.Context) error { return etcdHealthy(ctx, port) }
		c.Etcd = append(c.Etcd, m)
	}
	c.runAll(t, c.Etcd)

	// Apiservers.
	for i := range opts.APIServers {
		m := c.newMember(t, fmt.Sprintf("apiserver-%d", i), fmt.Sprintf("%s%d", prefix, 20+i), Image("kube-apiserver"), []int{apiserverPort})
		m.Args = c.APIServerArgs(i, opts.APIServerFlags...)
		config := c.clientConfig(m)
		m.ready = func(ctx context.Context) error { return apiserverReady(ctx, config) }
		c.APIServers = append(c.APIServers, m)
	}
	c.runAll(t, c.APIServers)

	// Components.
	kubeconfigs := map[string]string{"kube-controller-manager": testutils.KubeControllerManagerToken, "kube-scheduler": testutils.KubeSchedulerToken}
	for name, token := range kubeconfigs {
		for i, a := range c.APIServers {
			if err := writeKubeconfig(filepath.Join(c.dir, fmt.Sprintf("%s-%d.kubeconfig", name, i)), fmt.Sprintf("https://%s:%d", a.IP, apiserverPort), token); err != nil {
				t.Fatal(err)
			}
		}
	}
	var components []*Member
	if !opts.NoControllerManager {
		c.ControllerManager = c.newMember(t, "kube-controller-manager", prefix+"30", Image("kube-controller-manager"), []int{controllerManagerPort})
		c.ControllerManager.Args = c.ControllerManagerArgs(0, opts.ControllerManagerFlags...)
		port := c.ControllerManager.Ports[controllerManagerPort]
		c.ControllerManager.ready = func(ctx context.Context) error { return healthz(ctx, port) }
		components = append(components, c.ControllerManager)
	}
	if !opts.NoScheduler {
		c.Scheduler = c.newMember(t, "kube-scheduler", prefix+"31", Image("kube-scheduler"), []int{schedulerPort})
		c.Scheduler.Args = c.SchedulerArgs(0, opts.SchedulerFlags...)
		port := c.Scheduler.Ports[schedulerPort]
		c.Scheduler.ready = func(ctx context.Context) error { return healthz(ctx, port) }
		components = append(components, c.Scheduler)
	}
	c.runAll(t, components)
	return c
}

// APIServerArgs returns the arguments of apiserver i: the harness's (its
// address, etcd, serving, service accounts, the static tokens, RBAC) and
// flags.
func (c *Cluster) APIServerArgs(i int, flags ...string) []string {
	var etcd []string
	for _, e := range c.Etcd {
		etcd = append(etcd, fmt.Sprintf("http://%s:%d", e.IP, etcdClientPort))
	}
	prefix := strings.TrimSuffix(c.Subnet, "0/24")
	args := []string{
		fmt.Sprintf("--advertise-address=%s%d", prefix, 20+i),
		"--bind-address=0.0.0.0",
		fmt.Sprintf("--secure-port=%d", apiserverPort),
		"--etcd-servers=" + strings.Join(etcd, ","),
		"--cert-dir=/var/run/kubernetes",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + credentialsDir + "/sa.key",
		"--service-account-signing-key-file=" + credentialsDir + "/sa.key",
		"--token-auth-file=" + credentialsDir + "/tokens.csv",
		"--authorization-mode=Node,RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--v=2",
	}
	for _, f := range flags {
		if err := c.writeLifecycleConfig(f); err != nil {
			panic(err) // the cluster's directory is ours: a test cannot go on
		}
	}
	return append(args, flags...)
}

// lifecycleConfigs holds, by file name, the feature lifecycle
// configurations LifecycleConfigFlag made flags of.
var lifecycleConfigs sync.Map

// LifecycleConfigFlag returns the flag that passes a feature lifecycle
// configuration to an apiserver (--feature-lifecycle-config-file): fields
// are those of a FeatureLifecycleConfiguration in YAML. The file is written
// into the cluster's credentials directory, which every container mounts,
// when the apiserver's arguments are made (APIServerArgs).
func LifecycleConfigFlag(fields string) string {
	content := "apiVersion: featurelifecycle.config.k8s.io/v1alpha1\nkind: FeatureLifecycleConfiguration\n" + fields
	name := fmt.Sprintf("feature-lifecycle-%x.yaml", sha256.Sum256([]byte(content)))
	lifecycleConfigs.Store(name, content)
	return "--feature-lifecycle-config-file=" + credentialsDir + "/" + name
}

// writeLifecycleConfig writes the file a flag of LifecycleConfigFlag
// names into the cluster's directory.
func (c *Cluster) writeLifecycleConfig(flag string) error {
	name, ok := strings.CutPrefix(flag, "--feature-lifecycle-config-file="+credentialsDir+"/")
	if !ok {
		return nil
	}
	content, ok := lifecycleConfigs.Load(name)
	if !ok {
		return fmt.Errorf("%s: not made by LifecycleConfigFlag", flag)
	}
	return os.WriteFile(filepath.Join(c.dir, name), []byte(content.(string)), 0o644)
}

// ControllerManagerArgs returns the arguments of kube-controller-manager
// talking to apiserver i: its kubeconfig, a token per controller (service
// account credentials, as kubeadm runs it), no leader election (one
// replica), and flags.
func (c *Cluster) ControllerManagerArgs(i int, flags ...string) []string {
	args := []string{
		fmt.Sprintf("--kubeconfig=%s/kube-controller-manager-%d.kubeconfig", credentialsDir, i),
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + credentialsDir + "/sa.key",
		"--leader-elect=false",
		"--v=2",
	}
	return append(args, flags...)
}

// SchedulerArgs returns the arguments of kube-scheduler talking to apiserver
// i: its kubeconfig, no leader election (one replica), and flags.
func (c *Cluster) SchedulerArgs(i int, flags ...string) []string {
	args := []string{
		fmt.Sprintf("--kubeconfig=%s/kube-scheduler-%d.kubeconfig", credentialsDir, i),
		"--leader-elect=false",
		"--v=2",
	}
	return append(args, flags...)
}

// newMember returns a member with a loopback port of this host for each of
// ports.
func (c *Cluster) newMember(t testing.TB, name, ip, image string, ports []int) *Member {
	t.Helper()
	m := &Member{Name: name, Container: c.Network + "-" + name, IP: ip, Image: image, Ports: map[int]int{}, cluster: c,
		volumes: []string{c.dir + ":" + credentialsDir + ":ro"}}
	for _, p := range ports {
		hostPort, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		m.Ports[p] = hostPort
	}
	return m
}

// runAll starts the members' containers and waits until all are ready.
func (c *Cluster) runAll(t testing.TB, members []*Member) {
	t.Helper()
	for _, m := range members {
		if err := m.run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range members {
		m.WaitReady(t, 3*time.Minute)
	}
}

// Members returns every member.
func (c *Cluster) Members() []*Member {
	out := append(append([]*Member{}, c.Etcd...), c.APIServers...)
	for _, m := range []*Member{c.ControllerManager, c.Scheduler} {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// ClientConfig returns an admin client config of apiserver i, through its
// published port. Requests time out after 20 s, so a client of an apiserver
// cut off the network fails instead of hanging.
func (c *Cluster) ClientConfig(i int) *restclient.Config {
	return c.clientConfig(c.APIServers[i])
}

// ClientConfigs returns the admin client configs of every apiserver.
func (c *Cluster) ClientConfigs() []*restclient.Config {
	var out []*restclient.Config
	for i := range c.APIServers {
		out = append(out, c.ClientConfig(i))
	}
	return out
}

func (c *Cluster) clientConfig(m *Member) *restclient.Config {
	return &restclient.Config{
		Host:            fmt.Sprintf("https://127.0.0.1:%d", m.Ports[apiserverPort]),
		BearerToken:     testutils.AdminToken,
		TLSClientConfig: restclient.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           10000,
		Timeout:         20 * time.Second,
	}
}

// EtcdEndpoints returns the client URLs of the etcd members through their
// published ports.
func (c *Cluster) EtcdEndpoints() []string {
	var out []string
	for _, m := range c.Etcd {
		out = append(out, fmt.Sprintf("http://127.0.0.1:%d", m.Ports[etcdClientPort]))
	}
	return out
}

// EtcdEndpoint returns the client URL of etcd member i through its
// published port.
func (c *Cluster) EtcdEndpoint(i int) string { return c.EtcdEndpoints()[i] }

// EtcdPrefix is the key prefix of the apiservers' objects in etcd
// (kube-apiserver's default --etcd-prefix).
const EtcdPrefix = "registry"

// Identity returns the identity (identity lease name) of apiserver i, read
// through any apiserver that answers.
func (c *Cluster) Identity(t testing.TB, i int) string {
	t.Helper()
	var id string
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		kube := kubernetes.NewForConfigOrDie(c.ClientConfig((i + 1) % len(c.APIServers)))
		leases, err := kube.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{
			LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver,kubernetes.io/hostname=" + c.APIServers[i].Name})
		if err != nil || len(leases.Items) != 1 {
			return false, nil
		}
		id = leases.Items[0].Name
		return true, nil
	})
	if err != nil {
		t.Fatalf("no identity lease of %s", c.APIServers[i].Name)
	}
	return id
}

// createNetwork creates the cluster's network on a /24 of 172.30.0.0/15
// that no other Docker network uses, so that members keep fixed addresses
// (docker network connect --ip needs a subnet given at creation).
func (c *Cluster) createNetwork(ctx context.Context) error {
	var last error
	for range 32 {
		n, err := rand.Int(rand.Reader, big.NewInt(512))
		if err != nil {
			return err
		}
		subnet := fmt.Sprintf("172.%d.%d.0/24", 30+n.Int64()/256, n.Int64()%256)
		_, last = Docker(ctx, "network", "create", "--driver", "bridge", "--subnet", subnet,
			"--label", labelRun+"="+c.ID, "--label", labelPID+"="+strconv.Itoa(os.Getpid()), c.Network)
		if last == nil {
			c.Subnet = subnet
			return nil
		}
		if !strings.Contains(last.Error(), "overlap") {
			return last
		}
	}
	return fmt.Errorf("no free /24 for the cluster's network: %w", last)
}

// remove saves the containers' logs and removes the containers, the
// network, the volumes and the credentials.
func (c *Cluster) remove(t testing.TB) {
	ctx := context.Background()
	members := c.Members()
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Go(func() { c.saveLog(m, "end of test") })
	}
	wg.Wait()
	if t.Failed() {
		t.Logf("container logs of cluster %s: %s", c.ID, c.Artifacts)
	}
	var names, volumes []string
	for _, m := range members {
		names = append(names, m.Container)
		if m.paused {
			// A frozen container may not be removable by every engine.
			_, _ = Docker(ctx, "unpause", m.Container)
		}
	}
	for _, m := range c.Etcd {
		volumes = append(volumes, c.Network+"-"+m.Name)
	}
	if len(names) > 0 {
		if _, err := Docker(ctx, append([]string{"rm", "--force", "--volumes"}, names...)...); err != nil {
			t.Errorf("removing the containers: %v", err)
		}
	}
	if c.Subnet != "" {
		if _, err := Docker(ctx, "network", "rm", c.Network); err != nil {
			t.Errorf("removing the network: %v", err)
		}
	}
	if len(volumes) > 0 {
		if _, err := Docker(ctx, append([]string{"volume", "rm", "--force"}, volumes...)...); err != nil {
			t.Errorf("removing the volumes: %v", err)
		}
	}
	_ = os.RemoveAll(c.dir)
}

// artifactsDir returns the test's (emptied) directory for container logs.
func artifactsDir(t testing.TB) string {
	base := os.Getenv(ArtifactsEnv)
	if base == "" {
		root, err := testutils.RepoRoot()
		if err != nil {
			return ""
		}
		base = filepath.Join(root, "_output", "e2e")
	}
	dir := filepath.Join(base, regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_"))
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

func randomID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// freePort returns a loopback port no one listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func writeKubeconfig(path, server, token string) error {
	return clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: server, InsecureSkipTLSVerify: true}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"u": {Token: token}},
		Contexts:       map[string]*clientcmdapi.Context{"c": {Cluster: "c", AuthInfo: "u"}},
		CurrentContext: "c",
	}, path)
}

var insecureHTTP = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // test servers with self-signed certificates

// etcdHealthy checks /health of the etcd member published on port.
func etcdHealthy(ctx context.Context, port int) error {
	body, err := get(ctx, fmt.Sprintf("http://127.0.0.1:%d/health", port), "")
	if err != nil {
		return err
	}
	if !strings.Contains(body, `"health":"true"`) {
		return fmt.Errorf("unhealthy: %s", body)
	}
	return nil
}

// apiserverReady checks /readyz of the apiserver behind config.
func apiserverReady(ctx context.Context, config *restclient.Config) error {
	_, err := get(ctx, config.Host+"/readyz", config.BearerToken)
	return err
}

// healthz checks /healthz of a component published on port.
func healthz(ctx context.Context, port int) error {
	_, err := get(ctx, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), "")
	return err
}

func get(ctx context.Context, url, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := insecureHTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return string(body), fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return string(body), nil
}
