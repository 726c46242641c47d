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
	"testing"

	"k8s.io/kubernetes/pkg/features/inventory"
)

// TestPodTemplateObjects checks that the resources Guarded finds pod specs
// in without a store catalog (pods and migrator.PodTemplateResources) are
// all those of kube-apiserver's store catalog whose objects hold one, at
// the same paths: a resource upstream adds with a pod template fails it
// until it is added to migrator.PodTemplateResources.
func TestPodTemplateObjects(t *testing.T) {
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	fromCatalog, err := podTemplatePrefixes(inv, testCatalog(t).NewObject)
	if err != nil {
		t.Fatal(err)
	}
	static, err := podTemplatePrefixes(inv, podTemplateObject)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromCatalog) == 0 {
		t.Fatal("no resource of the store catalog holds a pod spec")
	}
	for gr, p := range fromCatalog {
		if got, ok := static[gr]; !ok || got.String() != p.String() {
			t.Errorf("%s holds a pod spec at %s; without a catalog it is found at %v (add it to migrator.PodTemplateResources)", gr, p, got)
		}
	}
	for gr := range static {
		if _, ok := fromCatalog[gr]; !ok {
			t.Errorf("%s is not a resource of the store catalog whose objects hold a pod spec", gr)
		}
	}
}
