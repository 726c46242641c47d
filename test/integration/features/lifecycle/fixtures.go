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

// Package lifecycle loads the fixtures of the lifecycle registry
// (pkg/features/lifecycle/testdata): for each registered gate, the objects
// that use the feature while the gate is on, which the on→use→off harness
// creates before turning the gate off. See the README.md there.
package lifecycle

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// ControlAnnotation marks a fixture object that does not use the feature
// (value "true"): no task of the gate may hold or change it.
const ControlAnnotation = "lifecycle.features.k8s.io/control"

// Dir returns the fixtures directory of this source tree,
// pkg/features/lifecycle/testdata, found from the working directory up
// (go test runs a package's tests in the package's directory), not through
// runtime.Caller: the tests are built with -trimpath.
func Dir() string {
	rel := filepath.Join("pkg", "features", "lifecycle", "testdata")
	dir, err := os.Getwd()
	if err != nil {
		return rel
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, rel)); err == nil && fi.IsDir() {
			return filepath.Join(dir, rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return rel
		}
		dir = parent
	}
}

// Namespace returns the namespace of a gate's fixtures: "lifecycle-" and the
// gate's name in kebab case, e.g. lifecycle-max-unavailable-stateful-set,
// cut to the 63 characters of a namespace's name.
func Namespace(gate featuregate.Feature) string {
	ns := "lifecycle-" + featuresv1alpha1.FeatureName(string(gate))
	if len(ns) > 63 {
		ns = strings.TrimRight(ns[:63], "-")
	}
	return ns
}

// Gates returns, sorted, the gates that have a fixture directory in dir.
func Gates(dir string) ([]featuregate.Feature, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var gates []featuregate.Feature
	for _, e := range entries {
		if e.IsDir() {
			gates = append(gates, featuregate.Feature(e.Name()))
		}
	}
	slices.Sort(gates)
	return gates, nil
}

// Load returns the objects of a gate's fixture, dir/<gate>/*.yaml in file
// name order and, in a file, in document order: create them in that order
// (the Namespace comes first). A gate that stores nothing has a directory
// without YAML files and gets no objects; a gate without a directory is an
// error, the harness fails it.
func Load(dir string, gate featuregate.Feature) ([]*unstructured.Unstructured, error) {
	gateDir := filepath.Join(dir, string(gate))
	if info, err := os.Stat(gateDir); err != nil {
		return nil, fmt.Errorf("gate %s has no lifecycle fixture: %w", gate, err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("gate %s has no lifecycle fixture: %s is not a directory", gate, gateDir)
	}
	files, err := filepath.Glob(filepath.Join(gateDir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var objs []*unstructured.Unstructured
	for _, file := range files {
		fileObjs, err := loadFile(file)
		if err != nil {
			return nil, err
		}
		objs = append(objs, fileObjs...)
	}
	return objs, nil
}

// loadFile decodes the YAML documents of file.
func loadFile(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s, document %d: %w", file, doc, err)
		}
		if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // only comments
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("%s, document %d: %w", file, doc, err)
		}
		if obj.GetName() == "" {
			return nil, fmt.Errorf("%s, document %d: %s has no name", file, doc, obj.GroupVersionKind())
		}
		objs = append(objs, obj)
	}
}

// IsControl reports whether obj is a control object, one that does not use
// the feature.
func IsControl(obj *unstructured.Unstructured) bool {
	return obj.GetAnnotations()[ControlAnnotation] == "true"
}

// WithDependencies returns feature and, transitively, the features it
// depends on in gate, sorted: what to enable together to turn feature on
// (for example ClusterTrustBundleProjection needs ClusterTrustBundle).
func WithDependencies(gate featuregate.FeatureGate, feature featuregate.Feature) []featuregate.Feature {
	deps := gate.Dependencies()
	seen := map[featuregate.Feature]bool{}
	var visit func(featuregate.Feature)
	visit = func(f featuregate.Feature) {
		if seen[f] {
			return
		}
		seen[f] = true
		for _, d := range deps[f] {
			visit(d)
		}
	}
	visit(feature)
	out := make([]featuregate.Feature, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// Dependents returns the gates that depend on feature, directly or not
// (the gates that must be off while it is off), sorted, without feature.
func Dependents(gate featuregate.FeatureGate, feature featuregate.Feature) []featuregate.Feature {
	var out []featuregate.Feature
	for f := range gate.Dependencies() {
		if f != feature && slices.Contains(WithDependencies(gate, f), feature) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// TurnsOn returns what to turn on to use everything turning feature off
// takes away, sorted: feature and the gates that depend on it (turning it
// off turns them off, and the gate inventory records what they guard under
// feature too), each with what it depends on. Gates locked to their
// default are left out.
func TurnsOn(gate featuregate.FeatureGate, feature featuregate.Feature) []featuregate.Feature {
	known := gate.DeepCopy().GetAll()
	seen := map[featuregate.Feature]bool{}
	for _, g := range append(Dependents(gate, feature), feature) {
		for _, d := range WithDependencies(gate, g) {
			if spec, ok := known[d]; ok && !spec.LockToDefault {
				seen[d] = true
			}
		}
	}
	out := make([]featuregate.Feature, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}
