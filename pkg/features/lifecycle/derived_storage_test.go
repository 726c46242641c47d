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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	resourceapi "k8s.io/kubernetes/pkg/apis/resource"
	"k8s.io/kubernetes/pkg/apis/storagemigration"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// runTask steps task as the lifecycle controller does, at most limit
// times, for a Feature that opts in to it, and returns the last outcome.
func runTask(t *testing.T, task tasks.Task, env tasks.Env, limit int) tasks.Outcome {
	t.Helper()
	status := tasks.Status(task)
	var out tasks.Outcome
	for range limit {
		var err error
		f := &featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{tasks.OptInAnnotation: task.Name()}}}
		out, err = task.Step(t.Context(), env, f, status, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		status.Checkpoint, status.Progress, status.Message = out.Checkpoint, out.Progress, out.Message
		if out.Done {
			break
		}
	}
	return out
}

func taskNamed(t *testing.T, lc Lifecycle, name string) tasks.Task {
	t.Helper()
	for _, task := range lc.OnDisable {
		if task.Name() == name {
			return task
		}
	}
	t.Fatalf("no task %s in %v", name, taskNames(lc.OnDisable))
	return nil
}

// TestDerivedTasksOnEtcd runs derived tasks on real storage: a resource
// served only with its gate is still found once the gate is off (the
// provider no longer builds its store), and a derived ClearFields clears
// exactly the inventory's paths through the resource's own strategy and
// validation.
func TestDerivedTasksOnEtcd(t *testing.T) {
	e := migratortest.StartEtcd(t)
	env := tasks.Env{Migration: migrator.Options{PageSize: 10, Workers: 2, QPS: -1}}

	t.Run("resource served only with its gate", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.StorageVersionMigrator, true)
		svms := storagemigration.Resource("storageversionmigrations")
		created, err := migratortest.Create(t.Context(), migratortest.RegistryStore(t, e.NewStores(t), svms), &storagemigration.StorageVersionMigration{
			ObjectMeta: metav1.ObjectMeta{Name: "left-behind"},
			Spec:       storagemigration.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		migratortest.TurnOff(t, kubefeatures.StorageVersionMigrator)
		stores := e.NewStores(t) // a new apiserver, started with the gate off
		env.Stores = stores
		task := taskNamed(t, derivedOf(t, kubefeatures.StorageVersionMigrator), "wait-for-no-storageversionmigrations-storagemigration-k8s-io")
		out := runTask(t, task, env, 3)
		if out.Done || !strings.Contains(out.Message, "left-behind") {
			t.Fatalf("the task must hold and name the object: %+v", out)
		}
		// The admin opts in to the task that deletes them.
		del := taskNamed(t, derivedOf(t, kubefeatures.StorageVersionMigrator), "delete-storageversionmigrations-storagemigration-k8s-io")
		if !tasks.IsOptIn(del) {
			t.Error("deleting stored objects must be opt-in")
		}
		out = runTask(t, del, env, 3)
		if !out.Done || !strings.Contains(out.Message, "deleted 1 ") {
			t.Fatalf("the delete task: %+v", out)
		}
		name := created.(*storagemigration.StorageVersionMigration).Name
		if _, err := migratortest.RegistryStore(t, stores, svms).Get(t.Context(), name, &metav1.GetOptions{}); err == nil {
			t.Fatalf("%s was not deleted", name)
		}
		if out := runTask(t, task, env, 3); !out.Done {
			t.Fatalf("the task must be done once the object is gone: %+v", out)
		}
	})

	t.Run("fields of a resource that may be rewritten", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.DRAPartitionableDevices, true)
		slices := resourceapi.Resource("resourceslices")
		slice := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: "counters"},
			Spec: resourceapi.ResourceSliceSpec{
				Driver:   "gpu.example.com",
				Pool:     resourceapi.ResourcePool{Name: "pool", Generation: 1, ResourceSliceCount: 1},
				AllNodes: ptr.To(true),
				SharedCounters: []resourceapi.CounterSet{{
					Name:     "gpu-0",
					Counters: map[string]resourceapi.Counter{"memory": {Value: resource.MustParse("8Gi")}},
				}},
			},
		}
		if _, err := migratortest.Create(t.Context(), migratortest.RegistryStore(t, e.NewStores(t), slices), slice); err != nil {
			t.Fatal(err)
		}
		migratortest.TurnOff(t, kubefeatures.DRAPartitionableDevices)
		env.Stores = e.NewStores(t)
		task := taskNamed(t, derivedOf(t, kubefeatures.DRAPartitionableDevices), DerivedClearFieldsTask)
		out := runTask(t, task, env, 10)
		if !out.Done {
			t.Fatalf("not done: %+v", out)
		}
		list, err := migratortest.RegistryStore(t, env.Stores, slices).List(t.Context(), &metainternalversion.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(list)
		if err != nil || len(items) != 1 {
			t.Fatalf("%d slices, %v", len(items), err)
		}
		got := items[0].(*resourceapi.ResourceSlice)
		if got.Spec.SharedCounters != nil {
			t.Errorf("spec.sharedCounters was not cleared")
		}
		if got.Spec.Driver != slice.Spec.Driver || got.Spec.Pool != slice.Spec.Pool || got.Spec.AllNodes == nil || !*got.Spec.AllNodes {
			t.Errorf("the clear changed more than the gate's fields: %+v", got.Spec)
		}
		if !strings.Contains(out.Message, "cleared 1 of 1") {
			t.Errorf("message %q", out.Message)
		}
	})
}
