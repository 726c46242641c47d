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

package migratortest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/apiserver/pkg/storage/storagebackend"
)

// EtcdBinaryEnv names the environment variable that overrides the path of
// the etcd binary StartEtcdProcess runs.
const EtcdBinaryEnv = "FEATUREFLAGS_ETCD"

// EtcdProcessOptions says how StartEtcdProcess runs etcd.
type EtcdProcessOptions struct {
	// Fsync makes etcd fsync its log before it acknowledges a write, as in
	// production; without it etcd runs with --unsafe-no-fsync.
	Fsync bool
	// GOMAXPROCS bounds the cores etcd computes on; 0 leaves it to Go.
	GOMAXPROCS int
}

// StartEtcdProcess starts the etcd binary that hack/install-etcd.sh builds
// (third_party/etcd/etcd of this module, or $FEATUREFLAGS_ETCD) as a
// separate process that stops when the test ends, and returns
// kube-apiserver's storage over it. It skips the test when there is no
// binary.
func StartEtcdProcess(tb testing.TB, opts EtcdProcessOptions) *Etcd {
	tb.Helper()
	binary := etcdBinary()
	if binary == "" {
		tb.Skipf("no etcd binary: run hack/install-etcd.sh or set %s", EtcdBinaryEnv)
	}
	clientURL := "http://" + freeAddress(tb)
	peerURL := "http://" + freeAddress(tb)
	args := []string{
		"--name=default",
		"--data-dir=" + tb.TempDir(),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=default=" + peerURL,
		"--log-level=error",
		"--quota-backend-bytes=" + strconv.Itoa(8<<30),
	}
	if !opts.Fsync {
		args = append(args, "--unsafe-no-fsync")
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = os.Environ()
	if opts.GOMAXPROCS > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("GOMAXPROCS=%d", opts.GOMAXPROCS))
	}
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		tb.Fatalf("Starting %s: %v", binary, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	client, err := clientv3.New(clientv3.Config{Endpoints: []string{clientURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		tb.Fatalf("Connecting to etcd: %v", err)
	}
	defer func() { _ = client.Close() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := client.Get(ctx, "health")
		cancel()
		if err == nil {
			break
		}
		select {
		case exitErr := <-exited:
			tb.Fatalf("etcd exited (%v) before it served: %s", exitErr, output.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("etcd did not serve within 30s: %v: %s", err, output.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return newEtcd(tb, []string{clientURL}, &storagebackend.Config{
		Type:      storagebackend.StorageTypeETCD3,
		Prefix:    "/registry",
		Transport: storagebackend.TransportConfig{ServerList: []string{clientURL}},
	})
}

// etcdBinary returns $FEATUREFLAGS_ETCD, or third_party/etcd/etcd in the
// first directory above the working directory that has one, or "".
func etcdBinary() string {
	if path := os.Getenv(EtcdBinaryEnv); path != "" {
		return path
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		candidate := filepath.Join(dir, "third_party", "etcd", "etcd")
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// freeAddress returns a loopback address with a port nobody listens on.
func freeAddress(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}
