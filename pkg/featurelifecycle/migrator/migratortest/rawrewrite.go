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

package migratortest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// RawRewrite is the physical limit of a migration's rewrite: every key
// under prefix put back in raw etcd with value(its stored key-value), as
// the migrator does but with nothing in between. Pages of pageSize keys are
// read one after the other (the next while the previous one is written),
// and workers writers put each key back in a transaction that compares its
// mod revision. It returns how many keys it wrote, and the first error (a
// key that changed meanwhile is one).
func RawRewrite(ctx context.Context, client *clientv3.Client, prefix string, pageSize, workers int, value func(*mvccpb.KeyValue) string) (int, error) {
	work := make(chan *mvccpb.KeyValue, pageSize)
	var wg sync.WaitGroup
	var failed atomic.Value
	var written atomic.Int64
	for range workers {
		wg.Go(func() {
			for kv := range work {
				resp, err := client.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(string(kv.Key)), "=", kv.ModRevision)).
					Then(clientv3.OpPut(string(kv.Key), value(kv))).Commit()
				if err == nil && !resp.Succeeded {
					err = fmt.Errorf("%s changed meanwhile", kv.Key)
				}
				if err != nil {
					failed.CompareAndSwap(nil, err)
					continue
				}
				written.Add(1)
			}
		})
	}
	from, end := prefix, clientv3.GetPrefixRangeEnd(prefix)
	for {
		resp, err := client.Get(ctx, from, clientv3.WithRange(end), clientv3.WithLimit(int64(pageSize)))
		if err != nil {
			failed.CompareAndSwap(nil, err)
			break
		}
		for _, kv := range resp.Kvs {
			work <- kv
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	close(work)
	wg.Wait()
	err, _ := failed.Load().(error)
	return int(written.Load()), err
}
