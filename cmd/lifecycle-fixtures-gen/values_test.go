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
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

func mustParse(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	m, err := parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name, dst, src, want string
	}{
		{"named list elements merge",
			`{containers: [{name: app, image: pause}]}`,
			`{containers: [{name: app, livenessProbe: {grpc: {port: 1}}}]}`,
			`{containers: [{name: app, image: pause, livenessProbe: {grpc: {port: 1}}}]}`},
		{"other elements are appended",
			`{volumes: [{name: a, emptyDir: {}}]}`,
			`{volumes: [{name: b, emptyDir: {}}]}`,
			`{volumes: [{name: a, emptyDir: {}}, {name: b, emptyDir: {}}]}`},
		{"scalar lists are sets",
			`{conditions: [ready, failed]}`,
			`{conditions: [ready, other]}`,
			`{conditions: [ready, failed, other]}`},
		{"null removes a one-of choice",
			`{spec: {podGroupTemplates: [{name: g}]}}`,
			`{spec: {podGroupTemplates: null, compositePodGroupTemplates: [{name: c}]}}`,
			`{spec: {compositePodGroupTemplates: [{name: c}]}}`},
		{"scalars are replaced",
			`{restartPolicy: Always}`,
			`{restartPolicy: Never}`,
			`{restartPolicy: Never}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := merge(mustParse(t, tc.dst), mustParse(t, tc.src))
			want := mustParse(t, tc.want)
			if !equality.Semantic.DeepEqual(got, want) {
				g, _ := yaml.Marshal(got)
				w, _ := yaml.Marshal(want)
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
		})
	}
}

func TestPodSpecFragment(t *testing.T) {
	got, err := podSpecFragment("initContainers[*].lifecycle.stopSignal")
	if err != nil {
		t.Fatal(err)
	}
	want := mustParse(t, `
os: {name: linux}
initContainers:
- {name: init, image: "registry.k8s.io/pause:3.10", restartPolicy: Always, lifecycle: {stopSignal: SIGTERM}}`)
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := podSpecFragment("nodeName"); err == nil {
		t.Error("a path without a value must be an error")
	}
}
