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

package migration

import (
	"context"
	"fmt"
	"path"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// etcdRewrite is the physical limit of the rewrite that ours does, on the
// same apiserver and etcd: every stored StatefulSet put back into etcd as it
// is stored, bypassing the apiserver, in pages of the migrator's size read
// one after the other and written by as many writers as the migrator's, each
// put comparing the key's mod revision. The apiserver still receives every
// write through its watch, as it does ours.
//
// It reports its objects/s, ours' over its own (ours/etcd), and, as ours
// does, the 99th percentile of an ordinary GET on the apiserver while it
// ran over the same once it is idle: how much of ours' GET latency the
// writes alone cost on this machine, whoever makes them.
func (c *benchCluster) etcdRewrite(b *testing.B) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	prefix := path.Join("/", c.etcdPrefix, "statefulsets", benchNamespace) + "/"
	options := migrator.DefaultOptions()
	var elapsed time.Duration
	var messages []string
	for range b.N {
		busy := benchProbeGets(c.kube)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		written, err := migratortest.RawRewrite(ctx, client, prefix, int(options.PageSize), options.Workers,
			func(kv *mvccpb.KeyValue) string { return string(kv.Value) })
		took := time.Since(start)
		cancel()
		busySamples := busy.stop()
		if err != nil {
			b.Fatal(err)
		}
		if written != c.n {
			b.Fatalf("rewrote %d keys under %s, want the %d StatefulSets", written, prefix, c.n)
		}
		elapsed += took
		during := benchWithin(busySamples, start, start.Add(took))
		idle := benchProbeGets(c.kube)
		time.Sleep(time.Duration(max(len(during), benchMinProbes)) * benchProbeInterval)
		idleSamples := idle.stop()
		p99During, p99Idle := benchP99(during), benchP99(idleSamples)
		if p99Idle > 0 {
			b.ReportMetric(float64(p99During)/float64(p99Idle), "get-p99-busy/idle")
		}
		messages = append(messages, fmt.Sprintf("%.2fs; p99 of a GET %.1fms while it ran (%d GETs), %.1fms idle (%d GETs)",
			took.Seconds(), float64(p99During.Microseconds())/1000, len(during), float64(p99Idle.Microseconds())/1000, len(idleSamples)))
	}
	benchReport(b, c.n, elapsed)
	rate := float64(c.n) * float64(b.N) / elapsed.Seconds()
	if c.oursRate > 0 {
		b.ReportMetric(c.oursRate/rate, "ours/etcd")
	}
	b.Logf("etcd: %d stored StatefulSets rewritten in raw etcd %d time(s) (%s)", c.n, b.N, messages)
}
