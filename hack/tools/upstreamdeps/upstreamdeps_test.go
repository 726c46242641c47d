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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareReleases(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"v1.37.2", "v1.37.2", 0},
		{"v1.36.6", "v1.37.2", -1},
		{"v1.37.10", "v1.37.9", 1},
		{"v1.100.0", "v1.99.9", 1},
	} {
		if got := compareReleases(tc.a, tc.b); got != tc.want {
			t.Errorf("compareReleases(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for _, bad := range []string{"1.37.2", "v1.37", "v1.37.2-rc.0", "v2.0.0", "latest"} {
		if releaseRE.MatchString(bad) {
			t.Errorf("%q is accepted as a release", bad)
		}
	}
}

func TestEtcdVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dependencies.yaml")
	data := `dependencies:
  # etcd-image
  - name: "etcd-image"
    version: 3.7.0-0
  # etcd
  - name: "etcd"
    version: 3.7.0
    refPaths:
    - path: cluster/gce/manifests/etcd.manifest
      match: etcd_docker_tag|etcd_version
  - name: "golang"
    version: 1.26.8
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := etcdVersion(path); err != nil || v != "3.7.0" {
		t.Errorf("etcdVersion = %q, %v; want 3.7.0", v, err)
	}
	if err := os.WriteFile(path, []byte("dependencies:\n  - name: golang\n    version: 1.26.8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := etcdVersion(path); err == nil || !strings.Contains(err.Error(), "no etcd version") {
		t.Errorf("a file without etcd: got %v", err)
	}
}

func TestReadExceptions(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "exceptions.txt")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exc, err := readExceptions(write("# comment\n\ngolang.org/x/net v0.99.0 # fixes CVE-0000-0000\n"))
	if err != nil || len(exc) != 1 || exc["golang.org/x/net"].Version != "v0.99.0" || exc["golang.org/x/net"].Reason != "fixes CVE-0000-0000" {
		t.Errorf("got %+v, %v", exc, err)
	}
	for name, bad := range map[string]string{
		"no reason":    "golang.org/x/net v0.99.0\n",
		"empty reason": "golang.org/x/net v0.99.0 #   \n",
		"no version":   "golang.org/x/net # why\n",
		"twice":        "a v1 # x\na v2 # y\n",
	} {
		if _, err := readExceptions(write(bad)); err == nil {
			t.Errorf("%s: accepted %q", name, bad)
		}
	}
	if exc, err := readExceptions(filepath.Join(dir, "missing")); err != nil || len(exc) != 0 {
		t.Errorf("a missing file is an empty list: %v, %v", exc, err)
	}
}

func TestGraphModuleEffectiveVersion(t *testing.T) {
	m := graphModule{Path: "k8s.io/api", Version: "v0.0.0"}
	if m.effectiveVersion() != "v0.0.0" {
		t.Error("not replaced: its own version")
	}
	m.Replace = &struct{ Path, Version string }{"k8s.io/api", "v0.37.2"}
	if m.effectiveVersion() != "v0.37.2" {
		t.Error("replaced by a module version: the replacement's")
	}
	m.Replace = &struct{ Path, Version string }{"./staging/src/k8s.io/api", ""}
	if m.effectiveVersion() != "" {
		t.Error("replaced by a directory: no version")
	}
}
