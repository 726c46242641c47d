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
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ComponentProcess is one of our component binaries (kube-controller-manager,
// kube-scheduler, kubelet) running as a process against an APIServerProcess.
type ComponentProcess struct {
	// Name is the binary's name.
	Name string
	// Dir holds its kubeconfig and log.
	Dir string

	cmd    *exec.Cmd
	exited chan struct{}
}

// WriteKubeconfig writes a kubeconfig for the apiserver that authenticates
// with token into dir and returns its path.
func WriteKubeconfig(t testing.TB, apiserver *APIServerProcess, token, dir string) string {
	t.Helper()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	err := clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: apiserver.ClientConfigFor(token).Host, InsecureSkipTLSVerify: true}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"u": {Token: token}},
		Contexts:       map[string]*clientcmdapi.Context{"c": {Cluster: "c", AuthInfo: "u"}},
		CurrentContext: "c",
	}, kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// StartComponentProcess runs cmd/<name> (kube-controller-manager or
// kube-scheduler) with the FeatureLifecycle gate on (components report and
// follow features only with it), a kubeconfig for the apiserver that
// authenticates with token, no leader election, no serving, and flags (a
// --feature-gates among them adds to the first).
func StartComponentProcess(t testing.TB, name string, apiserver *APIServerProcess, token string, flags ...string) *ComponentProcess {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"--feature-gates=FeatureLifecycle=true", "--kubeconfig=" + WriteKubeconfig(t, apiserver, token, dir),
		"--leader-elect=false", "--secure-port=0"}, flags...)
	return StartProcess(t, name, dir, args...)
}

// StartProcess runs our binary cmd/<name> with args, logging to a file in
// dir. It is stopped when the test ends.
func StartProcess(t testing.TB, name, dir string, args ...string) *ComponentProcess {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	p := &ComponentProcess{Name: name, Dir: dir, cmd: exec.Command(Binary(t, name), args...), exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		_ = log.Close()
		close(p.exited)
	}()
	t.Cleanup(p.Stop)
	return p
}

// Exited reports whether the process has exited.
func (p *ComponentProcess) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Log returns the process's log.
func (p *ComponentProcess) Log() string {
	data, _ := os.ReadFile(filepath.Join(p.Dir, p.Name+".log"))
	return string(data)
}

// Stop stops the process with SIGTERM (SIGKILL after 20 s) and waits for it.
func (p *ComponentProcess) Stop() {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// ExitCode returns the exit code of a process that has exited, or -1.
func (p *ComponentProcess) ExitCode() int {
	if !p.Exited() || p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// WaitForExit waits up to timeout for the process to exit and reports
// whether it did.
func (p *ComponentProcess) WaitForExit(timeout time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Kubectl runs the kubectl binary against apiserver as admin, with a
// discovery and OpenAPI cache of its own, and returns its combined output.
func Kubectl(t testing.TB, apiserver *APIServerProcess, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(Binary(t, "kubectl"), append([]string{"--kubeconfig=" + WriteKubeconfig(t, apiserver, AdminToken, dir)}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}
