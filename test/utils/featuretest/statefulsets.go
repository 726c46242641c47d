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

package featuretest

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/test/integration/features/lifecycle"
)

// The storage migration tests clear MaxUnavailableStatefulSet's field from
// StatefulSets.
const (
	// MigrationGate is the gate whose ClearFields task they run.
	MigrationGate = "MaxUnavailableStatefulSet"
	// MigrationTask is the name of that task.
	MigrationTask = "clear-statefulset-max-unavailable"
	// MigrationResource is the resource it clears.
	MigrationResource = "statefulsets.apps"
	// CounterAnnotation holds the value of a writer's last update.
	CounterAnnotation = "migration.test.k8s.io/counter"
)

// ClearFieldsCheckpoint mirrors the JSON of the ClearFields task's
// checkpoint (status.tasks[].checkpoint, see
// pkg/featurelifecycle/tasks/clearfields.go): the resources still to clear
// and the migrator's checkpoint of the first.
type ClearFieldsCheckpoint struct {
	Remaining []string            `json:"remaining"`
	Migration migrator.Checkpoint `json:"migration"`
	Seen      int64               `json:"seen,omitempty"`
	Cleared   int64               `json:"cleared,omitempty"`
	Retries   int64               `json:"retries,omitempty"`
}

// Brief describes a migrator checkpoint without its continue token.
func Brief(m migrator.Checkpoint) string {
	return fmt.Sprintf("pass %d, page %d, %d/%d seen, %d cleared, %d conflicts, %d failed, done=%t",
		m.Pass, m.Pages, m.Seen, m.Total, m.Changed, m.Conflicts, m.Failed, m.Done)
}

// ObjectName is the name of the i-th StatefulSet of a migration test.
func ObjectName(i int) string { return fmt.Sprintf("ss-%05d", i) }

// MaxUnavailableStatefulSet is a valid StatefulSet named name in namespace,
// labelled app=app, with replicas pods, that uses MaxUnavailableStatefulSet:
// rolling updates replace up to 2 pods at a time.
func MaxUnavailableStatefulSet(namespace, name, app string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": app}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(replicas),
			ServiceName:         app,
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(2))}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}

// CreateStatefulSets creates namespace and n StatefulSets named ObjectName(i)
// in it, each with replicas pods, with creators concurrent clients spread
// over the apiservers.
func CreateStatefulSets(t testing.TB, c *Clients, namespace string, n, creators int, replicas int32) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Kube[c.Pick(0)].CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ForEach(t, creators, n, func(worker, i int) error {
		client := c.Kube[c.Pick(worker)].AppsV1().StatefulSets(namespace)
		if _, err := client.Create(ctx, MaxUnavailableStatefulSet(namespace, ObjectName(i), "migration", replicas), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s: %w", ObjectName(i), err)
		}
		return nil
	})
}

// ForEach runs do(worker, i) for every i in [0, n) on workers goroutines
// and fails the test with the first error; no new i starts after an error.
func ForEach(tb testing.TB, workers, n int, do func(worker, i int) error) {
	tb.Helper()
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for worker := range workers {
		wg.Go(func() {
			for i := range next {
				if err := do(worker, i); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// StoredStatefulSets reads the StatefulSets of namespace directly from etcd
// (endpoints; kube-apiserver's --etcd-prefix prefix; opts are added to the
// Get, e.g. clientv3.WithSerializable() to read one member's copy) and
// decodes them to internal objects, by name.
func StoredStatefulSets(t testing.TB, endpoints []string, prefix, namespace string, opts ...clientv3.OpOption) map[string]*apps.StatefulSet {
	t.Helper()
	return StoredStatefulSetsVia(t, clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second}, prefix, namespace, opts...)
}

// StoredStatefulSetsVia is StoredStatefulSets through a client made from
// config (an etcd that asks for client certificates, as kubeadm's does).
func StoredStatefulSetsVia(t testing.TB, config clientv3.Config, prefix, namespace string, opts ...clientv3.OpOption) map[string]*apps.StatefulSet {
	t.Helper()
	client, err := clientv3.New(config)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// kube-apiserver keys objects under "/" + --etcd-prefix.
	resp, err := client.Get(ctx, path.Join("/", prefix, "statefulsets", namespace)+"/", append([]clientv3.OpOption{clientv3.WithPrefix()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*apps.StatefulSet{}
	for _, kv := range resp.Kvs {
		obj, _, err := lifecycle.DecodeStored(kv.Value)
		if err != nil {
			t.Fatalf("decoding %s: %v", kv.Key, err)
		}
		ss, ok := obj.(*apps.StatefulSet)
		if !ok {
			t.Fatalf("%s holds a %T", kv.Key, obj)
		}
		out[ss.Name] = ss
	}
	return out
}

// HasMaxUnavailable reports whether ss still has what the feature added.
func HasMaxUnavailable(ss *apps.StatefulSet) bool {
	ru := ss.Spec.UpdateStrategy.RollingUpdate
	return ru != nil && ru.MaxUnavailable != nil
}

// StoredCheck is what etcd holds of n migrated StatefulSets, compared with
// the writers' last successful writes.
type StoredCheck struct {
	// Lost names the objects whose stored counter is not the last one
	// written; Left those that still have maxUnavailable; Generations those
	// whose generation is not 2 (created, then cleared once).
	Lost, Left, Generations []string
	// Written counts the objects written at least once.
	Written int
}

// CheckStored compares stored (from StoredStatefulSets) with the writers'
// last successful writes to the n StatefulSets (none when w is nil). Missing
// objects fail the test.
func CheckStored(t testing.TB, stored map[string]*apps.StatefulSet, n int, w *Writers) StoredCheck {
	t.Helper()
	if len(stored) != n {
		t.Fatalf("etcd holds %d StatefulSets, want %d", len(stored), n)
	}
	var c StoredCheck
	for i := range n {
		name := ObjectName(i)
		ss, ok := stored[name]
		if !ok {
			t.Fatalf("%s is not in etcd", name)
		}
		if HasMaxUnavailable(ss) {
			c.Left = append(c.Left, name)
		}
		want := ""
		var last int64
		if w != nil {
			last = w.Last(i)
		}
		if last > 0 {
			want = strconv.FormatInt(last, 10)
			c.Written++
		}
		if got := ss.Annotations[CounterAnnotation]; got != want {
			c.Lost = append(c.Lost, fmt.Sprintf("%s: stored %q, last written %q", name, got, want))
		}
		if ss.Generation != 2 {
			c.Generations = append(c.Generations, fmt.Sprintf("%s: %d", name, ss.Generation))
		}
	}
	return c
}
