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

package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	podtest "k8s.io/kubernetes/pkg/api/pod/testing"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod/storage"
	"k8s.io/kubernetes/pkg/registry/registrytest"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/internal/ellipsis"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
)

// stores is the smallest migrator.Stores: a fixed set of registry stores.
type stores map[schema.GroupResource]migrator.Store

func (s stores) Store(gr schema.GroupResource) (migrator.Store, error) {
	if st, ok := s[gr]; ok {
		return st, nil
	}
	return nil, fmt.Errorf("no store for %s", gr)
}

// notServedStores is the catalog of an apiserver that does not serve
// anything, at its emulated version say.
type notServedStores struct{}

func (notServedStores) Store(gr schema.GroupResource) (migrator.Store, error) {
	return nil, &migrator.NotServedError{Resource: gr}
}

func (n notServedStores) StatusStore(gr schema.GroupResource) (migrator.Store, error) {
	return n.Store(gr)
}

// TestNotServed checks that the tasks over stored objects are done, saying
// why, when the apiserver does not serve their resource: nothing reaches
// its objects, as the derived lifecycles leave such a resource out.
func TestNotServed(t *testing.T) {
	enableClusterTrustBundleProjection(t)
	f := &featuresv1alpha1.Feature{}
	env := Env{Stores: notServedStores{}}
	for _, task := range []Task{
		WaitForAbsence("wait", "", podsResource, "clusterTrustBundle volumes", usesClusterTrustBundle),
		DeleteObjects("delete", "", podsResource, &api.Pod{}),
		ClearFields("clear", "", podsResource, func(p *api.Pod) bool { return false }),
	} {
		out, err := task.Step(context.Background(), env, f, Status(task), time.Now())
		if err != nil || !out.Done || !strings.Contains(out.Message, "pods") || !strings.Contains(out.Message, "not served by this apiserver") {
			t.Errorf("%s over a resource not served: %+v, %v; want done, saying so", task.Name(), out, err)
		}
	}
}

var podsResource = api.Resource("pods")

// usesClusterTrustBundle is the predicate of the ClusterTrustBundleProjection
// feature, written again here so the test does not depend on the registry.
func usesClusterTrustBundle(p *api.Pod) bool {
	for _, v := range p.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ClusterTrustBundle != nil {
				return true
			}
		}
	}
	return false
}

// newPodStore opens the pod registry store on a real (embedded) etcd, with
// undecorated storage as the lifecycle controller does.
func newPodStore(t *testing.T) *genericregistry.Store {
	t.Helper()
	config, _ := registrytest.NewEtcdStorageForResource(t, podsResource)
	return newPodStoreOn(t, config)
}

func newPodStoreOn(t *testing.T, config *storagebackend.ConfigForResource) *genericregistry.Store {
	t.Helper()
	opts := generic.RESTOptions{
		StorageConfig:           config,
		Decorator:               generic.UndecoratedStorage,
		DeleteCollectionWorkers: 1,
		ResourcePrefix:          "pods",
	}
	storage, err := podstore.NewStorage(opts, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(storage.Pod.DestroyFunc)
	return storage.Pod.Store
}

func makePod(t *testing.T, store *genericregistry.Store, namespace, name string, ctb bool) {
	t.Helper()
	pod := podtest.MakePod(name, podtest.SetNamespace(namespace))
	if ctb {
		pod.Spec.Volumes = []api.Volume{{
			Name: "bundle",
			VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{
				Sources: []api.VolumeProjection{{ClusterTrustBundle: &api.ClusterTrustBundleProjection{
					Name: ptr.To("example-bundle"),
					Path: "bundle.pem",
				}}},
				DefaultMode: ptr.To[int32](0644),
			}},
		}}
	}
	ctx := migrator.RequestContext(context.Background(), migrator.ServedResource(store.DefaultQualifiedResource, pod), "create", namespace, name)
	if _, err := store.Create(ctx, pod, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating %s/%s: %v", namespace, name, err)
	}
	if ctb {
		// The strategy drops the volume source when the gate is off: make
		// sure the test stores what it means to.
		got, err := store.Get(ctx, name, &metav1.GetOptions{})
		if err != nil || !usesClusterTrustBundle(got.(*api.Pod)) {
			t.Fatalf("%s/%s was not stored with its clusterTrustBundle volume: %v", namespace, name, err)
		}
	}
}

