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

package tasks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

var statefulSets = apps.Resource("statefulsets")

func clearMaxUnavailable(s *apps.StatefulSet) bool {
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return false
	}
	ru.MaxUnavailable = nil
	return true
}

// featureNodeSelector is what the pod-template feature of these tests adds.
const featureNodeSelector = "example.com/feature"

func clearFeatureNodeSelector(spec *api.PodSpec) bool {
	if _, ok := spec.NodeSelector[featureNodeSelector]; !ok {
		return false
	}
	delete(spec.NodeSelector, featureNodeSelector)
	if len(spec.NodeSelector) == 0 {
		spec.NodeSelector = nil
	}
	return true
}

func migration() migrator.Options {
	return migrator.Options{PageSize: 10, Workers: 4, QPS: -1}
}

// stepper runs a task as the lifecycle controller does: it records each
// outcome in the task's status and steps again.
type stepper struct {
	task     tasks.Task
	env      tasks.Env
	status   featuresv1alpha1.FeatureTask
	outcomes []tasks.Outcome
}

func newStepper(task tasks.Task, env tasks.Env) *stepper {
	return &stepper{task: task, env: env, status: tasks.Status(task)}
}

func (s *stepper) step(t *testing.T) tasks.Outcome {
	t.Helper()
	out, err := s.task.Step(t.Context(), s.env, &featuresv1alpha1.Feature{}, s.status, time.Now())
	if err != nil {
		t.Fatalf("step %d: %v", len(s.outcomes)+1, err)
	}
	if len(out.Checkpoint) > 8192 || len(out.Progress) > 256 || len(out.Message) > 1024 {
		t.Fatalf("step %d: outcome does not fit the status: %d, %d, %d bytes", len(s.outcomes)+1, len(out.Checkpoint), len(out.Progress), len(out.Message))
	}
	s.status.Checkpoint, s.status.Progress, s.status.Message = out.Checkpoint, out.Progress, out.Message
	s.outcomes = append(s.outcomes, out)
	return out
}

// run steps until done, at most limit steps.
func (s *stepper) run(t *testing.T, limit int) tasks.Outcome {
	t.Helper()
	for range limit {
		if out := s.step(t); out.Done {
			return out
		}
	}
	t.Fatalf("not done after %d steps; last status %+v", limit, s.status)
	return tasks.Outcome{}
}

// create creates internal objects through the stores, in a subtest with
// gate on when gate is not empty.
func create(t *testing.T, stores migrator.Stores, objs map[schema.GroupResource][]runtime.Object) map[string]runtime.Object {
	t.Helper()
	created := map[string]runtime.Object{}
	for gr, list := range objs {
		store := migratortest.RegistryStore(t, stores, gr)
		for _, obj := range list {
			out, err := migratortest.Create(t.Context(), store, obj)
			if err != nil {
				t.Fatalf("creating a %s: %v", gr, err)
			}
			a, _ := meta.Accessor(out)
			created[gr.String()+"/"+a.GetNamespace()+"/"+a.GetName()] = out
		}
	}
	return created
}

