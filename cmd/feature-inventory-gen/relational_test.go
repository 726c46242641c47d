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

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
)

func TestStructOfAndRelated(t *testing.T) {
	for p, want := range map[string]string{
		"spec.hostNetwork":                         "spec",
		"spec.containers[*].resources.requests[*]": "spec.containers[*].resources",
		"spec.devices[*].capacity[*].value":        "spec.devices[*].capacity[*]",
		"replicas":                                 "",
	} {
		if got := structOf(p); got != want {
			t.Errorf("structOf(%s) = %q, want %q", p, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"spec.hostUsers", "spec.hostNetwork", true},                                        // one struct
		{"spec.hostNetwork", "spec.securityContext.runAsNonRoot", true},                     // a field of the parent
		{"spec.containers[*].stdin", "spec.containers[*].securityContext.privileged", true}, // and its child
		{"spec.containers[*].stdin", "spec.securityContext.runAsNonRoot", false},            // cousins
		{"replicas", "paused", true},                                                        // top level
	} {
		if got := related(c.a, c.b); got != c.want {
			t.Errorf("related(%s, %s) = %t, want %t", c.a, c.b, got, c.want)
		}
	}
}

func TestAssign(t *testing.T) {
	u := map[string]interface{}{
		"spec": map[string]interface{}{
			"hostNetwork": false,
			"containers": []interface{}{
				map[string]interface{}{"name": "a", "resources": map[string]interface{}{"requests": map[string]interface{}{"cpu": "1", "memory": "1Gi"}}},
				map[string]interface{}{"name": "b"},
			},
			"capacity": map[string]interface{}{"x": map[string]interface{}{"value": "1"}, "y": map[string]interface{}{"value": "2", "policy": map[string]interface{}{"values": []interface{}{"1"}}}},
		},
	}
	ok := assign(u, []assignment{
		{path: "spec.hostNetwork", value: true},                           // replaced
		{path: "spec.hostUsers", value: false},                            // set where unset
		{path: "spec.containers[*].stdin", value: true},                   // every element
		{path: "spec.containers[*].resources.requests[*]", value: "500m"}, // every map value
		{path: "spec.capacity[*].value", value: "3"},                      // every map value's field
		{path: "spec.capacity[*].policy.values", absent: true},            // removed
	})
	if !ok {
		t.Fatal("assign found no place for an assignment")
	}
	spec := u["spec"].(map[string]interface{})
	if spec["hostNetwork"] != true || spec["hostUsers"] != false {
		t.Errorf("spec: %v", spec)
	}
	for _, c := range spec["containers"].([]interface{}) {
		if c.(map[string]interface{})["stdin"] != true {
			t.Errorf("container %v: stdin not set", c)
		}
	}
	req := spec["containers"].([]interface{})[0].(map[string]interface{})["resources"].(map[string]interface{})["requests"].(map[string]interface{})
	if req["cpu"] != "500m" || req["memory"] != "500m" {
		t.Errorf("requests: %v", req)
	}
	capacity := spec["capacity"].(map[string]interface{})
	for k, c := range capacity {
		if c.(map[string]interface{})["value"] != "3" {
			t.Errorf("capacity %s: %v", k, c)
		}
	}
	if _, ok := capacity["y"].(map[string]interface{})["policy"].(map[string]interface{})["values"]; ok {
		t.Errorf("capacity y: values not removed: %v", capacity["y"])
	}
	if assign(u, []assignment{{path: "spec.affinity.nodeAffinity", value: "x"}}) {
		t.Error("a field of a struct the object does not hold was placed")
	}
}

// TestQuantityFamilies checks the family of a ResourceSlice's request
// policy: the capacity's value, the policy's default and valid values,
// its optional range (first) and the range's bounds and step.
func TestQuantityFamilies(t *testing.T) {
	ls, err := relLeaves(reflect.TypeFor[resourcev1.ResourceSlice](), newConstantFinder())
	if err != nil {
		t.Fatal(err)
	}
	var policy *family
	for _, f := range quantityFamilies(ls) {
		if f.anchor == "spec.devices[*].capacity[*].requestPolicy" {
			policy = &f
		}
	}
	if policy == nil {
		t.Fatalf("no family anchored at the request policy: %v", quantityFamilies(ls))
	}
	var paths []string
	for _, m := range policy.members {
		paths = append(paths, m.path)
	}
	want := []string{
		"spec.devices[*].capacity[*].requestPolicy.validRange",
		"spec.devices[*].capacity[*].value",
		"spec.devices[*].capacity[*].requestPolicy.default",
		"spec.devices[*].capacity[*].requestPolicy.validValues",
		"spec.devices[*].capacity[*].requestPolicy.validRange.min",
		"spec.devices[*].capacity[*].requestPolicy.validRange.max",
		"spec.devices[*].capacity[*].requestPolicy.validRange.step",
	}
	if !slices.Equal(paths, want) {
		t.Errorf("members:\n%v\nwant\n%v", paths, want)
	}
	// With the range: 4^5 values of the quantities, 2 of the list; without
	// it: 4^2 * 2.
	if n := len(familyAssignments(policy.members)); n != 4*4*4*4*4*2+4*4*2 {
		t.Errorf("%d assignments", n)
	}
}

// TestCombinations checks that a refusal the other field's every value
// gets is left to the one-field probe.
func TestCombinations(t *testing.T) {
	r := &resource{}
	r.GroupResource = schema.GroupResource{Resource: "pods"}
	trial := func(a, b string, cand ...string) *relTrial {
		c := map[string]bool{}
		for _, f := range cand {
			c[f] = true
		}
		return &relTrial{res: r, class: classCombination, probe: []string{a, b}, cand: c, on: map[string]bool{}}
	}
	trials := []*relTrial{
		trial("spec.hostUsers=false", "spec.hostNetwork=true", "spec.hostNetwork"),
		trial("spec.hostUsers=false", "spec.hostNetwork=false"),
		trial("spec.hostUsers=true", "spec.hostNetwork=true"),
		trial("spec.hostUsers=true", "spec.hostNetwork=false"),
		// x=1 is refused whatever y holds: not a combination.
		trial("spec.x=1", "spec.y=a", "spec.x"),
		trial("spec.x=1", "spec.y=b", "spec.x"),
		trial("spec.x=2", "spec.y=a"),
	}
	found := findings{}
	found.add("G", r.GroupResource, "spec.hostNetwork", &relFinding{class: classCombination, probe: trials[0].probe})
	found.add("G", r.GroupResource, "spec.x", &relFinding{class: classCombination, probe: trials[4].probe})
	combinations(trials, found)
	if _, ok := found["G"][r.GroupResource]["spec.hostNetwork"]; !ok {
		t.Error("the combination of hostUsers and hostNetwork was dropped")
	}
	if _, ok := found["G"][r.GroupResource]["spec.x"]; ok {
		t.Error("a value refused alone was kept as a combination")
	}
}

// TestCovered checks what the inventory already holds: a pod spec path
// under one resource counts for every resource with a pod spec, but what
// kube-apiserver wrote into pods counts for pods only.
func TestCovered(t *testing.T) {
	pods, deploy := schema.GroupResource{Resource: "pods"}, schema.GroupResource{Group: "apps", Resource: "deployments"}
	inv := &inventory{
		footprints: map[featuregate.Feature]*footprint{},
		podSpecs:   map[schema.GroupResource]string{pods: "spec", deploy: "spec.template.spec"},
		refused: map[featuregate.Feature]map[schema.GroupResource]map[string][]string{
			"R": {deploy: {"spec.updateStrategy.type": {"Recreate"}}},
		},
		relational: map[featuregate.Feature]map[schema.GroupResource]map[string]*relFinding{
			"C": {pods: {"spec.hostNetwork": {class: classCombination}}},
			"P": {pods: {"spec.topologySpreadConstraints[*].matchLabelKeys[*]": {class: classPrepared}}},
		},
	}
	for _, c := range []struct {
		g     featuregate.Feature
		gr    schema.GroupResource
		field string
		want  bool
	}{
		{"R", deploy, "spec.updateStrategy", true}, // a field it is part of
		{"R", deploy, "spec.replicas", false},
		{"C", deploy, "spec.template.spec.hostNetwork", true}, // through the pod spec
		{"P", pods, "spec.topologySpreadConstraints[*].matchLabelKeys[*]", true},
		{"P", deploy, "spec.template.spec.topologySpreadConstraints[*].matchLabelKeys[*]", false},
	} {
		if got := inv.covered(c.g, c.gr, c.field); got != c.want {
			t.Errorf("covered(%s, %s, %s) = %t, want %t", c.g, c.gr, c.field, got, c.want)
		}
	}
}

func TestDocuments(t *testing.T) {
	data := []byte(`apiVersion: v1
kind: Pod
metadata: {name: "pod-{{.Index}}"}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
- {apiVersion: v1, kind: Secret, metadata: {name: b}}
---
apiVersion: example.com/v1
kind: Unknown
`)
	docs := documents(data)
	if len(docs) != 3 {
		t.Fatalf("%d documents", len(docs))
	}
	var kinds []string
	for _, d := range docs {
		for _, obj := range decodeAll(d) {
			kinds = append(kinds, reflect.TypeOf(obj).Elem().Name())
		}
	}
	if want := []string{"Pod", "ConfigMap", "Secret"}; !slices.Equal(kinds, want) {
		t.Errorf("decoded %v, want %v", kinds, want)
	}
	objs := decodeAll(docs[0])
	if name := objs[0].(runtime.Object).(interface{ GetName() string }).GetName(); name != "pod-0" {
		t.Errorf("name %q: the template action is not read as 0", name)
	}
}
