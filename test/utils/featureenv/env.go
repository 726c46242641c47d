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

// Package featureenv holds what the feature lifecycle's integration tests
// (test/integration/features) and end-to-end tests (test/e2e_features) share
// without depending on an apiserver: the static tokens and service account
// key their apiservers authenticate with, and where the tree and the
// repository are.
package featureenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/util/keyutil"
)

// Static tokens of the test apiservers, one per identity the tests use.
const (
	// AdminToken authenticates as admin in group system:masters.
	AdminToken = "featureflags-integration-admin"
	// KubeControllerManagerToken authenticates as system:kube-controller-manager.
	KubeControllerManagerToken = "featureflags-integration-kcm"
	// KubeSchedulerToken authenticates as system:kube-scheduler.
	KubeSchedulerToken = "featureflags-integration-scheduler"
	// NodeToken authenticates as system:node:node-1 in group system:nodes.
	NodeToken = "featureflags-integration-node-1"
)

// TokensCSV is the static token file (--token-auth-file) with the tokens
// above.
const TokensCSV = AdminToken + ",admin,admin,system:masters\n" +
	KubeControllerManagerToken + ",system:kube-controller-manager,kcm\n" +
	KubeSchedulerToken + ",system:kube-scheduler,scheduler\n" +
	NodeToken + ",system:node:node-1,node-1,system:nodes\n"

// WriteServiceAccountKey writes a fresh ECDSA P-256 private key in PEM form,
// usable as --service-account-key-file and --service-account-signing-key-file.
func WriteServiceAccountKey(path string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	pem, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	return keyutil.WriteKey(path, pem)
}

// WriteCredentials writes into dir what the test apiservers authenticate
// with: a service account signing key (sa.key) and the static token file
// (tokens.csv).
func WriteCredentials(dir string) error {
	if err := WriteServiceAccountKey(filepath.Join(dir, "sa.key")); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(TokensCSV), 0o600)
}

// RootEnv names the environment variable with the root of the feature
// lifecycle's repository, where _output, hack/ and third_party/etcd are (the
// hack/ scripts set it).
const RootEnv = "FEATUREFLAGS_ROOT"

// TreeRoot returns the root of the kubernetes tree the tests run in (the
// directory with go.work), found by walking up from the working directory
// of the test.
func TreeRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.work above the working directory")
		}
		dir = parent
	}
}

// RepoRoot returns the root of the feature lifecycle's repository: RootEnv
// when set, else the repository whose _output/tree the tests run in, else
// the tree itself.
func RepoRoot() (string, error) {
	if root := os.Getenv(RootEnv); root != "" {
		return root, nil
	}
	tree, err := TreeRoot()
	if err != nil {
		return "", err
	}
	if repo := filepath.Dir(filepath.Dir(tree)); filepath.Base(filepath.Dir(tree)) == "_output" {
		if _, err := os.Stat(filepath.Join(repo, "patches", "RELEASE")); err == nil {
			return repo, nil
		}
	}
	return tree, nil
}

// Release returns the kubernetes release the series applies to, from the
// repository's patches/RELEASE (v1.37.2 for this series). The tree's main
// module has no version of its own, so go list cannot say it.
func Release() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, "patches", "RELEASE"))
	if err != nil {
		return "", fmt.Errorf("the release is unknown: %w (set FEATUREFLAGS_NODE_IMAGE or %s)", err, RootEnv)
	}
	release := strings.TrimSpace(string(b))
	if release == "" {
		return "", fmt.Errorf("%s is empty", filepath.Join(root, "patches", "RELEASE"))
	}
	return release, nil
}