// listAll lists every stored object of gr.
func listAll(t *testing.T, stores migrator.Stores, gr schema.GroupResource) []runtime.Object {
	t.Helper()
	store := migratortest.RegistryStore(t, stores, gr)
	list, err := store.List(t.Context(), &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestClearFieldsStatefulSets(t *testing.T) {
	migratortest.TurnOff(t, kubefeatures.MaxUnavailableStatefulSet)
	e := migratortest.StartEtcd(t)
	stores := e.NewStores(t)
	objs := map[schema.GroupResource][]runtime.Object{}
	for i := range 30 {
		objs[statefulSets] = append(objs[statefulSets], migratortest.Internal(t, migratortest.StatefulSet("ns", fmt.Sprintf("sts-%02d", i), nil)))
	}
	// With the feature on, defaulting gives every StatefulSet maxUnavailable.
	t.Run("feature-on", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.MaxUnavailableStatefulSet, true)
		for i := range 30 {
			objs[statefulSets][i] = migratortest.Internal(t, migratortest.StatefulSet("ns", fmt.Sprintf("sts-%02d", i), nil))
		}
		create(t, stores, objs)
	})
	task := tasks.ClearFields("clear-statefulset-max-unavailable", "Clear spec.updateStrategy.rollingUpdate.maxUnavailable from every StatefulSet.",
		statefulSets, clearMaxUnavailable)
	if err := task.Validate(tasks.TestingCatalog(t)); err != nil {
		t.Fatal(err)
	}
	if got := task.Resources(); len(got) != 1 || got[0] != statefulSets {
		t.Errorf("Resources() = %v", got)
	}
	for _, obj := range listAll(t, stores, statefulSets) {
		if !task.Holds(obj) {
			t.Fatalf("%s does not hold maxUnavailable before the task", obj.(*apps.StatefulSet).Name)
		}
	}

	s := newStepper(task, tasks.Env{Stores: stores, Migration: migration()})
	out := s.step(t)
	if out.Done || out.RequeueAfter != 0 || out.Progress != "statefulsets.apps: 10/30 seen, 10 cleared" {
		t.Errorf("first step: %+v", out)
	}
	// Another apiserver leads from now on.
	s.env.Stores = e.NewStores(t)
	out = s.run(t, 5)
	if len(s.outcomes) != 3 {
		t.Errorf("done after %d steps, want 3 (one per page)", len(s.outcomes))
	}
	if out.Message != "cleared 30 of 30 stored objects of statefulsets.apps" || out.Progress != "done: 30 seen, 30 cleared" {
		t.Errorf("last outcome: %+v", out)
	}
	for _, obj := range listAll(t, stores, statefulSets) {
		if task.Holds(obj) {
			t.Errorf("%s still holds maxUnavailable", obj.(*apps.StatefulSet).Name)
		}
	}
}

// podTemplateObjects returns one internal object of each pod template
// resource, named name, with the feature's node selector when with.
func podTemplateObjects(t *testing.T, name string, with bool) map[schema.GroupResource][]runtime.Object {
	objs := map[schema.GroupResource][]runtime.Object{}
	mutate := func(p *corev1.PodTemplateSpec) {
		p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
		if with {
			p.Spec.NodeSelector[featureNodeSelector] = "on"
		}
	}
	for i, obj := range migratortest.PodTemplateObjects("ns", name, mutate) {
		gr := migrator.PodTemplateResources()[i]
		objs[gr] = append(objs[gr], migratortest.Internal(t, obj))
	}
	return objs
}

func TestClearPodTemplateFields(t *testing.T) {
	e := migratortest.StartEtcd(t)
	stores := e.NewStores(t)
	task := tasks.ClearPodTemplateFields("clear-feature-node-selector", "Clear the feature's node selector from every pod template.", clearFeatureNodeSelector)
	if err := task.Validate(tasks.TestingCatalog(t)); err != nil {
		t.Fatal(err)
	}
	with := create(t, stores, podTemplateObjects(t, "with", true))
	without := create(t, stores, podTemplateObjects(t, "without", false))
	if len(with) != 8 || len(without) != 8 {
		t.Fatalf("created %d and %d objects, want 8 of each", len(with), len(without))
	}
	for key, obj := range with {
		if !task.Holds(obj) {
			t.Errorf("%s does not hold the node selector", key)
		}
	}
	for key, obj := range without {
		if task.Holds(obj) {
			t.Errorf("%s holds the node selector", key)
		}
	}

	s := newStepper(task, tasks.Env{Stores: stores, Migration: migration()})
	out := s.run(t, 20)
	if out.Message != "cleared 8 of 16 stored objects of cronjobs.batch, daemonsets.apps, deployments.apps, jobs.batch, podtemplates, replicasets.apps, replicationcontrollers, statefulsets.apps" {
		t.Errorf("last message %q", out.Message)
	}
	// One page per resource, in the order of PodTemplateResources.
	var order []string
	for _, o := range s.outcomes[:len(s.outcomes)-1] {
		order = append(order, strings.Fields(o.Progress)[0])
	}
	order = append(order, "cronjobs.batch") // the last step is the done outcome
	want := []string{}
	for _, gr := range migrator.PodTemplateResources() {
		want = append(want, gr.String())
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("resources stepped in order %v, want %v", order, want)
	}
	if got := s.outcomes[2].Progress; got != "replicasets.apps (3/8): 2 seen, 1 cleared" {
		t.Errorf("progress of the third step %q", got)
	}

	for _, gr := range migrator.PodTemplateResources() {
		for _, obj := range listAll(t, stores, gr) {
			a, _ := meta.Accessor(obj)
			key := gr.String() + "/" + a.GetNamespace() + "/" + a.GetName()
			if task.Holds(obj) {
				t.Errorf("%s still holds the node selector", key)
			}
			if spec, _ := migrator.PodTemplateSpec(obj); spec.NodeSelector["kubernetes.io/os"] != "linux" {
				t.Errorf("%s lost the rest of its node selector", key)
			}
			if before, ok := without[key]; ok {
				if b, _ := meta.Accessor(before); b.GetResourceVersion() != a.GetResourceVersion() {
					t.Errorf("%s needed no clearing but was written", key)
				}
			}
		}
	}
}

