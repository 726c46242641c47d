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
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	api "k8s.io/kubernetes/pkg/apis/core"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// Guarded returns, built once from the gate inventory, by resource, the
// fields upstream's strategies drop with a gate off (its footprint's
// fields, not those it only changes), a pod spec path found under one
// resource applied to every resource holding a pod spec, as the derived
// tasks apply them, with the values the strategy keeps.
var Guarded = sync.OnceValues(func() (map[schema.GroupResource]inventory.GuardedResource, error) {
	inv, err := inventory.Load()
	if err != nil {
		return nil, err
	}
	templates, err := podTemplatePrefixes(inv, podTemplateObject)
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupResource]inventory.GuardedResource{}
	add := func(gr schema.GroupResource, gate string, p gatedfield.Path, kept []string) error {
		r, ok := out[gr]
		if !ok {
			gv, err := inv.Version(gr)
			if err != nil {
				return err
			}
			r.Version = gv
		}
		for _, f := range r.Fields {
			if string(f.Gate) == gate && f.Path.String() == p.String() {
				return nil
			}
		}
		r.Fields = append(r.Fields, inventory.GuardedField{Gate: featuregate.Feature(gate), Path: p, Keep: gatedfield.KeepStrings(kept)})
		out[gr] = r
		return nil
	}
	for _, gate := range slices.Sorted(maps.Keys(inv.Gates)) {
		fp := inv.Gates[gate]
		paths := fp.FieldPaths()
		rel := map[string][]string{} // pod spec paths, their kept values
		for _, gr := range slices.SortedFunc(maps.Keys(paths), compareGR) {
			for _, p := range leaves(paths[gr]) {
				kept := fp.KeptValues(gr, p.String())
				if prefix, ok := templates[gr]; ok {
					if r, ok := p.TrimPrefix(prefix); ok {
						rel[r.String()] = union(rel[r.String()], kept)
						continue
					}
				}
				if err := add(gr, gate, p, kept); err != nil {
					return nil, err
				}
			}
		}
		for _, gr := range slices.SortedFunc(maps.Keys(templates), compareGR) {
			for _, r := range slices.Sorted(maps.Keys(rel)) {
				if err := add(gr, gate, templates[gr].Join(gatedfield.MustParse(r)), rel[r]); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
})

// podTemplateObject returns an empty internal object of gr when its
// objects hold a pod spec: pods and migrator.PodTemplateResources.
// TestPodTemplateObjects checks that these are all the resources of
// kube-apiserver's store catalog whose objects hold one.
func podTemplateObject(gr schema.GroupResource) (runtime.Object, error) {
	if gr == podResource {
		return &api.Pod{}, nil
	}
	if t := migrator.PodTemplateType(gr); t != nil {
		return reflect.New(t.Elem()).Interface().(runtime.Object), nil
	}
	return nil, fmt.Errorf("the objects of %s hold no pod spec", gr.String())
}
