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
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/featurelifecycle/transition"
)

// ThirdPartyMetricFeature is the feature label of the metrics of every
// Feature outside kube-system: tenants create those, and a label value per
// Feature would let them grow the metrics without bound. It is no Feature's
// name (names are DNS subdomains).
const ThirdPartyMetricFeature = "_third_party"

// metricFeature is f's feature label in metrics.
func metricFeature(f *featuresv1alpha1.Feature) string {
	if f.Namespace == KubeNamespace {
		return f.Name
	}
	return ThirdPartyMetricFeature
}

// ledThirdParty says whether kube-apiserver leads a Feature outside
// kube-system through its transitions: one its third party declared
// (spec.declaration), or one whose desired state a client sets (Central or
// Dynamic, with spec.desiredState).
func ledThirdParty(f *featuresv1alpha1.Feature) bool {
	if f.Spec.Declaration != nil {
		return true
	}
	m := f.Spec.Management
	return f.Spec.DesiredState != "" && (m == featuresv1alpha1.FeatureManagementDynamic || m == featuresv1alpha1.FeatureManagementCentral)
}

// thirdPartyDesired is the desired state of a third party's Feature: its
// spec's, else its declared default.
func thirdPartyDesired(f *featuresv1alpha1.Feature) featuresv1alpha1.FeatureDesiredState {
	switch {
	case f.Spec.DesiredState != "":
		return f.Spec.DesiredState
	case f.Spec.Declaration != nil && f.Spec.Declaration.Default:
		return featuresv1alpha1.FeatureDesiredStateEnabled
	default:
		return featuresv1alpha1.FeatureDesiredStateDisabled
	}
}

// thirdPartyTasks are the tasks of a third party's transition into target:
// wait until the declared components' live reports (every reporter's in
// the namespace, when none are declared) leave the old value, then the
// tasks of Disabling for the CRDs that bind fields, values or kinds to the
// Feature (tasks.CustomResources), then the declared tasks of that
// transition, which their owners complete. The gate is not one of this
// apiserver's, so none of the lifecycle registry's tasks apply, whatever its
// name.
func (t *transitions) thirdPartyTasks(f *featuresv1alpha1.Feature, target featuresv1alpha1.FeatureState) []tasks.Task {
	d := f.Spec.Declaration
	list := []tasks.Task{tasks.WaitForUses{}}
	if d != nil {
		list[0] = tasks.WaitForUses{Components: d.Components}
	}
	if target == featuresv1alpha1.FeatureStateDisabling {
		list = append(list, t.crds.tasks(f)...)
	}
	if d == nil {
		return list
	}
	for _, task := range d.Tasks {
		if task.Transition == target {
			list = append(list, tasks.Owned{TaskName: task.Name, TaskDescription: task.Description, Owner: task.Owner})
		}
	}
	return list
}

// thirdPartyPlan is the Plan of a third party's transitions.
func (t *transitions) thirdPartyPlan(f *featuresv1alpha1.Feature) transition.Plan {
	return func(target featuresv1alpha1.FeatureState) []featuresv1alpha1.FeatureTask {
		var out []featuresv1alpha1.FeatureTask
		for _, task := range t.thirdPartyTasks(f, target) {
			out = append(out, tasks.Status(task))
		}
		return out
	}
}

// nextThirdParty computes the next status of a Feature outside
// kube-system that kube-apiserver leads through its transitions
// (ledThirdParty): the desired state is the spec's, set by a client of that
// namespace, or the declared default; the components that follow it are
// the namespace's reporters (k8s.io/features), whose reports make the uses
// WaitForUses waits on; the declared tasks wait for their owners. No
// apiserver configures the gate, so nothing votes and the configuration
// always agrees.
func (t *transitions) nextThirdParty(ctx context.Context, f *featuresv1alpha1.Feature, now time.Time, after *outbox) (*featuresv1alpha1.FeatureStatus, time.Duration) {
	status := f.Status.DeepCopy()
	t.recordDesiredStateSetter(f, after)
	if d := f.Spec.Declaration; d != nil {
		status.PreRelease, status.Default = d.PreRelease, ptr.To(d.Default)
	}
	desired, plan := thirdPartyDesired(f), t.thirdPartyPlan(f)
	t.step(f, status, desired, plan, after)
	requeue := time.Duration(0)
	if len(status.Tasks) > 0 {
		requeue = t.runner.run(ctx, f, status, t.task(f, status.State, status.Tasks[0]), now, after)
		// A finished last task completes the transition in the same write.
		t.step(f, status, desired, plan, after)
	}
	transition.SetConditions(status, f.Generation, desired, transition.Configuration{}, true, "", metav1.NewTime(now))
	// No apiserver configures a third party's gate.
	meta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.FeatureConditionConfigurationAgreed)
	status.ObservedGeneration = f.Generation
	return status, requeue
}
