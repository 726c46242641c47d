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

package migrator_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/apimachinery/pkg/runtime"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/features"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
)

// benchWorkers is the write concurrency of both sides of the benchmark, the
// migrator's default.
const benchWorkers = 16

// clearMinReadySeconds is the benchmark's clear function: it needs no
// feature gate.
func clearMinReadySeconds(obj runtime.Object) bool {
	s := obj.(*apps.StatefulSet)
	if s.Spec.MinReadySeconds == 0 {
		return false
	}
	s.Spec.MinReadySeconds = 0
	return true
}

// BenchmarkMigrateStatefulSets measures, against one etcd, the migrator
// clearing a field from b.N StatefulSets ("ours": list, strategy, validation
// and compare-and-put through the registry store, with benchWorkers writers)
// and the same rewrite in raw etcd ("upstream": b.N values of the same size
// read in pages of the migrator's list size and each put back in a
// transaction comparing its mod revision, with the same concurrency). One op
// is one object; hack/bench-ratios.sh prints ours/upstream of ns/op, i.e.
// raw rewrites per second over objects migrated per second.
//
// It runs in two topologies, each without and with fsync:
//
//   - embedded: etcd inside the benchmark's process, as upstream's test etcd.
//     etcd and the apiserver side share every core, so each microsecond the
//     apiserver spends on an object (decoding, strategy, validation,
//     encoding) is taken from etcd.
//   - etcd-process: etcd as its own process, the binary hack/install-etcd.sh
//     builds, computing on one core (GOMAXPROCS=1), while the benchmark
//     computes on one core, as in production, where etcd runs on machines of
//     its own and the apiserver's CPU does not slow it down. It needs two
//     cores.
func BenchmarkMigrateStatefulSets(b *testing.B) {
	process := func(fsync bool) func(testing.TB) *migratortest.Etcd {
		return func(tb testing.TB) *migratortest.Etcd {
			return migratortest.StartEtcdProcess(tb, migratortest.EtcdProcessOptions{Fsync: fsync, GOMAXPROCS: 1})
		}
	}
	for _, c := range []struct {
		name  string
		start func(testing.TB) *migratortest.Etcd
		// cores bounds the benchmark's own GOMAXPROCS (0: unchanged).
		cores int
	}{
		{name: fmt.Sprintf("workers=%d", benchWorkers), start: migratortest.StartEtcd},
		{name: fmt.Sprintf("workers=%d,fsync", benchWorkers), start: migratortest.StartDurableEtcd},
		{name: fmt.Sprintf("workers=%d,etcd-process", benchWorkers), start: process(false), cores: 1},
		{name: fmt.Sprintf("workers=%d,fsync,etcd-process", benchWorkers), start: process(true), cores: 1},
	} {
		if c.cores > 0 && goruntime.NumCPU() < 2*c.cores {
			b.Logf("%s: skipped, it needs %d cores and there are %d", c.name, 2*c.cores, goruntime.NumCPU())
			continue
		}
		e := c.start(b)
		if c.cores > 0 {
			previous := goruntime.GOMAXPROCS(c.cores)
			benchmarkMigrate(b, e, c.name)
			goruntime.GOMAXPROCS(previous)
			continue
		}
		benchmarkMigrate(b, e, c.name)
	}
}

