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

package lifecycle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

func TestNamespace(t *testing.T) {
	for gate, want := range map[featuregate.Feature]string{
		"MaxUnavailableStatefulSet":                      "lifecycle-max-unavailable-stateful-set",
		"OpenAPIEnums":                                   "lifecycle-open-api-enums",
		"ClusterTrustBundleProjection":                   "lifecycle-cluster-trust-bundle-projection",
		"InPlacePodVerticalScaling":                      "lifecycle-in-place-pod-vertical-scaling",
		"CSIVolumeHealth":                                "lifecycle-csi-volume-health",
		"MatchLabelKeysInPodTopologySpreadSelectorMerge": "lifecycle-match-label-keys-in-pod-topology-spread-selector-merg",
	} {
		if got := Namespace(gate); got != want {
			t.Errorf("%s: got %q, want %q", gate, got, want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Gate/10-pods.yaml", `# a comment only document
---
apiVersion: v1
kind: Pod
metadata:
  name: b
  namespace: lifecycle-gate
  annotations:
    lifecycle.features.k8s.io/control: "true"
---
apiVersion: v1
kind: Pod
metadata:
  name: c
  namespace: lifecycle-gate
`)
	write("Gate/00-namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: lifecycle-gate\n")
	write("Gate/README.md", "not an object")
	write("Stateless/README.md", "stores nothing")
	write("Bad/x.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {}\n")

	objs, err := Load(dir, "Gate")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+"/"+o.GetName())
	}
	if !slices.Equal(names, []string{"Namespace/lifecycle-gate", "Pod/b", "Pod/c"}) {
		t.Fatalf("files in name order, documents in order: %v", names)
	}
	if !IsControl(objs[1]) || IsControl(objs[2]) {
		t.Error("b is a control, c is not")
	}
	if objs, err := Load(dir, "Stateless"); err != nil || len(objs) != 0 {
		t.Errorf("a stateless gate has no objects: %v %v", objs, err)
	}
	if _, err := Load(dir, "Missing"); err == nil {
		t.Error("a gate without a directory must fail")
	}
	if _, err := Load(dir, "Bad"); err == nil {
		t.Error("an object without a name must fail")
	}
	gates, err := Gates(dir)
	if err != nil || !slices.Equal(gates, []featuregate.Feature{"Bad", "Gate", "Stateless"}) {
		t.Errorf("gates: %v %v", gates, err)
	}
	if _, err := os.Stat(Dir()); err != nil {
		t.Errorf("the fixtures directory of the tree: %v", err)
	}
}

func TestWithDependencies(t *testing.T) {
	gate := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	spec := featuregate.VersionedSpecs{{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Beta}}
	if err := gate.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{"A": spec, "B": spec, "C": spec, "D": spec}); err != nil {
		t.Fatal(err)
	}
	if err := gate.AddDependencies(map[featuregate.Feature][]featuregate.Feature{"A": {"B"}, "B": {"C"}}); err != nil {
		t.Fatal(err)
	}
	if got := WithDependencies(gate, "A"); !slices.Equal(got, []featuregate.Feature{"A", "B", "C"}) {
		t.Errorf("A needs B and C: %v", got)
	}
	if got := WithDependencies(gate, "D"); !slices.Equal(got, []featuregate.Feature{"D"}) {
		t.Errorf("D needs nothing: %v", got)
	}
}

func TestTurnsOn(t *testing.T) {
	gate := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	spec := featuregate.VersionedSpecs{{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Beta}}
	locked := featuregate.VersionedSpecs{{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}}
	if err := gate.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{"Base": spec, "Child": spec, "Other": spec, "Locked": locked, "Feature": spec}); err != nil {
		t.Fatal(err)
	}
	// Feature needs Locked; Child depends on Feature and needs Other too.
	if err := gate.AddDependencies(map[featuregate.Feature][]featuregate.Feature{"Feature": {"Base", "Locked"}, "Child": {"Feature", "Other"}}); err != nil {
		t.Fatal(err)
	}
	want := []featuregate.Feature{"Base", "Child", "Feature", "Other"}
	if got := TurnsOn(gate, "Feature"); !slices.Equal(got, want) {
		t.Errorf("turning Feature on to use all it guards: got %v, want %v (its dependencies and its dependents with theirs, not the locked gate)", got, want)
	}
	if got := TurnsOn(gate, "Other"); !slices.Equal(got, []featuregate.Feature{"Base", "Child", "Feature", "Other"}) {
		t.Errorf("Other: %v", got)
	}
}

func TestExceptions(t *testing.T) {
	dir := t.TempDir()
	if got, err := Exceptions(dir); err != nil || len(got) != 0 {
		t.Errorf("no file is no exception: %v %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ExceptionsFile), []byte("A: a reason\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Exceptions(dir); err != nil || got["A"] != "a reason" {
		t.Errorf("got %v %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, KnownFailuresFile), []byte("A: \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := KnownFailures(dir); err == nil {
		t.Error("an entry without a reason must be refused")
	}
	if _, err := KnownFailures(Dir()); err != nil {
		t.Errorf("the tree's %s: %v", KnownFailuresFile, err)
	}
}
