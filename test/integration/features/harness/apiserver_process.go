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

package harness

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	testutils "k8s.io/kubernetes/test/utils/featureenv"
)

// BinDirEnv names the environment variable with the directory of our built
// binaries (the Makefile sets it to _output/bin). When it is unset, or a
// binary is missing there, the harness builds the binary once per test binary.
const BinDirEnv = "FEATUREFLAGS_BIN_DIR"

// Static tokens of the process apiservers, one per identity the tests use
// (test/utils, shared with the end-to-end tests).
const (
	// AdminToken authenticates as admin in group system:masters.
	AdminToken = testutils.AdminToken
	// KubeControllerManagerToken authenticates as system:kube-controller-manager.
	KubeControllerManagerToken = testutils.KubeControllerManagerToken
	// KubeSchedulerToken authenticates as system:kube-scheduler.
	KubeSchedulerToken = testutils.KubeSchedulerToken
	// NodeToken authenticates as system:node:node-1 in group system:nodes.
	NodeToken = testutils.NodeToken
)

var (
	buildMu    sync.Mutex
	buildPaths = map[string]string{}
	buildDir   string
)

// Binary returns the path of our binary cmd/<name>, from BinDirEnv or built
// once per test binary.
func Binary(t testing.TB, name string) string {
	t.Helper()
	if dir := os.Getenv(BinDirEnv); dir != "" {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return BinaryOf(t, name, "./cmd/"+name)
}

// BinaryOf returns the path of the command in pkg (a path relative to the
// tree's root, ./test/...), named name, built once per test binary: a
// test's own build of a component, with a test-only gate for instance.
func BinaryOf(t testing.TB, name, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := buildPaths[name]; ok {
		return p
	}
	root, err := testutils.TreeRoot()
	if err != nil {
		t.Fatal(err)
	}
	if buildDir == "" {
		if buildDir, err = os.MkdirTemp("", "featureflags-bin"); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(buildDir, name)
	cmd := exec.Command("go", "build", "-o", p, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	buildPaths[name] = p
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// APIServerBinary returns the path of our kube-apiserver binary.
func APIServerBinary(t testing.TB) string {
	return Binary(t, "kube-apiserver")
}

// APIServerProcess is our kube-apiserver running as a separate process, for
// tests that need several apiservers with different flags or that kill one.
type APIServerProcess struct {
	// Name identifies the process in logs.
	Name string
	// Port is the secure port it serves on.
	Port int
	// Dir holds its certificates, keys and log.
	Dir string
	// Flags are the flags it was started with, besides the harness's own.
	Flags []string
	// ReadyTimeout is how long Start waits for /readyz (2 minutes when 0).
	ReadyTimeout time.Duration

	// tokens is the static token file's content (testutils.TokensCSV plus any
	// nodes' tokens).
	tokens string

	t      testing.TB
	binary string
	etcd   []string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
	// exitedCPU is the CPU time of the runs that exited.
	exitedCPU atomic.Int64
}

// StartAPIServerProcess starts our kube-apiserver as a process against the
// etcd URL and key prefix, with flags appended to the harness's defaults
// (serving, service accounts, an admin token, RBAC), and waits until it is
// ready. The process is stopped when the test ends.
//
// Upstream derives an apiserver's identity (its identity lease name) from the
// host name, so every process runs in its own UTS namespace with name as its
// host name when SeparateHosts is true: processes with different names are
// different apiservers, and a restarted process keeps its identity.
func StartAPIServerProcess(t testing.TB, name, etcdPrefix string, flags ...string) *APIServerProcess {
	t.Helper()
	return StartAPIServerProcessWithNodes(t, name, etcdPrefix, nil, flags...)
}

// NodeTokenFor returns the token that authenticates as system:node:<node>
// (group system:nodes) with an apiserver started by
// StartAPIServerProcessWithNodes for that node.
func NodeTokenFor(node string) string {
	return "featureflags-integration-node-token-" + node
}

// StartAPIServerProcessWithNodes is StartAPIServerProcess with a static token
// (NodeTokenFor) for each of nodes besides the harness's own, for tests
// that simulate many kubelets, each with its own credentials.
func StartAPIServerProcessWithNodes(t testing.TB, name, etcdPrefix string, nodes []string, flags ...string) *APIServerProcess {
	t.Helper()
	return StartAPIServerBinary(t, APIServerBinary(t), name, etcdPrefix, nodes, flags...)
}

// StartAPIServerBinary is StartAPIServerProcessWithNodes with a
// kube-apiserver binary of the test's own (BinaryOf).
func StartAPIServerBinary(t testing.TB, binary, name, etcdPrefix string, nodes []string, flags ...string) *APIServerProcess {
	t.Helper()
	dir := t.TempDir()
	var tokens strings.Builder
	tokens.WriteString(testutils.TokensCSV)
	for _, node := range nodes {
		fmt.Fprintf(&tokens, "%s,system:node:%s,%s,system:nodes\n", NodeTokenFor(node), node, node)
	}
	p := &APIServerProcess{Name: name, Dir: dir, Flags: flags, t: t, binary: binary, tokens: tokens.String(),
		etcd: []string{"--etcd-servers=" + EtcdURL(), "--etcd-prefix=" + etcdPrefix}}
	if err := testutils.WriteServiceAccountKey(filepath.Join(dir, "sa.key")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(p.tokens), 0o600); err != nil {
		t.Fatal(err)
	}
	p.Start(t)
	t.Cleanup(p.Stop)
	return p
}

// Start starts (or restarts, with the same port and flags) the process and
// waits until /readyz is ok.
func (p *APIServerProcess) Start(t testing.TB) {
	t.Helper()
	if p.Port == 0 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		p.Port = port
	}
	args := append([]string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The endpoint reconciler refuses a loopback address (since 1.37).
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(p.Port),
		"--cert-dir=" + filepath.Join(p.Dir, "certs"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + filepath.Join(p.Dir, "sa.key"),
		"--service-account-signing-key-file=" + filepath.Join(p.Dir, "sa.key"),
		"--token-auth-file=" + filepath.Join(p.Dir, "tokens.csv"),
		"--authorization-mode=Node,RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
	}, p.etcd...)
	args = append(args, p.Flags...)
	log, err := os.OpenFile(filepath.Join(p.Dir, "kube-apiserver.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.log = log
	p.cmd = hostCommand(p.Name, p.binary, args...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", p.Name, err)
	}
	p.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) {
		_ = cmd.Wait()
		if cmd.ProcessState != nil {
			p.exitedCPU.Add(int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()))
		}
		close(exited)
	}(p.cmd, p.exited)

	client := kubernetes.NewForConfigOrDie(p.ClientConfig())
	timeout := p.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		select {
		case <-p.exited:
			return false, fmt.Errorf("%s exited", p.Name)
		default:
		}
		status := 0
		client.CoreV1().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&status)
		return status == 200, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to be ready: %v\n%s", p.Name, err, p.LogTail(4096))
	}
}

// Stop stops the process with SIGTERM (SIGKILL after 30 s) and waits for it.
func (p *APIServerProcess) Stop() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	_ = p.log.Close()
	p.cmd = nil
}

