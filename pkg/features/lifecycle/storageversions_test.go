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
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// TestStorageVersionMigrations checks the built-in storage version
// migrations against the generated version changes: every resource whose
// storage version changes is rewritten, in both directions, by a valid
// task on the Feature of a real gate, and the registry holds them beside
// the gate's other tasks with names unique in the lifecycle.
func TestStorageVersionMigrations(t *testing.T) {
	vc, err := inventory.LoadVersionChanges()
	if err != nil {
		t.Fatal(err)
	}
	migrations, err := StorageVersionMigrations(vc)
	if err != nil {
		t.Fatal(err)
	}
	known := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	supported := testCatalog(t).GroupResources()
	registry := testRegistry(t)
	changes := 0
	for _, step := range vc.Steps {
		for _, c := range step.StorageVersions {
			changes++
			gate, ok := StorageVersionGate(c.Resource)
			if !ok {
				t.Errorf("%s: no gate", c.Resource)
				continue
			}
			if c.Gate != string(gate) {
				t.Errorf("%s: the version changes name gate %q, StorageVersionGates %s: run hack/update-lifecycle-data.sh", c.Resource, c.Gate, gate)
			}
			if _, ok := known[gate]; !ok {
				t.Errorf("%s: %s is not a gate of kube-apiserver", c.Resource, gate)
			}
			gr := schema.ParseGroupResource(c.Resource)
			if !slices.Contains(supported, gr) {
				t.Errorf("%s: the migrator's stores cannot open it", c.Resource)
			}
			label := strings.ReplaceAll(step.To, ".", "-")
			for _, want := range []struct {
				name string
				move [2]string
			}{
				{"migrate-storage-to-" + label, [2]string{step.From, step.To}},
				{"migrate-storage-below-" + label, [2]string{step.To, step.From}},
			} {
				move, err := registry[gate].VersionMove(want.move[0], want.move[1])
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(move.Run, func(task tasks.Task) bool { return task.Name() == want.name })
				if i < 0 {
					t.Errorf("%s: moving %s -> %s must run %s on %s", c.Resource, want.move[0], want.move[1], want.name, gate)
					continue
				}
				rw, ok := move.Run[i].(*tasks.RewriteStorageTask)
				if !ok || !slices.Contains(rw.Resources(), gr) {
					t.Errorf("%s must rewrite %s: %T", want.name, c.Resource, move.Run[i])
				}
			}
		}
	}
	if changes == 0 {
		t.Fatal("no storage version changes: the version changes file is empty?")
	}
	for gate, lc := range migrations {
		if err := registry[gate].ValidateVersionTasks(); err != nil {
			t.Errorf("%s: %v", gate, err)
		}
		for _, list := range lc.versionTaskLists() {
			for _, task := range list {
				if v, ok := task.(tasks.Validator); ok {
					if err := v.Validate(testCatalog(t)); err != nil {
						t.Errorf("%s: %v", task.Name(), err)
					}
				}
				if d := task.Description(); d == "" || len(d) > maxDescriptionBytes {
					t.Errorf("%s: description %q", task.Name(), d)
				}
			}
		}
	}
	t.Logf("%d storage version changes, on %d Features", changes, len(migrations))

	// A resource no gate is named for fails loudly.
	bad := &inventory.VersionChanges{Steps: []inventory.VersionStep{{From: "1.35", To: "1.36",
		StorageVersions: []inventory.StorageVersionChange{{Resource: "widgets.example.com", From: "v1beta1", To: "v1"}}}}}
	if _, err := StorageVersionMigrations(bad); err == nil || !strings.Contains(err.Error(), "widgets.example.com") {
		t.Errorf("an unmapped resource must fail naming it: %v", err)
	}
}

// TestRegistryVersionTasks checks the version-keyed tasks of every
// lifecycle of the registry: boundaries that parse and names unique in the
// lifecycle.
func TestRegistryVersionTasks(t *testing.T) {
	for gate, lc := range testRegistry(t) {
		if err := lc.ValidateVersionTasks(); err != nil {
			t.Errorf("%s: %v", gate, err)
		}
	}
}
