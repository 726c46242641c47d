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

// Package backoff holds the retry backoff of the reporter and the follower.
package backoff

import (
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
)

// Retry backoff of failed writes and reads: exponential from Base, capped at
// Cap, with up to 100% jitter so that processes that failed together (an
// apiserver restart) do not retry together.
const (
	Base = 200 * time.Millisecond
	Cap  = 30 * time.Second
)

// NewRateLimiter returns the rate limiter of a retry queue: after the n-th
// consecutive failure of an item (n >= 1) it waits min(Base*2^(n-1), Cap),
// plus up to 100% jitter.
func NewRateLimiter[T comparable]() workqueue.TypedRateLimiter[T] {
	return jittered[T]{workqueue.NewTypedItemExponentialFailureRateLimiter[T](Base, Cap)}
}

// jittered adds up to 100% jitter to the delays of another rate limiter:
// When returns a delay in [d, 2d) where d is the inner delay.
type jittered[T comparable] struct {
	inner workqueue.TypedRateLimiter[T]
}

func (l jittered[T]) When(item T) time.Duration {
	return wait.Jitter(l.inner.When(item), 1.0)
}

func (l jittered[T]) Forget(item T) { l.inner.Forget(item) }

func (l jittered[T]) NumRequeues(item T) int { return l.inner.NumRequeues(item) }