func benchmarkMigrate(b *testing.B, e *migratortest.Etcd, name string) {
	migratortest.TurnOff(b, features.MaxUnavailableStatefulSet)
	stores := e.NewStores(b)
	store := migratortest.RegistryStore(b, stores, statefulSets)
	size := storedSize(b, e, store)
	rates := map[string]float64{}

	b.Run("upstream/"+name, func(b *testing.B) {
		// The physical limit of a rewrite of every object: what the
		// migrator asks of etcd, read in pages and each object put back
		// if unchanged since read (compare its mod revision), with nothing
		// in between.
		b.StopTimer()
		prefix := e.Prefix + "/bench-raw/"
		stored, rewritten := strings.Repeat("x", size), strings.Repeat("y", size)
		parallel(b.N, func(i int) error {
			_, err := e.Client.Put(context.Background(), fmt.Sprintf("%s%08d", prefix, i), stored)
			return err
		}, b)
		b.StartTimer()
		start := time.Now()
		rawRewrite(b, e.Client, prefix, rewritten)
		elapsed := time.Since(start)
		b.StopTimer()
		rates["upstream"] = float64(b.N) / elapsed.Seconds()
		b.ReportMetric(rates["upstream"], "objects/s")
		if _, err := e.Client.Delete(context.Background(), prefix, clientv3.WithPrefix()); err != nil {
			b.Fatal(err)
		}
	})

	b.Run("ours/"+name, func(b *testing.B) {
		b.StopTimer()
		parallel(b.N, func(i int) error {
			s := migratortest.Internal(b, migratortest.StatefulSet("bench", fmt.Sprintf("sts-%08d", i), nil)).(*apps.StatefulSet)
			s.Spec.MinReadySeconds = 10
			_, err := migratortest.Create(context.Background(), store, s)
			return err
		}, b)
		m := migrator.New(store, statefulSets, clearMinReadySeconds,
			migrator.Options{PageSize: migrator.DefaultOptions().PageSize, Workers: benchWorkers, QPS: -1}, nil)
		// Quiet: a log line would split the benchmark's result line.
		ctx := klog.NewContext(context.Background(), logr.Discard())
		b.StartTimer()
		start := time.Now()
		cp := migrator.Checkpoint{}
		for !cp.Done {
			next, err := m.Step(ctx, cp)
			if err != nil {
				b.Fatal(err)
			}
			cp = next
		}
		elapsed := time.Since(start)
		b.StopTimer()
		if cp.Changed != int64(b.N) || cp.Seen != int64(b.N) {
			b.Fatalf("migrated %+v, want %d objects seen and changed", cp, b.N)
		}
		rates["ours"] = float64(b.N) / elapsed.Seconds()
		b.ReportMetric(rates["ours"], "objects/s")
		if _, err := e.Client.Delete(context.Background(), e.Prefix+"/statefulsets/", clientv3.WithPrefix()); err != nil {
			b.Fatal(err)
		}
	})
	if rates["upstream"] > 0 {
		b.Logf("%s: migrator %.0f objects/s; raw etcd rewrites (read, compare-and-put) of %d bytes %.0f/s; ours/raw = %.2f",
			name, rates["ours"], size, rates["upstream"], rates["ours"]/rates["upstream"])
	}
}

// storedSize returns the size of a stored StatefulSet of the benchmark.
func storedSize(b *testing.B, e *migratortest.Etcd, store *genericregistry.Store) int {
	s := migratortest.Internal(b, migratortest.StatefulSet("bench", "size", nil)).(*apps.StatefulSet)
	s.Spec.MinReadySeconds = 10
	if _, err := migratortest.Create(context.Background(), store, s); err != nil {
		b.Fatal(err)
	}
	resp, err := e.Client.Get(context.Background(), e.Prefix+"/statefulsets/bench/size")
	if err != nil || len(resp.Kvs) != 1 {
		b.Fatalf("reading the stored StatefulSet: %v", err)
	}
	if _, err := e.Client.Delete(context.Background(), e.Prefix+"/statefulsets/", clientv3.WithPrefix()); err != nil {
		b.Fatal(err)
	}
	return len(resp.Kvs[0].Value)
}

// rawListChunk is the page size of the raw rewrite, the migrator's list
// size.
const rawListChunk = 100

// rawRewrite rewrites every key under prefix to value in raw etcd
// (migratortest.RawRewrite), with the benchmark's writers.
func rawRewrite(b *testing.B, client *clientv3.Client, prefix, value string) {
	if _, err := migratortest.RawRewrite(context.Background(), client, prefix, rawListChunk, benchWorkers,
		func(*mvccpb.KeyValue) string { return value }); err != nil {
		b.Fatal(err)
	}
}

// parallel runs f(0..n-1) with benchWorkers goroutines.
func parallel(n int, f func(i int) error, b *testing.B) {
	var wg sync.WaitGroup
	var next atomic.Int64
	var failed atomic.Value
	for range benchWorkers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
}
