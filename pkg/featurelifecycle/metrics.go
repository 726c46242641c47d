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

package featurelifecycle

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "feature_lifecycle"

var (
	stateGauge = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "state",
		Help:           "1 for the state a Feature is in (On, Off, TurningOn, TurningOff), 0 for the others, as seen by its leader.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature", "state"})
	transitionsTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "transitions_total",
		Help:           "State transitions of Features made by this kube-apiserver.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature", "from", "to"})
	taskDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "task_duration_seconds",
		Help:           "Time from when this kube-apiserver first stepped a transition task to its completion.",
		Buckets:        metrics.ExponentialBuckets(1, 2, 14),
		StabilityLevel: metrics.ALPHA,
	}, []string{"task"})
	taskFailuresTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "task_failures_total",
		Help:           "Failed steps of transition tasks.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature", "task"})
	versionChangeBlocked = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "version_change_blocked",
		Help:           "1 when the Feature blocks moving the emulation version one minor version in the direction (upgrade, downgrade), as its UpgradeSafe and DowngradeSafe conditions say, else 0; as seen by its leader.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature", "direction"})

	registerMetrics sync.Once
)

// RegisterMetrics registers the controller's metrics in the legacy registry.
func RegisterMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(stateGauge, transitionsTotal, taskDuration, taskFailuresTotal, versionChangeBlocked)
	})
}
