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

// Package framework is the shared harness of our integration tests: etcd
// (built by hack/install-etcd.sh, or reused from KUBE_INTEGRATION_ETCD_URL)
// and our kube-apiserver in-process or as separate processes.
package harness

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	upstreamframework "k8s.io/kubernetes/test/integration/framework"

	testutils "k8s.io/kubernetes/test/utils/featureenv"
)

// RepoRoot returns the root of the feature lifecycle's repository, where
// third_party/etcd is (featureenv.RepoRoot).
func RepoRoot() (string, error) { return testutils.RepoRoot() }

// EtcdMain runs the tests of a package against etcd: the one at
// KUBE_INTEGRATION_ETCD_URL when it answers, else one started from
// third_party/etcd/etcd (hack/install-etcd.sh) for the duration of the run.
// Call it from TestMain: func TestMain(m *testing.M) { framework.EtcdMain(m.Run) }.
func EtcdMain(tests func() int) {
	if root, err := RepoRoot(); err == nil {
		// Upstream's harness looks etcd up on PATH.
		_ = os.Setenv("PATH", filepath.Join(root, "third_party", "etcd")+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	upstreamframework.EtcdMain(tests)
}

// SharedEtcd returns a storage config for the shared etcd with a fresh key
// prefix, so tests do not see each other's objects.
func SharedEtcd() *storagebackend.Config {
	return upstreamframework.SharedEtcd()
}

// EtcdURL returns the URL of the etcd the tests run against.
func EtcdURL() string {
	return upstreamframework.GetEtcdURL()
}

// StoredSpecs reads from etcd directly the objects of group's resource in
// namespace that an apiserver with the key prefix stored as JSON (custom
// resources), and returns each one's spec by name: what the storage wrote,
// not what the apiserver's read path makes of it.
func StoredSpecs(t testing.TB, prefix, group, resource, namespace string) map[string]map[string]interface{} {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := client.Get(ctx, path.Join("/", prefix, group, resource, namespace)+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]interface{}{}
	for _, kv := range resp.Kvs {
		var obj struct {
			Spec map[string]interface{} `json:"spec"`
		}
		if err := json.Unmarshal(kv.Value, &obj); err != nil {
			t.Fatalf("%s: %v", kv.Key, err)
		}
		out[path.Base(string(kv.Key))] = obj.Spec
	}
	return out
}
