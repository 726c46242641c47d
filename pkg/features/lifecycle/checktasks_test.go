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
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// maxDescriptionBytes is validation's bound on status.tasks[].description.
const maxDescriptionBytes = 1024

// checkTasks checks the tasks of one lifecycle: well-named, unique in their
// transition, described, valid, on resources the migrator's stores can open.
func checkTasks(t *testing.T, lc Lifecycle, supported []schema.GroupResource) {
	t.Helper()
	for transition, list := range map[string][]tasks.Task{"OnEnable": lc.OnEnable, "OnDisable": lc.OnDisable} {
		names := []string{tasks.WaitForUsesName}
		for i, task := range list {
			if task == nil {
				t.Errorf("%s[%d] is nil", transition, i)
				continue
			}
			name := task.Name()
			for _, msg := range validation.IsDNS1123Label(name) {
				t.Errorf("%s[%d]: task name %q: %s", transition, i, name, msg)
			}
			if slices.Contains(names, name) {
				t.Errorf("%s[%d]: task name %q is not unique in the transition (wait-for-uses comes first)", transition, i, name)
			}
			names = append(names, name)
			if d := task.Description(); d == "" || len(d) > maxDescriptionBytes {
				t.Errorf("%s: the description must say what the task does, in at most %d bytes: %q", name, maxDescriptionBytes, d)
			}
			if v, ok := task.(tasks.Validator); ok {
				if err := v.Validate(testCatalog(t)); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			if in, ok := task.(tasks.Inspector); ok {
				if len(in.Resources()) == 0 {
					t.Errorf("%s inspects no resource", name)
				}
				for _, gr := range in.Resources() {
					if !slices.Contains(supported, gr) {
						t.Errorf("%s reads %s, which the migrator's stores cannot open (supported: %v)", name, gr, supported)
					}
				}
			}
		}
	}
}
