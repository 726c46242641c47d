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

package transition

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Reasons of the conditions SetConditions sets.
const (
	// ReasonConverged is the reason of Converged=True.
	ReasonConverged = "Converged"
	// ReasonTransitionInProgress is the reason of Converged=False while the
	// state is Enabling or Disabling, or tasks are left.
	ReasonTransitionInProgress = "TransitionInProgress"
	// ReasonWaitingForDesiredState is the reason of Converged=False while the
	// state is final (or empty) but differs from the desired state, or there
	// is no desired state yet.
	ReasonWaitingForDesiredState = "WaitingForDesiredState"
	// ReasonAllUsesAgree is the reason of UsesAgree=True.
	ReasonAllUsesAgree = "AllUsesAgree"
	// ReasonUsesDisagree is the reason of UsesAgree=False.
	ReasonUsesDisagree = "UsesDisagree"
	// ReasonAgreed is the reason of ConfigurationAgreed=True.
	ReasonAgreed = "Agreed"
	// ReasonDisagreed is the reason of ConfigurationAgreed=False.
	ReasonDisagreed = "Disagreed"
)

// SetConditions sets Converged, UsesAgree and ConfigurationAgreed on the
// status (with meta.SetStatusCondition, observedGeneration = generation),
// with CamelCase reasons and human messages:
//   - Converged True (reason Converged) exactly when state == desired and no
//     task is left; else False with reason TransitionInProgress (the state is
//     Enabling/Disabling or tasks are left; the message names the active
//     task) or WaitingForDesiredState.
//   - UsesAgree True (AllUsesAgree) or False (UsesDisagree, e.g. "kubelet
//     reports enabled=true while the feature is Disabled"). A final state is
//     compared with Drift; a transitional state with the final state it
//     heads for, so while Enabling the components still reporting
//     enabled=false are named. An empty state has nothing to disagree with.
//     With heldCleanup set, UsesAgree is False (CleanupHeldDuringRollout)
//     with heldCleanup as its message: a drift whose cleanup waits for
//     the apiservers to agree.
//   - ConfigurationAgreed True (Agreed) or False (Disagreed, with
//     c.DisagreementMessage()), as agreed says.
//
// meta.SetStatusCondition keeps lastTransitionTime unless the status of a
// condition changes; then, or for a new condition, it becomes now. Only the
// conditions are written: status.observedGeneration is the caller's.
func SetConditions(status *featuresv1alpha1.FeatureStatus, generation int64, desired featuresv1alpha1.FeatureDesiredState, c Configuration, agreed bool, heldCleanup string, now metav1.Time) {
	if status == nil {
		return
	}
	set := func(conditionType string, ok bool, reason, message string) {
		SetCondition(&status.Conditions, conditionType, ok, generation, reason, message, now)
	}

	ok, reason, message := converged(status, desired)
	set(featuresv1alpha1.FeatureConditionConverged, ok, reason, message)

	ok, reason, message = usesAgree(status)
	if heldCleanup != "" {
		ok, reason, message = false, ReasonCleanupHeld, heldCleanup
	}
	set(featuresv1alpha1.FeatureConditionUsesAgree, ok, reason, message)

	ok, reason, message = configurationAgreed(c, agreed)
	set(featuresv1alpha1.FeatureConditionConfigurationAgreed, ok, reason, message)
}

// ReasonCleanupHeld is the reason of UsesAgree=False while the cleanup of a
// drift (a component reported the feature on while it is Disabled) waits for the
// apiservers to agree.
const ReasonCleanupHeld = "CleanupHeldDuringRollout"

// CleanupHeld reports whether status remembers a drift whose cleanup was
// held while the apiservers disagreed.
func CleanupHeld(status *featuresv1alpha1.FeatureStatus) bool {
	c := meta.FindStatusCondition(status.Conditions, featuresv1alpha1.FeatureConditionUsesAgree)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == ReasonCleanupHeld
}

// SetKnown sets the Known condition: whether a live kube-apiserver knows the
// gate, with reason and message, keeping lastTransitionTime unless the
// status changes.
func SetKnown(status *featuresv1alpha1.FeatureStatus, generation int64, known bool, reason, message string, now metav1.Time) {
	SetCondition(&status.Conditions, featuresv1alpha1.FeatureConditionKnown, known, generation, reason, message, now)
}