func deletePod(t *testing.T, store *genericregistry.Store, namespace, name string) {
	t.Helper()
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	if _, _, err := store.Delete(ctx, name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatalf("deleting %s/%s: %v", namespace, name, err)
	}
}

func countPods(t *testing.T, store *genericregistry.Store) int {
	t.Helper()
	list, err := store.List(context.Background(), &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.(*api.PodList).Items)
}

// runPass steps the task until a pass completes and returns the outcome of
// its last step and the number of steps it took.
func runPass(t *testing.T, task Task, env Env, status *featuresv1alpha1.FeatureTask) (Outcome, int) {
	t.Helper()
	f := &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateDisabling}}
	for steps := 1; steps <= 100; steps++ {
		out, err := task.Step(context.Background(), env, f, *status, time.Now())
		if err != nil {
			t.Fatalf("step %d: %v", steps, err)
		}
		status.Progress, status.Message, status.Checkpoint = out.Progress, out.Message, out.Checkpoint
		if out.Done || out.RequeueAfter == AbsenceRecheckInterval {
			return out, steps
		}
		if out.RequeueAfter != absencePageInterval {
			t.Fatalf("step %d: a page in the middle of a pass must come back soon: %+v", steps, out)
		}
	}
	t.Fatal("the pass does not end")
	return Outcome{}, 0
}

func enableClusterTrustBundleProjection(t *testing.T) {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		kubefeatures.ClusterTrustBundle:           true,
		kubefeatures.ClusterTrustBundleProjection: true,
	})
}

func TestWaitForAbsence(t *testing.T) {
	enableClusterTrustBundleProjection(t)
	store := newPodStore(t)
	// In key order, with pages of 2: [a/p1 a/p2] [a/p3 b/p4] [b/p5 c/p6] [c/p7].
	// Namespace a's uses straddle two pages and must count once.
	for _, p := range []struct {
		ns, name string
		ctb      bool
	}{
		{"a", "p1", true}, {"a", "p2", false}, {"a", "p3", true},
		{"b", "p4", true}, {"b", "p5", false},
		{"c", "p6", false}, {"c", "p7", false},
	} {
		makePod(t, store, p.ns, p.name, p.ctb)
	}

	task := WaitForAbsence("wait-for-no-ctb-pods", "Wait until no pod uses a clusterTrustBundle volume.",
		podsResource, "clusterTrustBundle volumes", usesClusterTrustBundle)
	env := Env{Stores: stores{podsResource: store}, Migration: migrator.Options{PageSize: 2}}
	status := Status(task)

	// The first pass pages through all pods and holds the task.
	out, steps := runPass(t, task, env, &status)
	if steps != 4 {
		t.Errorf("7 pods in pages of 2 take 4 steps, took %d", steps)
	}
	if out.Done {
		t.Fatalf("pods use the feature: the task must hold: %+v", out)
	}
	const want = "3 pods in 2 namespaces use clusterTrustBundle volumes: a/p1, a/p3, b/p4"
	if out.Message != want {
		t.Errorf("message\n got %q\nwant %q", out.Message, want)
	}
	if out.Progress != "pass 1: 7 pods read, 3 use clusterTrustBundle volumes" {
		t.Errorf("progress %q", out.Progress)
	}
	if n := countPods(t, store); n != 7 {
		t.Fatalf("the task must never delete: %d pods left of 7", n)
	}

	// A second pass keeps the first pass's message while it reads, and
	// holds again.
	f := &featuresv1alpha1.Feature{}
	mid, err := task.Step(context.Background(), env, f, status, time.Now())
	if err != nil || mid.Done || mid.Message != want || !strings.HasPrefix(mid.Progress, "pass 2: 2 pods read") {
		t.Fatalf("in the middle of pass 2 the last pass's message stays: %+v %v", mid, err)
	}
	status.Checkpoint, status.Message = mid.Checkpoint, mid.Message
	if out, _ = runPass(t, task, env, &status); out.Done || out.Message != want {
		t.Fatalf("pass 2 must hold with the same message: %+v", out)
	}
	if n := countPods(t, store); n != 7 {
		t.Fatalf("the task must never delete: %d pods left of 7", n)
	}

	// The admin deletes some: the message follows, in the singular.
	deletePod(t, store, "a", "p1")
	deletePod(t, store, "a", "p3")
	if out, _ = runPass(t, task, env, &status); out.Done || out.Message != "1 pod in 1 namespace uses clusterTrustBundle volumes: b/p4" {
		t.Fatalf("one pod left: %+v", out)
	}

	// And the last one: the next full pass finds none and is done.
	deletePod(t, store, "b", "p4")
	out, _ = runPass(t, task, env, &status)
	if !out.Done || out.Message != "no pods use clusterTrustBundle volumes" || out.Progress != "pass 4: 4 pods read, 0 use clusterTrustBundle volumes" {
		t.Fatalf("no pod uses the feature: the task is done: %+v", out)
	}
	if n := countPods(t, store); n != 4 {
		t.Fatalf("the task must never delete: %d pods left of 4", n)
	}

	// With the default page size one step reads everything.
	env.Migration = migrator.Options{}
	makePod(t, store, "d", "p8", true)
	status = Status(task)
	if out, steps = runPass(t, task, env, &status); steps != 1 || out.Done || out.Message != "1 pod in 1 namespace uses clusterTrustBundle volumes: d/p8" {
		t.Fatalf("one page of %d: %d steps, %+v", DefaultAbsencePageSize, steps, out)
	}
}

