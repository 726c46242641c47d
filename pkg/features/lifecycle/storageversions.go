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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// StorageVersionGates names the gate whose Feature carries the storage
// version migrations of a resource (by "resource.group", or by group for
// all its resources): the gate of the API the resource belongs to. Every
// resource whose storage version changes between two versions this binary
// emulates (inventory.LoadVersionChanges) must be found here; a unit test
// says so after a rebase.
var StorageVersionGates = map[string]featuregate.Feature{
	"mutatingadmissionpolicies.admissionregistration.k8s.io":       genericfeatures.MutatingAdmissionPolicy,
	"mutatingadmissionpolicybindings.admissionregistration.k8s.io": genericfeatures.MutatingAdmissionPolicy,
}

// StorageVersionGate returns the gate of resource ("resource.group") in
// StorageVersionGates.
func StorageVersionGate(resource string) (featuregate.Feature, bool) {
	if g, ok := StorageVersionGates[resource]; ok {
		return g, true
	}
	gr := schema.ParseGroupResource(resource)
	g, ok := StorageVersionGates[gr.Group]
	return g, ok
}

// StorageVersionMigrations returns, by gate, the built-in version-keyed
// tasks that rewrite the resources whose storage version changes at a
// version: at each such version V, an OnUpgrade{To: V} task rewrites every
// stored object of those resources at V's storage version once every
// apiserver emulates V, so that no object depends on the old version any
// more (what upstream's StorageVersionMigration is for, done when the
// version moves); an OnDowngrade{Below: V} task rewrites them back at the
// lower version's storage version, so that a further downgrade can read
// them. Tasks are named migrate-storage-to-<V> and
// migrate-storage-below-<V>, with V's dot as a dash.
func StorageVersionMigrations(vc *inventory.VersionChanges) (map[featuregate.Feature]Lifecycle, error) {
	out := map[featuregate.Feature]Lifecycle{}
	for _, step := range vc.Steps {
		byGate := map[featuregate.Feature][]inventory.StorageVersionChange{}
		for _, c := range step.StorageVersions {
			gate, ok := StorageVersionGate(c.Resource)
			if !ok {
				return nil, fmt.Errorf("%s changes its storage version from %s to %s at %s, and StorageVersionGates names no gate for it", c.Resource, c.From, c.To, step.To)
			}
			byGate[gate] = append(byGate[gate], c)
		}
		for _, gate := range slices.Sorted(maps.Keys(byGate)) {
			changes := byGate[gate]
			var resources []schema.GroupResource
			var up, down []string
			for _, c := range changes {
				gr := schema.ParseGroupResource(c.Resource)
				resources = append(resources, gr)
				up = append(up, fmt.Sprintf("%s (%s -> %s)", c.Resource, c.From, c.To))
				down = append(down, fmt.Sprintf("%s (%s -> %s)", c.Resource, c.To, c.From))
			}
			label := strings.ReplaceAll(step.To, ".", "-")
			lc := out[gate]
			lc.Upgrades = append(lc.Upgrades, OnUpgrade{To: step.To, Tasks: []tasks.Task{
				tasks.RewriteStorage("migrate-storage-to-"+label,
					describeRewrite(fmt.Sprintf("At %s, rewrite every stored object at its new storage version", step.To), up),
					resources...),
			}})
			lc.Downgrades = append(lc.Downgrades, OnDowngrade{Below: step.To, Tasks: []tasks.Task{
				tasks.RewriteStorage("migrate-storage-below-"+label,
					describeRewrite(fmt.Sprintf("Below %s, rewrite every stored object at its old storage version", step.To), down),
					resources...),
			}})
			out[gate] = lc
		}
	}
	return out, nil
}

// describeRewrite is a rewrite task's description: what, then the
// resources, shortened to fit a task description.
func describeRewrite(what string, resources []string) string {
	const limit = 480
	s := what + ": " + strings.Join(resources, ", ") + "."
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s: %s and %d more resources.", what, resources[0], len(resources)-1)
}

// withVersionTasks adds the version-keyed tasks of extra to registry's
// lifecycles, gate by gate.
func withVersionTasks(registry, extra map[featuregate.Feature]Lifecycle) {
	for gate, lc := range extra {
		merged := registry[gate]
		merged.Upgrades = append(slices.Clone(merged.Upgrades), lc.Upgrades...)
		merged.Downgrades = append(slices.Clone(merged.Downgrades), lc.Downgrades...)
		registry[gate] = merged
	}
}
