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

package features

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/featureflags/test/integration/framework"
)

// BenchmarkWritesPerReset measures the writes that reporters of one component
// make after status.uses is reset, for 1, 100 and 1000 reporters against one
// real apiserver: writes/reset (successful), conflicts/reset (rejected by
// optimistic concurrency, no etcd write) and the time until uses settle.
func BenchmarkWritesPerReset(b *testing.B) {
	apiserver := framework.StartAPIServerProcess(b, "apiserver", framework.SharedEtcd().Prefix, lifecycleFlags...)
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("reporters=%d", n), func(b *testing.B) {
			sim := newSimulation(b, apiserver, fmt.Sprintf("bench-%d", n))
			sim.start(b, apiserver.ClientConfig(), "kube-scheduler", "r", n)
			defer sim.stop()
			sim.resetAndSettle(b, "kube-scheduler", 3*time.Second) // first report
			var writes, conflicts int64
			b.ResetTimer()
			for b.Loop() {
				ok, c, _ := sim.resetAndSettle(b, "kube-scheduler", 3*time.Second)
				writes += ok
				conflicts += c
			}
			b.ReportMetric(float64(writes)/float64(b.N), "writes/reset")
			b.ReportMetric(float64(conflicts)/float64(b.N), "conflicts/reset")
		})
	}
}
