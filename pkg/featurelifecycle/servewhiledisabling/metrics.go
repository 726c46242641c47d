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

package servewhiledisabling

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

var (
	// servedGauge is 1 for a resource installed here to be served while its
	// Feature turns off and served now, 0 while it is not. Requests to it
	// are counted by the apiserver's own request metrics
	// (apiserver_request_total).
	servedGauge = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      "feature_lifecycle",
		Name:           "served_while_turning_off",
		Help:           "1 for a resource served only with a feature gate that is off, which this kube-apiserver serves, to read and delete, while the gate's Feature is Disabling; 0 while it does not.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"group", "resource", "gate"})

	registerMetrics sync.Once
)

// RegisterMetrics registers the package's metrics in the legacy registry.
func RegisterMetrics() {
	registerMetrics.Do(func() { legacyregistry.MustRegister(servedGauge) })
}

func gaugeValue(on bool) float64 {
	if on {
		return 1
	}
	return 0
}
