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
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// leaderGauge is 1 for each feature this kube-apiserver leads and 0 for each
// it has observed and does not lead.
var leaderGauge = metrics.NewGaugeVec(
	&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      "feature_lifecycle",
		Name:           "leader",
		Help:           "1 if this kube-apiserver leads the feature's lifecycle, 0 otherwise.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"feature"},
)

var registerOnce sync.Once

// Register registers the metrics of this package
// (apiserver_feature_lifecycle_leader) with the legacy registry. It is safe
// to call more than once.
func Register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(leaderGauge)
	})
}

// Observe records whether this kube-apiserver leads feature: it sets
// apiserver_feature_lifecycle_leader{feature=feature} to 1 or 0. It has no
// effect until Register has been called.
func (e *Elector) Observe(feature string, leads bool) {
	v := 0.0
	if leads {
		v = 1
	}
	leaderGauge.WithLabelValues(feature).Set(v)
}

// Forget removes the series of feature from apiserver_feature_lifecycle_leader,
// for a Feature that was deleted.
func (e *Elector) Forget(feature string) {
	leaderGauge.DeleteLabelValues(feature)
}