// TestWaitForAbsenceCompacted checks that a pass whose snapshot is compacted
// between two steps goes on from where it stopped.
func TestWaitForAbsenceCompacted(t *testing.T) {
	enableClusterTrustBundleProjection(t)
	config, server := registrytest.NewEtcdStorageForResource(t, podsResource)
	store := newPodStoreOn(t, config)
	for i := range 5 {
		makePod(t, store, "a", fmt.Sprintf("p%d", i), i%2 == 0)
	}
	task := WaitForAbsence("wait", "", podsResource, "clusterTrustBundle volumes", usesClusterTrustBundle)
	env := Env{Stores: stores{podsResource: store}, Migration: migrator.Options{PageSize: 2}}
	status := Status(task)
	f := &featuresv1alpha1.Feature{}
	out, err := task.Step(context.Background(), env, f, status, time.Now())
	if err != nil || out.Done {
		t.Fatalf("first page: %+v %v", out, err)
	}
	status.Checkpoint = out.Checkpoint

	// A write after the pass began, then compaction of everything before it.
	makePod(t, store, "z", "late", false)
	ctx := context.Background()
	resp, err := server.V3Client.Client.Get(ctx, "compact")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.V3Client.Client.Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}

	out, steps := runPass(t, task, env, &status)
	if out.Done || out.Message != "3 pods in 1 namespace use clusterTrustBundle volumes: a/p0, a/p2, a/p4" {
		t.Fatalf("after compaction: %+v", out)
	}
	if steps != 2 || out.Progress != "pass 1: 6 pods read, 3 use clusterTrustBundle volumes" {
		t.Fatalf("the pass must go on from its third pod, not start over: %d steps, %q", steps, out.Progress)
	}
}

func TestWaitForAbsenceErrors(t *testing.T) {
	enableClusterTrustBundleProjection(t)
	store := newPodStore(t)
	makePod(t, store, "a", "p", true)
	f := &featuresv1alpha1.Feature{}

	// A predicate over the wrong type is an error, not a silent pass.
	wrong := WaitForAbsence("wait", "", podsResource, "services", func(*api.Service) bool { return true })
	if _, err := wrong.Step(context.Background(), Env{Stores: stores{podsResource: store}}, f, Status(wrong), time.Now()); err == nil ||
		!strings.Contains(err.Error(), "*core.Service") {
		t.Errorf("want a type error, got %v", err)
	}

	task := WaitForAbsence("wait", "", podsResource, "clusterTrustBundle volumes", usesClusterTrustBundle)
	if _, err := task.Step(context.Background(), Env{}, f, Status(task), time.Now()); err == nil {
		t.Error("no stores: want an error")
	}
	if _, err := task.Step(context.Background(), Env{Stores: stores{}}, f, Status(task), time.Now()); err == nil {
		t.Error("no pod store: want an error")
	}

	// An unreadable checkpoint starts a new pass.
	status := Status(task)
	status.Checkpoint = "{not json"
	out, err := task.Step(context.Background(), Env{Stores: stores{podsResource: store}}, f, status, time.Now())
	if err != nil || out.Done || out.Message != "1 pod in 1 namespace uses clusterTrustBundle volumes: a/p" {
		t.Fatalf("unreadable checkpoint: %+v %v", out, err)
	}
}

