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

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const metricsSubsystem = "feature_lifecycle"

var (
	stateGauge = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "state",
		Help:           "1 for the state a Feature is in (Enabled, Disabled, Enabling, Disabling), 0 for the others, as seen by its leader.",
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
	rolloutPhaseGauge = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "rollout_phase",
		Help:           "1 for the phase a Feature's rollout in steps is in (Progressing, Paused, Failed, RolledBack, Aborted, Complete), 0 for the others and when it has none; as seen by its leader.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature", "phase"})
	rolloutStepGauge = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "rollout_step",
		Help:           "The current step, from 1, of a Feature's rollout in steps (0: none, or not started); as seen by its leader.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature"})
	rolloutCohortGauge = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "rollout_cohort_members",
		Help:           "How many of the candidates (nodes or apiservers) had the new value of a Feature's rollout in steps when its current step started; as seen by its leader.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature"})
	rolloutsStoppedTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "apiserver",
		Subsystem:      metricsSubsystem,
		Name:           "rollouts_stopped_total",
		Help:           "Rollouts in steps this kube-apiserver stopped because a step's analysis failed, by the reason (NodeNotReady, APIServerNotLive, Restarted, ErrorRateRose, NewValueNotReported).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"feature", "reason"})

	registerMetrics sync.Once
)

// rolloutPhases are the phases of a rollout, for rolloutPhaseGauge.
var rolloutPhases = []featuresv1alpha1.FeatureRolloutPhase{featuresv1alpha1.FeatureRolloutProgressing, featuresv1alpha1.FeatureRolloutPaused,
	featuresv1alpha1.FeatureRolloutFailed, featuresv1alpha1.FeatureRolloutRolledBack, featuresv1alpha1.FeatureRolloutAborted,
	featuresv1alpha1.FeatureRolloutComplete}

// observeRollout sets the rollout metrics of f to r, its leader's
// status.rollout; nil (no rollout any more) deletes its series. Only
// Kubernetes' own gates roll out in steps (the FeatureStatus plugin refuses
// a rollout of any other Feature), and the gauges say one Feature's rollout
// each, so a Feature outside kube-system has none: folded into
// ThirdPartyMetricFeature, as the other metrics are, they would mean nothing.
func observeRollout(f *featuresv1alpha1.Feature, r *featuresv1alpha1.FeatureRolloutStatus) {
	if f.Namespace != KubeNamespace {
		return
	}
	if r == nil {
		forgetRollout(f.Name)
		return
	}
	for _, phase := range rolloutPhases {
		v := 0.0
		if r.Phase == phase {
			v = 1
		}
		rolloutPhaseGauge.WithLabelValues(f.Name, string(phase)).Set(v)
	}
	rolloutStepGauge.WithLabelValues(f.Name).Set(float64(r.Step))
	rolloutCohortGauge.WithLabelValues(f.Name).Set(float64(r.Members))
}

// forgetRollout deletes the rollout gauges of the kube-system Feature named
// feature: its rollout ended, this apiserver no longer leads it, or it is
// gone. The stop counter stays, as counters do.
func forgetRollout(feature string) {
	for _, phase := range rolloutPhases {
		rolloutPhaseGauge.DeleteLabelValues(feature, string(phase))
	}
	rolloutStepGauge.DeleteLabelValues(feature)
	rolloutCohortGauge.DeleteLabelValues(feature)
}

// RegisterMetrics registers the controller's metrics in the legacy registry.
func RegisterMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(stateGauge, transitionsTotal, taskDuration, taskFailuresTotal, versionChangeBlocked,
			rolloutPhaseGauge, rolloutStepGauge, rolloutCohortGauge, rolloutsStoppedTotal)
	})
}