// TestClearPodTemplateFieldsFailure stores a running Job (its template is
// immutable) that holds the field: the task names it, passes over the other
// resources, comes back to jobs after a delay, and is done once the Job is
// gone.
func TestClearPodTemplateFieldsFailure(t *testing.T) {
	e := migratortest.StartEtcd(t)
	stores := e.NewStores(t)
	task := tasks.ClearPodTemplateFields("clear-feature-node-selector", "Clear the feature's node selector from every pod template.", clearFeatureNodeSelector)
	objs := podTemplateObjects(t, "with", true)
	jobs := batch.Resource("jobs")
	objs[jobs][0].(*batch.Job).Spec.Suspend = ptr.To(false)
	create(t, stores, objs)

	s := newStepper(task, tasks.Env{Stores: stores, Migration: migration()})
	var failed tasks.Outcome
	for range 8 {
		if out := s.step(t); strings.HasPrefix(out.Progress, "jobs.batch") {
			failed = out
			break
		}
	}
	if failed.Done || failed.RequeueAfter != 30*time.Second || !strings.Contains(failed.Message, "ns/with") || !strings.Contains(failed.Message, "immutable") {
		t.Fatalf("outcome of the pass over jobs: %+v", failed)
	}
	out := s.step(t)
	if !strings.HasPrefix(out.Progress, "cronjobs.batch") || out.Done {
		t.Fatalf("after jobs: %+v, want cronjobs next", out)
	}
	out = s.step(t)
	if !strings.HasPrefix(out.Progress, "jobs.batch") || out.Done {
		t.Fatalf("after cronjobs: %+v, want jobs again", out)
	}
	store := migratortest.RegistryStore(t, stores, jobs)
	if _, _, err := store.Delete(migrator.RequestContext(t.Context(), jobs.WithVersion("v1"), "delete", "ns", "with"), "with", rest.ValidateAllObjectFunc,
		&metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	if out := s.run(t, 3); !out.Done || !strings.HasPrefix(out.Message, "cleared 7 of 7 stored objects") {
		t.Errorf("once the Job is gone: %+v, want done with the 7 other objects cleared", out)
	}
}

func TestClearFieldsDeclarationErrors(t *testing.T) {
	env := tasks.Env{Stores: fakeStores{}}
	for name, task := range map[string]*tasks.ClearFieldsTask{
		"*apps.Deployment":       tasks.ClearFields("wrong-type", "", statefulSets, func(*apps.Deployment) bool { return true }),
		"frobnicators.apps":      tasks.ClearFields("unknown", "", apps.Resource("frobnicators"), func(*apps.StatefulSet) bool { return true }),
		"no clear function":      tasks.ClearFields[*apps.StatefulSet]("nil", "", statefulSets, nil),
		"no clear function here": tasks.ClearPodTemplateFields("nil", "", nil),
	} {
		if err := task.Validate(tasks.TestingCatalog(t)); err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(name, " here")) {
			t.Errorf("Validate() = %v, want an error naming %s", err, name)
		}
		if _, err := task.Step(context.Background(), env, nil, tasks.Status(task), time.Now()); err == nil {
			t.Errorf("%s: Step succeeded", name)
		}
	}
	task := tasks.ClearFields("ok", "", statefulSets, clearMaxUnavailable)
	if _, err := task.Step(context.Background(), tasks.Env{}, nil, tasks.Status(task), time.Now()); err == nil || !strings.Contains(err.Error(), "storage") {
		t.Errorf("Step without stores: %v", err)
	}
	// A store of another type than the function takes.
	wrong := fakeStores{statefulSets: deploymentStore{}}
	if _, err := task.Step(context.Background(), tasks.Env{Stores: wrong}, nil, tasks.Status(task), time.Now()); err == nil || !strings.Contains(err.Error(), "*apps.Deployment") {
		t.Errorf("Step on a store of Deployments: %v", err)
	}
}