// SetCondition sets the condition of type conditionType in conditions with
// meta.SetStatusCondition: status True when ok, else False, with
// observedGeneration generation, reason and message. lastTransitionTime
// becomes now for a new condition or when the status changes, and is kept
// otherwise. It reports whether conditions changed.
func SetCondition(conditions *[]metav1.Condition, conditionType string, ok bool, generation int64, reason, message string, now metav1.Time) bool {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               conditionType,
		Status:             status,
		ObservedGeneration: generation,
		LastTransitionTime: now,
		Reason:             reason,
		Message:            message,
	})
}

// converged computes the Converged condition.
func converged(status *featuresv1alpha1.FeatureStatus, desired featuresv1alpha1.FeatureDesiredState) (bool, string, string) {
	state := status.State
	switch {
	case desired != "" && string(state) == string(desired) && len(status.Tasks) == 0:
		return true, ReasonConverged, fmt.Sprintf("the feature is %s and no task is left", state)
	case isTransitional(state) || len(status.Tasks) > 0:
		return false, ReasonTransitionInProgress, fmt.Sprintf("state %s, desired %s: %s", orNone(string(state)), orNone(string(desired)), activeTask(status.Tasks, state))
	case desired == "":
		return false, ReasonWaitingForDesiredState, fmt.Sprintf("state %s, no desired state yet", orNone(string(state)))
	default:
		return false, ReasonWaitingForDesiredState, fmt.Sprintf("state %s, desired %s: the transition has not started", orNone(string(state)), desired)
	}
}

// activeTask describes the first task of tasks, or, when none is left, what
// the transitional state becomes next.
func activeTask(tasks []featuresv1alpha1.FeatureTask, state featuresv1alpha1.FeatureState) string {
	if len(tasks) == 0 {
		// Only reached for Enabling/Disabling, which have a final state.
		return fmt.Sprintf("no task left, the state becomes %s next", finalOf(state))
	}
	t := tasks[0]
	s := fmt.Sprintf("active task %s (1 of %d)", t.Name, len(tasks))
	detail := t.Message
	if detail == "" {
		detail = t.Description
	}
	if detail != "" {
		s += ": " + detail
	}
	if t.Progress != "" {
		s += " (" + t.Progress + ")"
	}
	return s
}

// usesAgree computes the UsesAgree condition.
func usesAgree(status *featuresv1alpha1.FeatureStatus) (bool, string, string) {
	final := finalOf(status.State)
	if final == "" {
		return true, ReasonAllUsesAgree, fmt.Sprintf("state %s: no final state to compare uses with", orNone(string(status.State)))
	}
	enabled := final == featuresv1alpha1.FeatureStateEnabled
	components := disagreeing(enabled, status.Uses)
	if len(components) == 0 {
		if len(status.Uses) == 0 {
			return true, ReasonAllUsesAgree, "no use reported"
		}
		return true, ReasonAllUsesAgree, fmt.Sprintf("all uses report enabled=%t", enabled)
	}
	verb := "reports"
	if len(components) > 1 {
		verb = "report"
	}
	return false, ReasonUsesDisagree, fmt.Sprintf("%s %s enabled=%t while the feature is %s", listNames(components), verb, !enabled, status.State)
}

// configurationAgreed computes the ConfigurationAgreed condition.
func configurationAgreed(c Configuration, agreed bool) (bool, string, string) {
	if !agreed {
		msg := c.DisagreementMessage()
		if msg == "" {
			msg = "apiservers disagree"
		}
		return false, ReasonDisagreed, msg
	}
	var parts []string
	if len(c.Enabled) > 0 {
		parts = append(parts, fmt.Sprintf("Enabled on %s", listNames(c.Enabled)))
	}
	if len(c.Disabled) > 0 {
		parts = append(parts, fmt.Sprintf("Disabled on %s", listNames(c.Disabled)))
	}
	if len(parts) == 0 {
		return true, ReasonAgreed, "no apiserver reports the gate"
	}
	return true, ReasonAgreed, "apiservers agree: " + strings.Join(parts, "; ")
}

// isTransitional reports whether state is Enabling or Disabling.
func isTransitional(state featuresv1alpha1.FeatureState) bool {
	return state == featuresv1alpha1.FeatureStateEnabling || state == featuresv1alpha1.FeatureStateDisabling
}

// finalOf returns the final state state is or heads for, or "" for an empty
// or unknown state.
func finalOf(state featuresv1alpha1.FeatureState) featuresv1alpha1.FeatureState {
	switch state {
	case featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateEnabling:
		return featuresv1alpha1.FeatureStateEnabled
	case featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateDisabling:
		return featuresv1alpha1.FeatureStateDisabled
	default:
		return ""
	}
}

// orNone returns s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
