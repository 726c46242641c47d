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

package migrator

import (
	"sync"

	"k8s.io/client-go/util/flowcontrol"
)

// Options tune storage migrations. A zero field means its default; a
// negative QPS means no limit.
type Options struct {
	// PageSize is how many objects one step lists (and checkpoints after).
	PageSize int64
	// Workers is how many objects of a page are written concurrently.
	Workers int
	// QPS and Burst bound the rate of writes of one apiserver's migrations.
	QPS   float64
	Burst int
}

// DefaultOptions are the defaults of the configuration file's migration
// fields (configv1alpha1.MigrationConfiguration).
func DefaultOptions() Options {
	return Options{PageSize: 500, Workers: 16, QPS: 2000, Burst: 200}
}

// WithDefaults returns o with its zero fields set to DefaultOptions.
func (o Options) WithDefaults() Options {
	d := DefaultOptions()
	if o.PageSize <= 0 {
		o.PageSize = d.PageSize
	}
	if o.Workers <= 0 {
		o.Workers = d.Workers
	}
	if o.QPS == 0 {
		o.QPS = d.QPS
	}
	if o.Burst <= 0 {
		o.Burst = d.Burst
	}
	return o
}

// NewLimiter returns a token bucket of o.QPS writes per second and o.Burst
// (after WithDefaults), or no limit when o.QPS is negative.
func NewLimiter(o Options) flowcontrol.RateLimiter {
	o = o.WithDefaults()
	if o.QPS < 0 {
		return flowcontrol.NewFakeAlwaysRateLimiter()
	}
	return flowcontrol.NewTokenBucketRateLimiter(float32(o.QPS), o.Burst)
}

var (
	sharedLimitersMu sync.Mutex
	sharedLimiters   = map[[2]float64]flowcontrol.RateLimiter{}
)

// SharedLimiter returns the process-wide limiter of o's QPS and Burst, so
// that every migration of the apiserver draws from one token bucket.
func SharedLimiter(o Options) flowcontrol.RateLimiter {
	o = o.WithDefaults()
	key := [2]float64{o.QPS, float64(o.Burst)}
	sharedLimitersMu.Lock()
	defer sharedLimitersMu.Unlock()
	l, ok := sharedLimiters[key]
	if !ok {
		l = NewLimiter(o)
		sharedLimiters[key] = l
	}
	return l
}