func TestWaitForAbsenceInspector(t *testing.T) {
	task := WaitForAbsence("wait", "", podsResource, "clusterTrustBundle volumes", usesClusterTrustBundle)
	in, ok := task.(Inspector)
	if !ok {
		t.Fatal("WaitForAbsence must implement Inspector")
	}
	if got := in.Resources(); len(got) != 1 || got[0] != podsResource {
		t.Errorf("resources: %v", got)
	}
	with := &api.Pod{Spec: api.PodSpec{Volumes: []api.Volume{{VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{
		Sources: []api.VolumeProjection{{ClusterTrustBundle: &api.ClusterTrustBundleProjection{}}}}}}}}}
	if !in.Holds(with) || in.Holds(&api.Pod{}) || in.Holds(&api.Service{}) {
		t.Error("Holds must be the predicate on pods and false on anything else")
	}

	if err := task.(Validator).Validate(TestingCatalog(t)); err != nil {
		t.Errorf("a good declaration: %v", err)
	}
	for _, bad := range []Task{
		WaitForAbsence("wrong-type", "", podsResource, "x", func(*api.Service) bool { return true }),
		WaitForAbsence("unsupported", "", api.Resource("frobnicators"), "x", func(*api.Service) bool { return true }),
		WaitForAbsence[*api.Pod]("no-predicate", "", podsResource, "x", nil),
	} {
		if err := bad.(Validator).Validate(TestingCatalog(t)); err == nil || !strings.Contains(err.Error(), bad.Name()) {
			t.Errorf("%s: want an error naming the task, got %v", bad.Name(), err)
		}
	}
}

// TestAbsenceMessageBounds checks the message stays within the status's
// bound however long and many the names.
func TestAbsenceMessageBounds(t *testing.T) {
	w := &waitForAbsence[*api.Pod]{gr: podsResource, what: "clusterTrustBundle volumes"}
	cp := absenceCheckpoint{}
	for i := range 50 {
		cp.note(fmt.Sprintf("ns-%02d", i/5), fmt.Sprintf("%s-%02d", strings.Repeat("x", 240), i))
	}
	if cp.Matched != 50 || cp.Namespaces != 10 {
		t.Fatalf("counts: %+v", cp)
	}
	msg := w.message(nil, cp)
	if len(msg) > maxMessageBytes || !strings.HasPrefix(msg, "50 pods in 10 namespaces use clusterTrustBundle volumes: ns-00/xxx") || !strings.HasSuffix(msg, ", ...") {
		t.Fatalf("message of %d bytes: %q", len(msg), msg)
	}
	if b, _ := json.Marshal(cp); len(b) > 4096 {
		t.Fatalf("checkpoint of %d bytes", len(b))
	}

	cp = absenceCheckpoint{}
	for i := range 12 {
		cp.note("ns", fmt.Sprintf("p%02d", i))
	}
	if msg := w.message(nil, cp); msg != "12 pods in 1 namespace use clusterTrustBundle volumes: ns/p00, ns/p01, ns/p02, ns/p03, ns/p04, ns/p05, ns/p06, ns/p07, ns/p08, ns/p09, ..." {
		t.Fatalf("message %q", msg)
	}

	// Cluster-scoped objects have no namespaces to count.
	nodes := &waitForAbsence[*api.Node]{gr: api.Resource("nodes"), what: "a thing"}
	cp = absenceCheckpoint{}
	cp.note("", "n1")
	cp.note("", "n2")
	if msg := nodes.message(nil, cp); msg != "2 nodes use a thing: n1, n2" {
		t.Fatalf("message %q", msg)
	}

	if got := ellipsis.Shorten("aéééé", 5, ellipsis.AtEnd); got != "a..." {
		t.Fatalf("truncate must cut on a rune boundary: %q", got)
	}
}
