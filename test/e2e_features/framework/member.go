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
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Member is one container of a cluster: an etcd member, an apiserver, the
// controller-manager or the scheduler. It keeps its name, host name, address
// and published ports across stops, kills, partitions and re-creations, so
// an apiserver keeps its identity (derived from its host name).
type Member struct {
	// Name names the member in the cluster and in logs (etcd-0,
	// apiserver-1, kube-controller-manager, ...); it is also its host name.
	Name string
	// Container is its Docker container's name.
	Container string
	// IP is its address on the cluster's network.
	IP string
	// Image is the image it runs.
	Image string
	// Args are the arguments of the image's entry point.
	Args []string
	// Ports maps its container ports to the loopback ports of this host
	// they are published on.
	Ports map[int]int

	cluster     *Cluster
	volumes     []string
	ready       func(ctx context.Context) error
	partitioned bool
	paused      bool
}

// run creates and starts the container.
func (m *Member) run(ctx context.Context) error {
	args := []string{"run", "--detach", "--name", m.Container, "--hostname", m.Name,
		"--network", m.cluster.Network, "--ip", m.IP,
		"--label", labelRun + "=" + m.cluster.ID, "--label", labelPID + "=" + strconv.Itoa(os.Getpid()),
		"--restart", "no"}
	for _, p := range slices.Sorted(maps.Keys(m.Ports)) {
		args = append(args, "--publish", fmt.Sprintf("127.0.0.1:%d:%d", m.Ports[p], p))
	}
	for _, v := range m.volumes {
		args = append(args, "--volume", v)
	}
	args = append(args, m.Image)
	args = append(args, m.Args...)
	_, err := Docker(ctx, args...)
	return err
}

// WaitReady waits until the member answers its readiness check (etcd:
// /health; apiserver: /readyz; controller-manager, scheduler: /healthz),
// through its published port.
func (m *Member) WaitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if !m.Running(t) {
			return false, fmt.Errorf("%s is not running", m.Name)
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		last = m.ready(rctx)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("%s is not ready after %s: %v (last check: %v)\n%s", m.Name, timeout, err, last, m.LogTail(40))
	}
}

// Running reports whether the container runs (a paused one does).
func (m *Member) Running(t testing.TB) bool {
	t.Helper()
	out, err := Docker(context.Background(), "inspect", "--format", "{{.State.Running}}", m.Container)
	return err == nil && out == "true"
}

// Stop stops the container gracefully: SIGTERM, SIGKILL after timeout.
func (m *Member) Stop(t testing.TB, timeout time.Duration) {
	t.Helper()
	if _, err := Docker(context.Background(), "stop", "-t", strconv.Itoa(int(timeout.Seconds())), m.Container); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the container at once, as a crash or a power cut would.
func (m *Member) Kill(t testing.TB) {
	t.Helper()
	if _, err := Docker(context.Background(), "kill", m.Container); err != nil {
		t.Fatal(err)
	}
}

// Start starts the stopped or killed container again, with its file system
// (an etcd member's data) and arguments, and waits until it is ready.
func (m *Member) Start(t testing.TB) {
	t.Helper()
	if _, err := Docker(context.Background(), "start", m.Container); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(t, 2*time.Minute)
}

// Recreate replaces the container by a new one with args (same name, host
// name, address, ports and volumes), as an administrator restarts a static
// pod with changed flags, and waits until it is ready. graceful stops the
// old one with SIGTERM (an apiserver then deletes its identity lease);
// otherwise it is killed. The old container's log is saved first.
func (m *Member) Recreate(t testing.TB, graceful bool, args ...string) {
	t.Helper()
	ctx := context.Background()
	if graceful {
		m.Stop(t, 30*time.Second)
	} else if m.Running(t) {
		m.Kill(t)
	}
	m.cluster.saveLog(m, "container replaced")
	if _, err := Docker(ctx, "rm", "--force", m.Container); err != nil {
		t.Fatal(err)
	}
	m.Args = args
	m.partitioned, m.paused = false, false
	if err := m.run(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(t, 2*time.Minute)
}

// Pause freezes every process of the container (docker pause): it keeps its
// connections and leases but answers nothing, as a stalled host.
func (m *Member) Pause(t testing.TB) {
	t.Helper()
	if _, err := Docker(context.Background(), "pause", m.Container); err != nil {
		t.Fatal(err)
	}
	m.paused = true
}

// Unpause resumes a paused container.
func (m *Member) Unpause(t testing.TB) {
	t.Helper()
	if _, err := Docker(context.Background(), "unpause", m.Container); err != nil {
		t.Fatal(err)
	}
	m.paused = false
}

// Partition cuts the member off the cluster's network (docker network
// disconnect): it keeps running but reaches no other member, and this
// host no longer reaches its published ports.
func (m *Member) Partition(t testing.TB) {
	t.Helper()
	if _, err := Docker(context.Background(), "network", "disconnect", "--force", m.cluster.Network, m.Container); err != nil {
		t.Fatal(err)
	}
	m.partitioned = true
}

// Heal connects a partitioned member again, at its address.
func (m *Member) Heal(t testing.TB) {
	t.Helper()
	if _, err := Docker(context.Background(), "network", "connect", "--ip", m.IP, m.cluster.Network, m.Container); err != nil {
		t.Fatal(err)
	}
	m.partitioned = false
}

// Partitioned reports whether the member is cut off the network.
func (m *Member) Partitioned() bool { return m.partitioned }

// Paused reports whether the member is paused.
func (m *Member) Paused() bool { return m.paused }

// LogTail returns the last lines of the container's log.
func (m *Member) LogTail(lines int) string {
	out, err := Docker(context.Background(), "logs", "--tail", strconv.Itoa(lines), m.Container)
	if err != nil {
		return err.Error()
	}
	return out
}

// Log returns the container's whole log (standard output and error).
func (m *Member) Log() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dockerTimeout)
	defer cancel()
	return dockerCombined(ctx, "logs", m.Container)
}

// saveLog appends the member's log to its file in the cluster's artifacts
// directory, under a line that says why.
func (c *Cluster) saveLog(m *Member, why string) {
	if c.Artifacts == "" {
		return
	}
	out, err := m.Log()
	if err != nil {
		out = err.Error()
	}
	f, err := os.OpenFile(filepath.Join(c.Artifacts, m.Name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	_, _ = fmt.Fprintf(f, "===== %s: %s (%s)\n%s\n", time.Now().Format(time.RFC3339), why, strings.Join(m.Args, " "), out)
}
