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
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/flowcontrol"
)

// WriterOptions configure Writers.
type WriterOptions struct {
	// Namespace holds the StatefulSets ObjectName(0) .. ObjectName(Objects-1).
	Namespace string
	Objects   int
	// Writers is the number of concurrent writers; QPS their updates per
	// second in all.
	Writers int
	QPS     float32
}

// Writers update random StatefulSets through the API while a migration
// runs: each writer owns the objects whose index is its own modulo
// Writers, writes them one at a time (a write is retried on conflict
// against the fresh object, and on another apiserver when one goes away,
// until it succeeds) and records the value of the last successful write of
// each. Every write carries the resourceVersion it read, so a write whose
// outcome is unknown (a transport error) can never overwrite a later one.
type Writers struct {
	opts    WriterOptions
	clients *Clients
	limiter flowcontrol.RateLimiter
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// last is the value of the last successful write of each object, 0
	// when none; attempted the last value tried. An index is only used by
	// the writer that owns it (and read after Stop).
	last, attempted []int64
	// writes are the times of the successful writes of each writer.
	writes [][]time.Time

	// Conflicts and TransportErrors count failed attempts, retried;
	// Failures counts writes given up after a minute (the test has failed).
	Conflicts, TransportErrors, Failures atomic.Int64
}

// StartWriters starts the writers; stop them with Stop (also called when the
// test ends).
func StartWriters(t testing.TB, c *Clients, opts WriterOptions) *Writers {
	ctx, cancel := context.WithCancel(context.Background())
	ws := &Writers{opts: opts, clients: c, cancel: cancel,
		limiter: flowcontrol.NewTokenBucketRateLimiter(opts.QPS, opts.Writers),
		last:    make([]int64, opts.Objects), attempted: make([]int64, opts.Objects),
		writes: make([][]time.Time, opts.Writers)}
	for g := range opts.Writers {
		ws.wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3920))
			var owned []int
			for i := g; i < opts.Objects; i += opts.Writers {
				owned = append(owned, i)
			}
			cache := map[int]*appsv1.StatefulSet{}
			for ws.limiter.Wait(ctx) == nil {
				i := owned[rng.IntN(len(owned))]
				if err := ws.write(g, i, cache); err != nil {
					ws.Failures.Add(1)
					t.Errorf("writer %d: %v", g, err)
					return
				}
			}
		})
	}
	t.Cleanup(ws.Stop)
	return ws
}

// write sets the counter annotation of object i to its next value, retrying
// until it succeeds. It starts from the object of its last write (as a
// controller starts from its cache) and reads the object again after a
// conflict.
func (ws *Writers) write(g, i int, cache map[int]*appsv1.StatefulSet) error {
	ctx := context.Background()
	name := ObjectName(i)
	deadline := time.Now().Add(time.Minute)
	for attempt := 0; ; attempt++ {
		if time.Now().After(deadline) {
			return fmt.Errorf("could not update %s within a minute", name)
		}
		client := ws.clients.Kube[ws.clients.Pick(g+attempt)].AppsV1().StatefulSets(ws.opts.Namespace)
		ss := cache[i]
		if ss == nil {
			var err error
			if ss, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
				ws.TransportErrors.Add(1)
				time.Sleep(50 * time.Millisecond)
				continue
			}
		}
		ws.attempted[i]++
		value := ws.attempted[i]
		updated := ss.DeepCopy()
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		updated.Annotations[CounterAnnotation] = strconv.FormatInt(value, 10)
		out, err := client.Update(ctx, updated, metav1.UpdateOptions{})
		switch {
		case err == nil:
			ws.last[i] = value
			cache[i] = out
			ws.writes[g] = append(ws.writes[g], time.Now())
			return nil
		case apierrors.IsConflict(err):
			ws.Conflicts.Add(1)
		default:
			// The outcome is unknown (the apiserver may have been killed
			// after writing): a later successful write supersedes it.
			ws.TransportErrors.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
		delete(cache, i)
	}
}

// Stop stops the writers and waits for their writes under way.
func (ws *Writers) Stop() {
	ws.cancel()
	ws.wg.Wait()
}

// Last returns the value of the last successful write of object i, 0 when
// none. Call it after Stop.
func (ws *Writers) Last(i int) int64 { return ws.last[i] }

// Between counts the successful writes in (from, to), and all of them. Call
// it after Stop.
func (ws *Writers) Between(from, to time.Time) (n, total int) {
	for _, times := range ws.writes {
		for _, at := range times {
			total++
			if at.After(from) && at.Before(to) {
				n++
			}
		}
	}
	return n, total
}
