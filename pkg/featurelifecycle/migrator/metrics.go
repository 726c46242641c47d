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

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "feature_migration"

var (
	objectsSeen = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "objects_seen_total",
		Help:           "Stored objects the feature storage migrations of this kube-apiserver have read.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"resource"})
	objectsChanged = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "objects_changed_total",
		Help:           "Stored objects the feature storage migrations of this kube-apiserver have rewritten.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"resource"})
	objectConflicts = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "objects_conflicts_total",
		Help:           "Writes of feature storage migrations retried against a fresh object because it changed meanwhile.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"resource"})
	objectFailures = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "objects_failures_total",
		Help:           "Stored objects feature storage migrations failed to rewrite (for example because the result did not validate).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"resource"})

	registerMetrics sync.Once
)

// RegisterMetrics registers the migrator's metrics in the legacy registry.
// It is safe to call more than once; New calls it.
func RegisterMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(objectsSeen, objectsChanged, objectConflicts, objectFailures)
	})
}
