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
package leader

import (
	"strings"
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
)

func TestObserve(t *testing.T) {
	Register()
	Register() // idempotent
	t.Cleanup(leaderGauge.Reset)
	leaderGauge.Reset()

	e := NewElector("a", leaseLister(t), DefaultLivenessWindow, fixedClock)
	e.Observe("kube-system/led", true)
	e.Observe("kube-system/not-led", false)
	e.Observe("kube-system/flipped", true)
	e.Observe("kube-system/flipped", false)
	e.Observe("kube-system/gone", true)
	e.Forget("kube-system/gone")

	want := `
# HELP apiserver_feature_lifecycle_leader [ALPHA] 1 if this kube-apiserver leads the feature's lifecycle, 0 otherwise.
# TYPE apiserver_feature_lifecycle_leader gauge
apiserver_feature_lifecycle_leader{feature="kube-system/flipped"} 0
apiserver_feature_lifecycle_leader{feature="kube-system/led"} 1
apiserver_feature_lifecycle_leader{feature="kube-system/not-led"} 0
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), "apiserver_feature_lifecycle_leader"); err != nil {
		t.Error(err)
	}
}
