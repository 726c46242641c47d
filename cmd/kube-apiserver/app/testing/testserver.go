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

// Package testing starts our kube-apiserver in-process for tests, as
// upstream's cmd/kube-apiserver/app/testing does for upstream's server, but
// with our server chain (the features.k8s.io group) behind it.
package testing

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"

	reportinggate "k8s.io/features/featuregate"

	"k8s.io/featureflags/cmd/kube-apiserver/app"
	"k8s.io/featureflags/pkg/featurelifecycle/componentgate"
	testutils "k8s.io/featureflags/test/utils"
)

// TestServer is a running in-process kube-apiserver.
type TestServer struct {
	// ClientConfig is a privileged (loopback) client config.
	ClientConfig *restclient.Config
	// ServerOpts are the options the server runs with.
	ServerOpts *options.ServerRunOptions
	// TmpDir holds the server's certificates and keys.
	TmpDir string
	// TearDownFn stops the server and removes TmpDir.
	TearDownFn func()
}

// StartTestServer starts our kube-apiserver on a free localhost port with the
// given flags against storageConfig (see upstream test/integration/framework
// SharedEtcd) and waits until /healthz is ok and the default namespace exists.
// Feature gates set by flags apply to utilfeature.DefaultFeatureGate for the
// rest of the test, as with upstream's test server; two in-process servers in
// one test must therefore agree on their gates (use separate processes
// otherwise).
func StartTestServer(t testing.TB, flags []string, storageConfig *storagebackend.Config) (result TestServer, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	result.TmpDir, err = os.MkdirTemp("", "featureflags-kube-apiserver")
	if err != nil {
		cancel()
		return result, err
	}
	var errCh chan error
	tearDown := func() {
		cancel()
		if errCh != nil {
			if err, ok := <-errCh; ok && err != nil {
				t.Logf("test server did not shut down cleanly: %v", err)
			}
		}
		_ = os.RemoveAll(result.TmpDir)
	}
	defer func() {
		if result.TearDownFn == nil {
			tearDown()
		}
	}()

	// Report uses like the real binary: the process-wide gate is the
	// reporting gate (installed once per process).
	componentgate.Install(reportinggate.APIServerComponent)

	// A registry of its own, so flags do not change the process-wide gate
	// directly; overrides are copied to the default gate for the test below.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	effectiveVersion := basecompatibility.NewEffectiveVersionFromString(featureGate.EmulationVersion().String(), "", "")
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	effectiveVersion.SetMinCompatibilityVersion(featureGate.MinCompatibilityVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		return result, err
	}

	s := options.NewServerRunOptions()
	app.RegisterAdmission(s)
	s.GenericServerRunOptions.ComponentGlobalsRegistry = registry
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}

	var port int
	s.SecureServing.Listener, port, err = listenOnFreePort()
	if err != nil {
		return result, err
	}
	s.SecureServing.BindPort = port
	s.SecureServing.ServerCert.CertDirectory = result.TmpDir
	s.SecureServing.ExternalAddress = s.SecureServing.Listener.Addr().(*net.TCPAddr).IP
	s.ServiceClusterIPRanges = "10.0.0.0/16"
	s.Etcd.StorageConfig = *storageConfig

	keyFile := filepath.Join(result.TmpDir, "service-account.key")
	if err := WriteServiceAccountKey(keyFile); err != nil {
		return result, err
	}
	s.ServiceAccountSigningKeyFile = keyFile
	s.Authentication.ServiceAccounts.Issuers = []string{"https://kubernetes.default.svc"}
	s.Authentication.ServiceAccounts.KeyFiles = []string{keyFile}

	if err := fs.Parse(flags); err != nil {
		return result, err
	}
	// The test server advertises a loopback address, which the endpoint
	// reconciler refuses since 1.37; as upstream's test server, run without
	// it unless the caller chose a reconciler or an address.
	if !fs.Changed("advertise-address") && !fs.Changed("endpoint-reconciler-type") {
		s.EndpointReconcilerType = "none"
	}
	if err := registry.Set(); err != nil {
		return result, err
	}
	overrides := map[featuregate.Feature]bool{}
	for f := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if featureGate.Enabled(f) != utilfeature.DefaultFeatureGate.Enabled(f) {
			overrides[f] = featureGate.Enabled(f)
		}
	}
	if len(overrides) > 0 {
		featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
	}

	completed, err := s.Complete(ctx)
	if err != nil {
		return result, fmt.Errorf("completing options: %w", err)
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return result, fmt.Errorf("validating options: %w", utilerrors.NewAggregate(errs))
	}
	server, err := app.NewServer(completed)
	if err != nil {
		return result, fmt.Errorf("creating the server chain: %w", err)
	}

	errCh = make(chan error)
	go func() {
		defer close(errCh)
		prepared, err := server.PrepareRun()
		if err != nil {
			errCh <- err
			return
		}
		if err := prepared.Run(ctx); err != nil {
			errCh <- err
		}
	}()

	client, err := kubernetes.NewForConfig(server.GenericAPIServer.LoopbackClientConfig)
	if err != nil {
		return result, err
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-errCh:
			return false, fmt.Errorf("server exited: %w", err)
		default:
		}
		status := 0
		client.CoreV1().RESTClient().Get().AbsPath("/healthz").Do(ctx).StatusCode(&status)
		if status != 200 {
			return false, nil
		}
		_, err := client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return result, fmt.Errorf("waiting for the server to become healthy: %w", err)
	}

	result.ClientConfig = restclient.CopyConfig(server.GenericAPIServer.LoopbackClientConfig)
	result.ClientConfig.QPS = 1000
	result.ClientConfig.Burst = 10000
	result.ServerOpts = s
	result.TearDownFn = tearDown
	return result, nil
}

// StartTestServerOrDie is StartTestServer that fails the test on error and
// tears the server down when the test ends.
func StartTestServerOrDie(t testing.TB, flags []string, storageConfig *storagebackend.Config) *TestServer {
	t.Helper()
	result, err := StartTestServer(t, flags, storageConfig)
	if err != nil {
		t.Fatalf("failed to start kube-apiserver: %v", err)
	}
	t.Cleanup(result.TearDownFn)
	return &result
}

func listenOnFreePort() (net.Listener, int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, 0, err
	}
	return l, l.Addr().(*net.TCPAddr).Port, nil
}

// WriteServiceAccountKey writes a fresh ECDSA P-256 private key in PEM form,
// usable as --service-account-key-file and --service-account-signing-key-file.
func WriteServiceAccountKey(path string) error {
	return testutils.WriteServiceAccountKey(path)
}
