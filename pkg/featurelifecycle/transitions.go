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
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/featurelifecycle/transition"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// transitions is the job of the transitions of the Features of
// kube-system that this apiserver leads: desired state from the voters'
// configuration, the state machine, the cleanup of a drift or of residue,
// one bounded step of the active task, and the conditions. A third party's
// Features that kube-apiserver leads go through the same state machine
// (thirdparty.go).
type transitions struct {
	self     string
	client   kubernetes.Interface
	recorder record.EventRecorder
	// lifecycles is the registry transitions are planned from.
	lifecycles map[featuregate.Feature]lifecycle.Lifecycle
	uses       *uses
	versions   *versions
	residue    *residueScanner
	runner     *taskRunner
	// crds are the CRDs' bindings to third parties' Features (nil without
	// a dynamic client).
	crds *customResources
	// resync is Config.Resync.
	resync time.Duration
}

// vote is the outcome of the voters' configuration for one Feature.
type vote struct {
	config  transition.Configuration
	desired featuresv1alpha1.FeatureDesiredState
	// agreed is false while the voters disagree (a rollout).
	agreed bool
	// specWritten says that spec.desiredState was updated to desired.
	specWritten bool
}

// desiredState computes desired state from the configuration of the
// voters: the apiservers seen within the forget window, so that an outage
// cannot start a transition. A Dynamic Feature's desired state is its spec's.
// When it changes, it is written to the spec.
func (t *transitions) desiredState(ctx context.Context, f *featuresv1alpha1.Feature, voters []string) (vote, error) {
	v := vote{config: transition.ConfigurationOf(f, voters), desired: f.Spec.DesiredState, agreed: true}
	v.config.Modes = t.uses.modes(f.Spec.Gate, voters)
	v.config.Versions = t.uses.apiserverVersions(voters)
	management := f.Spec.Management
	mode, modesAgreed := v.config.Management()
	switch {
	case !modesAgreed:
		// A rolling change of the apiservers' --feature-lifecycle-*-gates:
		// management and desired state hold until they agree.
		v.agreed = false
	case mode != "" && mode != management:
		management = mode
	}
	switch {
	case !modesAgreed:
	case management == featuresv1alpha1.FeatureManagementDynamic:
		// A client sets desired state; the apiservers' values follow it
		// and do not vote. A Feature just made Dynamic keeps the desired
		// state it had (the apiservers' configured value).
		v.config.Enabled, v.config.Disabled = nil, nil
		if v.desired == "" {
			v.desired, _ = transition.Desired(transition.ConfigurationOf(f, voters), "")
		}
	default:
		v.desired, v.agreed = transition.Desired(v.config, f.Spec.DesiredState)
	}
	if v.desired == f.Spec.DesiredState && management == f.Spec.Management {
		return v, nil
	}
	updated := f.DeepCopy()
	updated.Spec.DesiredState, updated.Spec.Management = v.desired, management
	_, err := t.client.FeaturesV1alpha1().Features(KubeNamespace).Update(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"})
	v.specWritten = err == nil
	if err == nil && management != f.Spec.Management {
		t.recorder.Eventf(f, corev1.EventTypeNormal, "ManagementChanged", "every voting kube-apiserver opts the gate into %s (was %s)", management, f.Spec.Management)
	}
	return v, err
}

// next computes the Feature's next status: the gate's description, the
// state machine, the cleanup of a drift, one bounded step of the active
// task, and the conditions. Events and metrics of what it changes go to
// after, recorded once the change is stored (a failed write is redone by the
// next pass).
func (t *transitions) next(ctx context.Context, f *featuresv1alpha1.Feature, spec featuregate.FeatureSpec, v vote, now time.Time, after *outbox) (*featuresv1alpha1.FeatureStatus, time.Duration) {
	status := f.Status.DeepCopy()
	from := status.Version
	// The leader keeps the description current, at the lowest emulation
	// version among the live apiservers: after an upgrade the leaders run
	// the new version, and while the apiservers move from one emulation
	// version to another the description is the version they can still
	// fall back to.
	described, at := t.versions.description(f.Spec.Gate, spec, v.config.Versions)
	Describe(status, described, at)
	t.versions.move(f, status, from, at, after)
	status.AppliesWhileRunning = lifecycle.AppliesWhileRunning(featuregate.Feature(f.Spec.Gate))
	transition.SetKnown(status, f.Generation, true, "Known", "the leader, "+t.self+", knows the gate", metav1.NewTime(now))
	t.recordDesiredStateSetter(f, after)
	plan := t.plan(f.Spec.Gate, status)
	t.step(f, status, v.desired, plan, after)
	held := t.cleanUpDrift(f, status, v.agreed, plan, after)
	t.reenterOnResidue(f, status, v, plan, now, after)

	requeue := time.Duration(0)
	if len(status.Tasks) > 0 {
		// The tasks of a transition, then the version-keyed ones, which
		// may also be pending in a final state (versiontasks.go).
		if t.versions.taskWaits(f.Spec.Gate, status, v.config.Versions) {
			requeue = t.resync
		} else {
			requeue = t.runner.run(ctx, f, status, t.task(f, status.State, status.Tasks[0]), now, after)
		}
		// A finished last task completes the transition in the same write.
		t.step(f, status, v.desired, plan, after)
	}
	if status.State == featuresv1alpha1.FeatureStateDisabled && meta.IsStatusConditionTrue(status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains) {
		transition.SetCondition(&status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains, false, f.Generation,
			"TasksRanAgain", "the Disabling tasks ran again after stored data was found", metav1.NewTime(now))
	}
	transition.SetConditions(status, f.Generation, v.desired, v.config, v.agreed, held, metav1.NewTime(now))
	if s := t.versions.safety; s != nil {
		s.set(f.Spec.Gate, status, f.Generation, t.residue.usesOf(f.Name), metav1.NewTime(now))
	}
	status.ObservedGeneration = f.Generation
	return status, requeue
}

// recordDesiredStateSetter records, once the status is stored, who set the
// Feature's spec.desiredState, when a client set it since the last pass.
func (t *transitions) recordDesiredStateSetter(f *featuresv1alpha1.Feature, after *outbox) {
	if by, ok := desiredStateSetBy(f); ok && f.Status.ObservedGeneration < f.Generation {
		after.add(func() {
			t.recorder.Eventf(f, corev1.EventTypeNormal, "DesiredStateSet", "%s set spec.desiredState to %s", by, f.Spec.DesiredState)
		})
	}
}

// desiredStateSetBy returns who set the Feature's current spec.desiredState
// through the API, as the FeatureStatus admission plugin recorded it for
// this generation.
func desiredStateSetBy(f *featuresv1alpha1.Feature) (string, bool) {
	value, ok := f.Annotations[featuresv1alpha1.DesiredStateSetByAnnotation]
	if !ok {
		return "", false
	}
	by, generation, ok := strings.Cut(value, " (generation ")
	if !ok || strings.TrimSuffix(generation, ")") != strconv.FormatInt(f.Generation, 10) {
		return "", false
	}
	return by, true
}

// cleanUpDrift handles a component reporting the feature on while it is Disabled:
// it may have written data the feature adds, so the Disabling tasks run
// again. While the apiservers disagree (an admin is rolling a flag change
// through them) the cleanup is held, so the rollout does not flap the state;
// it is remembered in UsesAgree and runs if the apiservers settle on Disabled.
// It returns the message of a held cleanup, or "".
func (t *transitions) cleanUpDrift(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, agreed bool, plan transition.Plan, after *outbox) string {
	drift := transition.Drift(status.State, status.Uses)
	if status.State != featuresv1alpha1.FeatureStateDisabled || (len(drift) == 0 && !transition.CleanupHeld(&f.Status)) {
		return ""
	}
	if !agreed {
		if len(drift) == 0 {
			return "the feature was reported enabled while it is Disabled and the apiservers disagree (a rollout); the Disabling tasks run again if they settle on Disabled"
		}
		return fmt.Sprintf("%s reported the feature enabled while it is Disabled and the apiservers disagree (a rollout); the Disabling tasks run again if they settle on Disabled", strings.Join(drift, ", "))
	}
	status.State, status.Tasks = featuresv1alpha1.FeatureStateDisabling, plan(featuresv1alpha1.FeatureStateDisabling)
	after.add(func() {
		t.recorder.Eventf(f, corev1.EventTypeWarning, "UsesDrifted", "%v reported the feature enabled while it is Disabled; running the Disabling tasks again", drift)
		transitionsTotal.WithLabelValues(metricFeature(f), string(featuresv1alpha1.FeatureStateDisabled), string(featuresv1alpha1.FeatureStateDisabling)).Inc()
	})
	return ""
}

// reenterOnResidue sends a Disabled Feature back to Disabling when the
// residue scan found stored objects that still use what its gate guards,
// with the StoredDataRemains condition naming them (next turns it False
// once the Feature is Disabled again). While the apiservers disagree the
// finding is kept for later.
func (t *transitions) reenterOnResidue(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, v vote, plan transition.Plan, now time.Time, after *outbox) {
	if status.State != featuresv1alpha1.FeatureStateDisabled || v.desired != featuresv1alpha1.FeatureDesiredStateDisabled {
		// A transition runs the tasks anyway (or the feature turns on):
		// what was found is stale.
		if _, forget := t.residue.take(f.Name); forget != nil {
			forget()
		}
		return
	}
	message, forget := t.residue.take(f.Name)
	if message == "" || !v.agreed {
		return
	}
	status.State, status.Tasks = featuresv1alpha1.FeatureStateDisabling, plan(featuresv1alpha1.FeatureStateDisabling)
	transition.SetCondition(&status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains, true, f.Generation,
		"Found", message, metav1.NewTime(now))
	after.add(func() {
		forget()
		t.recorder.Eventf(f, corev1.EventTypeWarning, "StoredDataRemains", "The feature is Disabled but %s; running the Disabling tasks again", message)
		transitionsTotal.WithLabelValues(metricFeature(f), string(featuresv1alpha1.FeatureStateDisabled), string(featuresv1alpha1.FeatureStateDisabling)).Inc()
	})
}

// step applies the state machine to status; its events and metrics go to
// after.
func (t *transitions) step(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, desired featuresv1alpha1.FeatureDesiredState, plan transition.Plan, after *outbox) {
	r := transition.Step(status.State, desired, status.Tasks, plan)
	if !r.Changed {
		return
	}
	status.State, status.Tasks = r.State, r.Tasks
	if r.From == r.To {
		return
	}
	after.add(func() {
		transitionsTotal.WithLabelValues(metricFeature(f), string(r.From), string(r.To)).Inc()
		switch r.To {
		case featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling:
			t.recorder.Eventf(f, corev1.EventTypeNormal, "TransitionStarted", "%s -> %s (desired %s): %d tasks", r.From, r.To, desired, len(r.Tasks))
		default:
			t.recorder.Eventf(f, corev1.EventTypeNormal, "TransitionCompleted", "%s -> %s", r.From, r.To)
		}
	})
}

// tasksFor returns the tasks of a gate's transition into target: WaitForUses,
// then what the lifecycle registry declares.
func (t *transitions) tasksFor(gate string, target featuresv1alpha1.FeatureState) []tasks.Task {
	list := []tasks.Task{tasks.WaitForUses{}}
	lc := t.lifecycles[featuregate.Feature(gate)]
	if target == featuresv1alpha1.FeatureStateEnabling {
		return append(list, lc.OnEnable...)
	}
	return append(list, lc.OnDisable...)
}

// plan returns the Plan of gate's transitions for a Feature whose status
// is status: the transition's tasks, then the version-keyed tasks status
// holds when the transition starts.
func (t *transitions) plan(gate string, status *featuresv1alpha1.FeatureStatus) transition.Plan {
	return func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
		var out []featuresv1alpha1.FeatureTask
		for _, task := range t.tasksFor(gate, target) {
			out = append(out, tasks.Status(task))
		}
		return append(out, t.versions.pendingTasks(gate, status.Tasks)...)
	}
}

// task returns the task of f's transition into state that status
// describes: one of its transition's tasks, a version-keyed task of its
// gate, or, for a third party's, the task its owner completes (also when
// the declaration no longer holds it) or the moot task of a CRD that no
// longer binds to it.
func (t *transitions) task(f *featuresv1alpha1.Feature, state featuresv1alpha1.FeatureState, status featuresv1alpha1.FeatureTask) tasks.Task {
	gate, name := f.Spec.Gate, status.Name
	if f.Namespace != KubeNamespace {
		for _, task := range t.thirdPartyTasks(f, state) {
			if task.Name() == name {
				return task
			}
		}
		switch {
		case status.Owner != "":
			return tasks.Owned{TaskName: name, TaskDescription: status.Description, Owner: status.Owner}
		case t.crds != nil && tasks.IsCustomResourcesTaskName(name):
			return moot(name)
		}
		return nil
	}
	if state == featuresv1alpha1.FeatureStateEnabling || state == featuresv1alpha1.FeatureStateDisabling {
		for _, task := range t.tasksFor(gate, state) {
			if task.Name() == name {
				return task
			}
		}
	}
	if task := t.lifecycles[featuregate.Feature(gate)].VersionTask(name); task != nil {
		return task
	}
	return nil
}
