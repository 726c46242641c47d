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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"

	"k8s.io/kubernetes/pkg/features/inventory"
	lifecyclefixtures "k8s.io/kubernetes/test/integration/features/lifecycle"
)

// create runs obj through upstream's defaulting and create strategy as
// kube-apiserver does, without admission (lifecyclefixtures.Prepare).
func create(obj *unstructured.Unstructured) (runtime.Object, schema.GroupResource, error) {
	return lifecyclefixtures.Prepare(obj)
}

// TestLifecycleFixtures checks every gate's fixture against upstream's
// defaulting, strategies and validation: with the gate on, each object is
// accepted, the objects that use the feature are held by an inspector of
// the gate, control objects by none, and each inspector holds at least one
// object; with the gate off, no object holds what the gate guards (it cannot
// be written then, so once a task is done nothing brings it back).
func TestLifecycleFixtures(t *testing.T) {
	dir := lifecyclefixtures.Dir()
	registry := testRegistry(t)
	for _, gate := range fixtureGates(t) {
		lc := registry[gate]
		t.Run(string(gate), func(t *testing.T) {
			objs, err := lifecyclefixtures.Load(dir, gate)
			if err != nil {
				t.Fatal(err)
			}
			ins := lc.Inspectors()
			if len(ins) > 0 && len(objs) == 0 {
				t.Fatalf("%s has tasks that look at stored objects but its fixture has none", gate)
			}
			if len(objs) == 0 {
				return
			}
			emulateChangeable(t, gate)
			ns := lifecyclefixtures.Namespace(gate)
			if objs[0].GetKind() != "Namespace" || objs[0].GetName() != ns {
				t.Errorf("the first object must be the Namespace %s, is %s %s", ns, objs[0].GetKind(), objs[0].GetName())
			}

			t.Run("on", func(t *testing.T) {
				enable(t, gate, true)
				type made struct {
					name   string
					obj    *unstructured.Unstructured
					stored runtime.Object
					gr     schema.GroupResource
				}
				var all []made
				for _, obj := range objs {
					name := fmt.Sprintf("%s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
					switch {
					case obj.GetKind() == "Namespace":
					case obj.GetNamespace() == "" && !strings.HasPrefix(obj.GetName(), ns):
						t.Errorf("%s: a cluster-scoped fixture object is named after the fixture's namespace, %s", name, ns)
					case obj.GetNamespace() != "" && obj.GetNamespace() != ns:
						t.Errorf("%s: fixture objects go in the namespace %s", name, ns)
					}
					stored, gr, err := create(obj)
					if err != nil {
						t.Errorf("%s is not accepted with %s on: %v", name, gate, err)
						continue
					}
					all = append(all, made{name, obj, stored, gr})
				}
				// The tasks that run validation hold what it refuses with
				// the gate off, as in a transition.
				offHolds := map[string]map[int]bool{}
				t.Run("validated-with-the-gate-off", func(t *testing.T) {
					enable(t, gate, false)
					for task, in := range ins {
						if !ValidatesWithGateOff(task) {
							continue
						}
						offHolds[task] = map[int]bool{}
						for i, m := range all {
							offHolds[task][i] = slices.Contains(in.Resources(), m.gr) && in.Holds(m.stored)
						}
					}
				})
				held := map[string]int{}
				for i, m := range all {
					covered, holders := false, 0
					for task, in := range ins {
						for _, r := range in.Resources() {
							if r != m.gr {
								continue
							}
							covered = true
							holds := offHolds[task][i]
							if !ValidatesWithGateOff(task) {
								holds = in.Holds(m.stored)
							}
							if holds {
								holders++
								held[task]++
							}
						}
					}
					switch {
					case lifecyclefixtures.IsControl(m.obj) && holders > 0:
						t.Errorf("%s is a control object but a task of %s holds it", m.name, gate)
					case !lifecyclefixtures.IsControl(m.obj) && covered && holders == 0:
						t.Errorf("%s does not use %s: no task holds it (mark it %s: \"true\" if it is meant as a control)", m.name, gate, lifecyclefixtures.ControlAnnotation)
					}
				}
				for task := range ins {
					if held[task] == 0 {
						t.Errorf("no fixture object exercises the task %s", task)
					}
				}
			})

			t.Run("off", func(t *testing.T) {
				enable(t, gate, false)
				inv, err := inventory.Load()
				if err != nil {
					t.Fatal(err)
				}
				servedOnly := inv.ServedOnlyWith(string(gate))
				for _, obj := range objs {
					stored, gr, err := create(obj)
					if err != nil {
						continue // rejected with the gate off: cannot be written either
					}
					if slices.Contains(servedOnly, gr) {
						continue // not served with the gate off: cannot be written either
					}
					for task, in := range ins {
						if slices.Contains(in.Resources(), gr) && in.Holds(stored) {
							t.Errorf("%s %s/%s: with %s off, %s still holds what the strategy should have dropped", obj.GetKind(), obj.GetNamespace(), obj.GetName(), gate, task)
						}
					}
				}
			})
		})
	}
}

// fixtureGates returns the gates with a fixture: every explicit
// registration, and the derived ones a fixture was written for, sorted.
func fixtureGates(t *testing.T) []featuregate.Feature {
	t.Helper()
	dirs, err := lifecyclefixtures.Gates(lifecyclefixtures.Dir())
	if err != nil {
		t.Fatal(err)
	}
	gates := slices.Collect(maps.Keys(Lifecycles))
	for _, d := range dirs {
		if !slices.Contains(gates, d) {
			gates = append(gates, d)
		}
	}
	slices.Sort(gates)
	return gates
}

// enable sets gate for the duration of the test: on with what it takes to
// use all it guards (lifecyclefixtures.TurnsOn: the gates it depends on,
// and those depending on it, whose fields the inventory records under it),
// or off with the gates that depend on it, as the harness does.
func enable(t *testing.T, gate featuregate.Feature, on bool) {
	overrides := featuregatetesting.FeatureOverrides{gate: on}
	related := lifecyclefixtures.Dependents(utilfeature.DefaultFeatureGate, gate)
	if on {
		related = lifecyclefixtures.TurnsOn(utilfeature.DefaultFeatureGate, gate)
	}
	known := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	for _, f := range related {
		if spec, ok := known[f]; ok && !spec.LockToDefault {
			overrides[f] = on
		}
	}
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, overrides)
}