// PID returns the process id of the running apiserver (0 when stopped):
// unshare and sh exec it, so it is the started process itself.
func (p *APIServerProcess) PID() int {
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Kill kills the process at once, as a crash would.
func (p *APIServerProcess) Kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		<-p.exited
		_ = p.log.Close()
		p.cmd = nil
	}
}

// Restart stops the process and starts it again with new flags.
func (p *APIServerProcess) Restart(t testing.TB, flags ...string) {
	t.Helper()
	p.Stop()
	p.Flags = flags
	p.Start(t)
}

// ClientConfig returns an admin client config for the process.
func (p *APIServerProcess) ClientConfig() *restclient.Config {
	return p.ClientConfigFor(AdminToken)
}

// ClientConfigFor returns a client config authenticating with a token of
// this package (KubeControllerManagerToken, ...).
func (p *APIServerProcess) ClientConfigFor(token string) *restclient.Config {
	return &restclient.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(p.Port),
		BearerToken:     token,
		TLSClientConfig: restclient.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           10000,
	}
}

// LogTail returns up to the last n bytes of the process's log.
func (p *APIServerProcess) LogTail(n int) string {
	data, _ := os.ReadFile(filepath.Join(p.Dir, "kube-apiserver.log"))
	if len(data) > n {
		data = data[len(data)-n:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return string(data)
}

var (
	separateHostsOnce sync.Once
	// hostPrefix is the unshare(1) command line that runs a command under
	// its own host name; nil when this machine cannot.
	hostPrefix []string
)

// SeparateHosts reports whether processes can run under their own host
// names: unshare(1) with a new UTS namespace, as root directly, as another
// user inside a new user namespace that maps the user to root (unprivileged
// user namespaces, on by default on Linux). Without it every apiserver
// process has this host's name and so the same identity.
func SeparateHosts() bool {
	separateHostsOnce.Do(func() {
		for _, prefix := range [][]string{
			{"unshare", "--uts"},
			{"unshare", "--user", "--map-root-user", "--uts"},
		} {
			probe := append(slices.Clone(prefix), "sh", "-c", `hostname "$0"`, "featureflags-probe")
			if exec.Command(probe[0], probe[1:]...).Run() == nil {
				hostPrefix = prefix
				return
			}
		}
	})
	return hostPrefix != nil
}

// hostCommand runs binary with args under host name host when SeparateHosts,
// else directly. unshare and sh exec the binary, so the process (and its
// death signal) stays the same.
func hostCommand(host, binary string, args ...string) *exec.Cmd {
	if !SeparateHosts() {
		return exec.Command(binary, args...)
	}
	argv := append(slices.Clone(hostPrefix[1:]), "sh", "-c", `hostname "$0" && exec "$@"`, host, binary)
	return exec.Command(hostPrefix[0], append(argv, args...)...)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// CPUTime returns the CPU time (user and system) the apiserver used across
// all its runs so far: the runs that exited, from their resource usage, and
// the running one, from /proc.
func (p *APIServerProcess) CPUTime() time.Duration {
	total := time.Duration(p.exitedCPU.Load())
	if pid := p.PID(); pid != 0 {
		if running, err := procCPUTime(pid); err == nil {
			total += running
		}
	}
	return total
}

// Memory returns the running apiserver's resident set size and its peak, in
// bytes, from /proc.
func (p *APIServerProcess) Memory() (rss, peak int64, err error) {
	pid := p.PID()
	if pid == 0 {
		return 0, 0, fmt.Errorf("%s is not running", p.Name)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if n, _ := fmt.Sscanf(line, "VmRSS: %d kB", &kb); n == 1 {
			rss = kb << 10
		}
		if n, _ := fmt.Sscanf(line, "VmHWM: %d kB", &kb); n == 1 {
			peak = kb << 10
		}
	}
	return rss, peak, nil
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on
// every Linux architecture Go supports).
const userHZ = 100

// procCPUTime returns the user plus system CPU time of a running process.
func procCPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: fields
	// count from after its closing one (utime and stime are the 14th and
	// 15th fields, the 12th and 13th after it).
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, data)
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, data)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, data)
	}
	return time.Duration(utime+stime) * time.Second / userHZ, nil
}