type fakeStores map[schema.GroupResource]migrator.Store

func (f fakeStores) Store(gr schema.GroupResource) (migrator.Store, error) {
	if s, ok := f[gr]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no store of %s", gr)
}

type deploymentStore struct{ migrator.Store }

func (deploymentStore) New() runtime.Object { return &apps.Deployment{} }

func TestHolds(t *testing.T) {
	task := tasks.ClearFields("clear-statefulset-max-unavailable", "", statefulSets, clearMaxUnavailable)
	var internal *apps.StatefulSet
	t.Run("feature-on", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.MaxUnavailableStatefulSet, true)
		internal = migratortest.Internal(t, migratortest.StatefulSet("ns", "a", ptr.To[int32](3))).(*apps.StatefulSet)
	})
	before := internal.DeepCopy()
	if !task.Holds(internal) {
		t.Errorf("Holds(internal with maxUnavailable) = false")
	}
	if !apiequality.Semantic.DeepEqual(before, internal) {
		t.Errorf("Holds changed its argument")
	}
	versioned := migratortest.StatefulSet("ns", "a", ptr.To[int32](3))
	if !task.Holds(versioned) || versioned.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
		t.Errorf("Holds(versioned with maxUnavailable) = false, or changed its argument")
	}
	if task.Holds(migratortest.StatefulSet("ns", "a", nil)) {
		t.Errorf("Holds(versioned without maxUnavailable) = true")
	}
	if task.Holds(&api.Pod{}) || task.Holds(nil) {
		t.Errorf("Holds of another type = true")
	}
	cleared := internal.DeepCopy()
	if !task.Clear(cleared) || cleared.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil || task.Holds(cleared) {
		t.Errorf("Clear(internal with maxUnavailable) did not clear it: %+v", cleared.Spec.UpdateStrategy)
	}
	if task.Clear(cleared) || task.Clear(&api.Pod{}) {
		t.Errorf("Clear of a cleared object, or of another type, reports a change")
	}

	pt := tasks.ClearPodTemplateFields("clear-feature-node-selector", "", clearFeatureNodeSelector)
	cron := podTemplateObjects(t, "c", true)[batch.Resource("cronjobs")][0]
	if !pt.Holds(cron) {
		t.Errorf("Holds(CronJob with the node selector) = false")
	}
	if _, ok := cron.(*batch.CronJob).Spec.JobTemplate.Spec.Template.Spec.NodeSelector[featureNodeSelector]; !ok {
		t.Errorf("Holds changed the CronJob")
	}
	if pt.Holds(&api.Pod{Spec: api.PodSpec{NodeSelector: map[string]string{featureNodeSelector: "on"}}}) {
		t.Errorf("ClearPodTemplateFields holds a pod, which it does not clear")
	}
}

// TestClearFieldsUnreadableCheckpoint starts over.
func TestClearFieldsUnreadableCheckpoint(t *testing.T) {
	e := migratortest.StartEtcd(t)
	task := tasks.ClearFields("clear-statefulset-max-unavailable", "", statefulSets, clearMaxUnavailable)
	s := newStepper(task, tasks.Env{Stores: e.NewStores(t), Migration: migration()})
	s.status.Checkpoint = "2026-01-01T00:00:00Z"
	if out := s.step(t); !out.Done || out.Progress != "done: 0 seen, 0 cleared" {
		t.Errorf("outcome %+v", out)
	}
}
