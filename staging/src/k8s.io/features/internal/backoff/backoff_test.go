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

package backoff

import (
	"testing"
	"time"
)

func TestRateLimiter(t *testing.T) {
	for n, base := range map[int]time.Duration{1: Base, 2: 2 * Base, 3: 4 * Base, 9: Cap, 100: Cap} {
		lo, hi := 2*base, time.Duration(0)
		for range 200 {
			limiter := NewRateLimiter[string]()
			for range n - 1 {
				limiter.When("f")
			}
			d := limiter.When("f")
			if got := limiter.NumRequeues("f"); got != n {
				t.Fatalf("failure %d: NumRequeues %d, want %d", n, got, n)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo < base || hi > 2*base {
			t.Errorf("failure %d: backoff in [%v, %v], want within [%v, %v]", n, lo, hi, base, 2*base)
		}
		if hi-lo < base/4 {
			t.Errorf("failure %d: backoff in [%v, %v] is not jittered", n, lo, hi)
		}
	}
	// Forget starts the backoff again from Base.
	limiter := NewRateLimiter[string]()
	for range 5 {
		limiter.When("f")
	}
	limiter.Forget("f")
	if got := limiter.NumRequeues("f"); got != 0 {
		t.Errorf("NumRequeues after Forget: %d, want 0", got)
	}
	if d := limiter.When("f"); d < Base || d > 2*Base {
		t.Errorf("backoff after Forget: %v, want within [%v, %v]", d, Base, 2*Base)
	}
}
