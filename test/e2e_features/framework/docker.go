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

// Package framework is the harness of the end-to-end tests: a control plane
// of our images (hack/build-images.sh) in Docker containers on a private
// network of their own, where any member can be stopped, killed, paused or
// cut off the network and brought back. It talks to the Docker engine
// through the docker CLI, so it adds nothing to the module graph.
package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Environment of the end-to-end tests.
const (
	// RequiredEnv set to 1 (make test-e2e sets it) makes missing
	// prerequisites (a Docker engine, the images) fail the tests instead of
	// skipping them.
	RequiredEnv = "FEATUREFLAGS_E2E"
	// DockerEnv names the docker CLI (default docker).
	DockerEnv = "FEATUREFLAGS_DOCKER"
	// ImageRepoEnv and ImageTagEnv name the images (default
	// featureflags/<name>:e2e, as hack/build-images.sh tags them).
	ImageRepoEnv = "FEATUREFLAGS_E2E_IMAGE_REPO"
	ImageTagEnv  = "FEATUREFLAGS_E2E_IMAGE_TAG"
	// ArtifactsEnv names the directory that receives every container's log,
	// one directory per test (default _output/e2e under the repository).
	ArtifactsEnv = "FEATUREFLAGS_E2E_ARTIFACTS"
)

// Labels of everything the harness creates, so that what a killed test run
// left behind can be found and removed.
const (
	labelRun = "io.featureflags.e2e.run"
	labelPID = "io.featureflags.e2e.pid"
)

// dockerTimeout bounds every docker command.
const dockerTimeout = 2 * time.Minute

// Docker runs the docker CLI with args and returns its standard output,
// trimmed; the error carries its standard error.
func Docker(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, dockerTimeout)
	defer cancel()
	cli := os.Getenv(DockerEnv)
	if cli == "" {
		cli = "docker"
	}
	cmd := exec.CommandContext(ctx, cli, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return strings.TrimSpace(stdout.String()), fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// dockerCombined runs the docker CLI and returns its standard output and
// error together (docker logs writes a container's standard error to its own).
func dockerCombined(ctx context.Context, args ...string) (string, error) {
	cli := os.Getenv(DockerEnv)
	if cli == "" {
		cli = "docker"
	}
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("docker %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// Image returns the reference of our image of component (kube-apiserver,
// kube-controller-manager, kube-scheduler, etcd).
func Image(component string) string {
	repo, tag := os.Getenv(ImageRepoEnv), os.Getenv(ImageTagEnv)
	if repo == "" {
		repo = "featureflags"
	}
	if tag == "" {
		tag = "e2e"
	}
	return repo + "/" + component + ":" + tag
}

// Components are the images a cluster runs.
var Components = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

var (
	requireOnce sync.Once
	requireErr  error
)

// Require skips the test, or fails it when RequiredEnv is 1, unless a
// Docker engine answers and our images exist. The first call also removes
// what earlier runs of the harness that no longer run left behind.
func Require(t testing.TB) {
	t.Helper()
	requireOnce.Do(func() {
		ctx := context.Background()
		if _, err := Docker(ctx, "version", "--format", "{{.Server.Version}}"); err != nil {
			requireErr = fmt.Errorf("no Docker engine: %w", err)
			return
		}
		var missing []string
		for _, c := range Components {
			if _, err := Docker(ctx, "image", "inspect", "--format", "{{.Id}}", Image(c)); err != nil {
				missing = append(missing, Image(c))
			}
		}
		if len(missing) > 0 {
			requireErr = fmt.Errorf("images %s are missing: build them with hack/build-images.sh (make test-e2e does)", strings.Join(missing, ", "))
			return
		}
		sweep(ctx)
	})
	if requireErr != nil {
		if os.Getenv(RequiredEnv) == "1" {
			t.Fatal(requireErr)
		}
		t.Skipf("end-to-end test skipped (%v); make test-e2e runs it", requireErr)
	}
}

// sweep removes the containers, networks and volumes of harness runs whose
// process has gone (a run killed before its cleanup).
func sweep(ctx context.Context) {
	stale := func(pid string) bool {
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 {
			return false
		}
		return errors.Is(syscall.Kill(n, 0), syscall.ESRCH)
	}
	list := func(args ...string) []string {
		out, err := Docker(ctx, args...)
		if err != nil || out == "" {
			return nil
		}
		var ids []string
		for _, line := range strings.Split(out, "\n") {
			if id, pid, ok := strings.Cut(line, " "); ok && stale(pid) {
				ids = append(ids, id)
			}
		}
		return ids
	}
	format := "{{.ID}} {{.Label \"" + labelPID + "\"}}"
	if ids := list("ps", "-a", "--filter", "label="+labelPID, "--format", format); len(ids) > 0 {
		_, _ = Docker(ctx, append([]string{"rm", "-f", "-v"}, ids...)...)
	}
	if ids := list("network", "ls", "--filter", "label="+labelPID, "--format", format); len(ids) > 0 {
		_, _ = Docker(ctx, append([]string{"network", "rm"}, ids...)...)
	}
	volFormat := "{{.Name}} {{.Label \"" + labelPID + "\"}}"
	if ids := list("volume", "ls", "--filter", "label="+labelPID, "--format", volFormat); len(ids) > 0 {
		_, _ = Docker(ctx, append([]string{"volume", "rm", "-f"}, ids...)...)
	}
}
