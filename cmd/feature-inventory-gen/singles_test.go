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
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
)

func TestLeaves(t *testing.T) {
	consts := newConstantFinder()
	byPath := map[string]leaf{}
	for _, l := range leaves(reflect.TypeFor[corev1.Pod](), consts) {
		if _, dup := byPath[l.path]; dup {
			t.Errorf("leaf %s listed twice", l.path)
		}
		byPath[l.path] = l
	}
	for _, want := range []string{
		"spec.containers[*].env[*].valueFrom.fileKeyRef.key",
		"spec.volumes[*].projected.sources[*].serviceAccountToken.user",
		"spec.nodeSelector[*]",
		"spec.overhead[*]",
		"status.containerStatuses[*].stopSignal",
		"spec.containers[*].resources.limits[*]",
	} {
		if _, ok := byPath[want]; !ok {
			t.Errorf("no leaf %s", want)
		}
	}
	for p := range byPath {
		if p == "kind" || p == "apiVersion" || within(p, "metadata") {
			t.Errorf("leaf %s is type or object meta", p)
		}
	}

	pod := &corev1.Pod{}
	if !setLeaf(reflect.ValueOf(pod), byPath["spec.containers[*].env[*].valueFrom.fileKeyRef.key"].steps, consts) {
		t.Fatal("setLeaf failed")
	}
	if got := pod.Spec.Containers[0].Env[0].ValueFrom.FileKeyRef; got == nil || got.Key != "x" || got.VolumeName != "" {
		t.Errorf("fileKeyRef = %+v, want only key set", got)
	}
	pod = &corev1.Pod{}
	setLeaf(reflect.ValueOf(pod), byPath["spec.overhead[*]"].steps, consts)
	names, err := consts.constants(reflect.TypeFor[corev1.ResourceName]())
	if err != nil || len(names) == 0 {
		t.Fatalf("constants of ResourceName: %v, %v", names, err)
	}
	if q, ok := pod.Spec.Overhead[corev1.ResourceName(names[0])]; len(pod.Spec.Overhead) != 1 || !ok || !q.Equal(apiresource.MustParse("1")) {
		t.Errorf("overhead = %v, want %s: 1 (the first declared ResourceName)", pod.Spec.Overhead, names[0])
	}
	pod = &corev1.Pod{}
	setLeaf(reflect.ValueOf(pod), byPath["status.containerStatuses[*].stopSignal"].steps, consts)
	if s := pod.Status.ContainerStatuses[0].StopSignal; s == nil || *s == "" {
		t.Errorf("stopSignal = %v, want a declared Signal", s)
	}
}

func TestAddSingleDrops(t *testing.T) {
	const g = featuregate.Feature("G")
	pvcs := schema.GroupResource{Resource: "persistentvolumeclaims"}
	pods := schema.GroupResource{Resource: "pods"}
	gs := &gateSet{}
	one := func(gr schema.GroupResource, path string, found map[string]Change) *sample {
		return &sample{res: &resource{GroupResource: gr}, single: path, unstable: map[string]bool{},
			found: map[featuregate.Feature]map[string]Change{g: found}}
	}
	inv := &inventory{footprints: map[featuregate.Feature]*footprint{}}
	// Already found by a fuzzed object: not listed again below it.
	inv.addField(gs, g, pods, "spec.volumes[*].projected", Dropped)
	addSingleDrops(inv, gs, []*sample{
		// The whole dataSourceRef goes, but only when namespace is set.
		one(pvcs, "spec.dataSourceRef.namespace", map[string]Change{"spec.dataSourceRef": Dropped}),
		one(pvcs, "spec.dataSourceRef.name", nil),
		// Every field of resources goes: the struct is listed.
		one(pvcs, "spec.x.a", map[string]Change{"spec.x": Dropped}),
		one(pvcs, "spec.x.b", map[string]Change{"spec.x": Dropped}),
		one(pods, "spec.volumes[*].projected.sources[*].x", map[string]Change{"spec.volumes[*].projected.sources[*].x": Dropped}),
		one(pods, "spec.y", map[string]Change{"spec.y": Changed}),
	})
	got := map[string][]string{}
	for gr, paths := range inv.footprints[g].fields {
		for p := range paths {
			got[gr.Resource] = append(got[gr.Resource], p)
		}
	}
	for _, ps := range got {
		slices.Sort(ps)
	}
	want := map[string][]string{
		"persistentvolumeclaims": {"spec.dataSourceRef.namespace", "spec.x"},
		"pods":                   {"spec.volumes[*].projected", "spec.y"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("footprint = %v, want %v", got, want)
	}
	if c := inv.footprints[g].fields[pods]["spec.y"]; c != Changed {
		t.Errorf("spec.y is %q, want %q", c, Changed)
	}
}