// TestEveryDerivedGateHasAFixture checks that every gate with a derived
// lifecycle has a fixture (generated by hack/update-lifecycle-data.sh
// unless it is registered explicitly or listed in exceptions.yaml, with a
// reason), so that the on→use→off harness runs all of them.
func TestEveryDerivedGateHasAFixture(t *testing.T) {
	dir := lifecyclefixtures.Dir()
	derived, err := testDerived()
	if err != nil {
		t.Fatal(err)
	}
	exceptions, err := lifecyclefixtures.Exceptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := lifecyclefixtures.Gates(dir)
	if err != nil {
		t.Fatal(err)
	}
	generated := 0
	for gate := range derived {
		_, explicit := Lifecycles[gate]
		reason, excepted := exceptions[gate]
		switch {
		case excepted:
			t.Logf("%s: no generated fixture: %s", gate, reason)
		case explicit:
		default:
			if _, err := os.Stat(filepath.Join(dir, string(gate), lifecyclefixtures.GeneratedFile)); err != nil {
				t.Errorf("%s has a derived lifecycle but no generated fixture (run hack/update-lifecycle-data.sh): %v", gate, err)
				continue
			}
			generated++
		}
		if !slices.Contains(dirs, gate) && !excepted {
			t.Errorf("%s has a derived lifecycle but no fixture", gate)
		}
	}
	t.Logf("%d derived lifecycles: %d generated fixtures, %d explicit registrations with a hand-written one, %d exceptions", len(derived), generated, len(derived)-generated-len(exceptions), len(exceptions))
}
