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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// Feature records the lifecycle of one feature gate in a cluster: the state
// the configuration asks for, the state the cluster has actually reached, which
// components checked the gate and what they found, and the tasks that must
// finish before a transition between Enabled and Disabled is complete.
//
// Kubernetes' own gates live in kube-system; third parties use their own
// namespace. The object name is the gate name in lower-case kebab form
// (MaxUnavailableStatefulSet is max-unavailable-stateful-set).
type Feature struct {
	metav1.TypeMeta `json:",inline"`

	// Standard object's metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is the desired state of the feature.
	// +optional
	Spec FeatureSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// status is the observed state of the feature. Only kube-apiserver and the
	// components that report their uses of the gate write it.
	// +optional
	Status FeatureStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FeatureDesiredState is the state a feature is asked to reach.
// +enum
type FeatureDesiredState string

const (
	// FeatureDesiredStateEnabled asks for the feature to be enabled.
	FeatureDesiredStateEnabled FeatureDesiredState = "Enabled"
	// FeatureDesiredStateDisabled asks for the feature to be disabled.
	FeatureDesiredStateDisabled FeatureDesiredState = "Disabled"
)

// FeatureManagement says where the desired state of a feature comes from,
// and where components take the gate's value from.
// +enum
type FeatureManagement string

const (
	// FeatureManagementCommandLine means the desired state follows the value
	// configured on the command line of the live kube-apiservers, and every
	// component takes the value from its own command line.
	FeatureManagementCommandLine FeatureManagement = "CommandLine"
	// FeatureManagementCentral means the desired state follows the value
	// configured on the command line of the live kube-apiservers, and the
	// other components take it from the Feature instead of their own
	// command line (unless it sets the gate explicitly).
	FeatureManagementCentral FeatureManagement = "Central"
	// FeatureManagementDynamic means an authorized client sets the desired
	// state, and every component, kube-apiserver included, applies it while
	// running.
	FeatureManagementDynamic FeatureManagement = "Dynamic"
)

// FeatureSpec is the desired state of a Feature.
type FeatureSpec struct {
	// gate is the exact name of the feature gate, for example
	// MaxUnavailableStatefulSet. Required and immutable.
	// +required
	Gate string `json:"gate" protobuf:"bytes,1,opt,name=gate"`

	// desiredState is the state the feature should reach: Enabled or Disabled. For
	// command-line features kube-apiserver keeps it equal to the value
	// configured on all live kube-apiservers.
	// +optional
	DesiredState FeatureDesiredState `json:"desiredState,omitempty" protobuf:"bytes,2,opt,name=desiredState,casttype=FeatureDesiredState"`

	// management says where desiredState comes from, and where components
	// take the gate's value from: CommandLine (the default), Central or
	// Dynamic. kube-apiserver sets it, for a Feature of kube-system, to the
	// mode its flags opt the gate into (--feature-lifecycle-central-gates,
	// --feature-lifecycle-dynamic-gates) once every live kube-apiserver
	// agrees.
	// +optional
	// +default="CommandLine"
	Management FeatureManagement `json:"management,omitempty" protobuf:"bytes,3,opt,name=management,casttype=FeatureManagement"`

	// declaration declares a third party's gate: its stage, its default,
	// the components that use it and the tasks its own components complete.
	// kube-apiserver then leads the Feature through its transitions as it
	// leads Kubernetes' own. Only a Feature outside kube-system has one
	// (kube-apiserver knows Kubernetes' own gates), and its gate must not be
	// one of Kubernetes' own.
	// +optional
	Declaration *FeatureDeclaration `json:"declaration,omitempty" protobuf:"bytes,4,opt,name=declaration"`

	// rollout, when set, makes a change of desiredState reach the components
	// in steps, a canary cohort first, instead of all at once: the cohort
	// grows at each step while its health holds, and the rollout pauses and
	// rolls the cohort back by itself when it does not. Only a Dynamic
	// Feature whose gate can canary (the lifecycle registry says on which
	// components) takes one. kube-apiserver publishes the cohort in
	// status.rollout; components outside it keep the old value.
	// +optional
	Rollout *FeatureRollout `json:"rollout,omitempty" protobuf:"bytes,5,opt,name=rollout"`
}

// FeatureRollout is how a change of a Feature's desired state rolls out.
type FeatureRollout struct {
	// steps widen the cohort, in order. Empty: one component, then 10, 25,
	// 50 and 100 percent, each soaking 300 seconds. At most 20.
	// +optional
	// +listType=atomic
	Steps []FeatureRolloutStep `json:"steps,omitempty" protobuf:"bytes,1,rep,name=steps"`

	// paused stops the rollout where it is: the cohort keeps the new value
	// and does not grow. Resuming soaks the current step again.
	// +optional
	Paused bool `json:"paused,omitempty" protobuf:"varint,2,opt,name=paused"`

	// abort takes the new value back from the cohort, which goes back to
	// the old value, and ends the rollout.
	// +optional
	Abort bool `json:"abort,omitempty" protobuf:"varint,3,opt,name=abort"`

	// analysis bounds what a step may cost before the rollout stops.
	// +optional
	Analysis *FeatureRolloutAnalysis `json:"analysis,omitempty" protobuf:"bytes,4,opt,name=analysis"`
}

// FeatureRolloutStep is one step of a rollout: the cohort grows to count
// components, or to percent of them, or by the nodes selector matches; then
// the step soaks while its analysis passes. Exactly one of count, percent
// and selector is set.
type FeatureRolloutStep struct {
	// count is a number of components.
	// +optional
	Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`

	// percent is a percentage of the components, 1 to 100, rounded up.
	// +optional
	Percent int32 `json:"percent,omitempty" protobuf:"varint,2,opt,name=percent"`

	// selector adds the nodes whose labels it matches. A rollout on
	// apiservers, which have no labels, cannot select by label.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,opt,name=selector"`

	// soakSeconds is how long the step's analysis must pass before the next
	// step. Default 300.
	// +optional
	SoakSeconds *int32 `json:"soakSeconds,omitempty" protobuf:"varint,4,opt,name=soakSeconds"`
}

// FeatureRolloutAnalysis bounds what a step of a rollout may cost. A step
// passes only while every component of the cohort reports the new value,
// no more of the cohort's nodes than maxNotReady are NotReady, the cohort
// restarted no more than the components outside it (maxRestarts), and the
// cohort's API error rate is no higher than theirs
// (maxErrorRateIncreasePercent).
type FeatureRolloutAnalysis struct {
	// intervalSeconds is how often a step is analysed, besides every change
	// of the cohort's nodes and reports. Default 30.
	// +optional
	IntervalSeconds *int32 `json:"intervalSeconds,omitempty" protobuf:"varint,1,opt,name=intervalSeconds"`

	// reportTimeoutSeconds is how long the cohort has, from the start of a
	// step, to report the new value before the step fails. Default 600.
	// +optional
	ReportTimeoutSeconds *int32 `json:"reportTimeoutSeconds,omitempty" protobuf:"varint,2,opt,name=reportTimeoutSeconds"`

	// maxNotReady is how many of the cohort's nodes may be NotReady.
	// Default 0.
	// +optional
	MaxNotReady int32 `json:"maxNotReady,omitempty" protobuf:"varint,3,opt,name=maxNotReady"`

	// maxRestarts is how many more of the cohort's components may restart
	// during a step than the components outside the cohort did in the same
	// time, in proportion. A component restarted when the startTime of its
	// FeatureReport is after the step started, on a node that existed
	// before. Default 0.
	// +optional
	MaxRestarts int32 `json:"maxRestarts,omitempty" protobuf:"varint,4,opt,name=maxRestarts"`

	// maxErrorRateIncreasePercent is how many percentage points higher the
	// error rate of the cohort's API requests may be, during a step, than
	// that of the components outside the cohort. Errors are answers with a
	// server error (5xx) and refusals of a malformed, invalid or forbidden
	// request (400, 422, 403); the leader of the Feature counts the
	// requests that reach its own apiserver. Default 1.
	// +optional
	MaxErrorRateIncreasePercent *int32 `json:"maxErrorRateIncreasePercent,omitempty" protobuf:"varint,5,opt,name=maxErrorRateIncreasePercent"`

	// minRequests is how many requests the cohort must make during a step
	// before its error rate counts. Default 100.
	// +optional
	MinRequests *int32 `json:"minRequests,omitempty" protobuf:"varint,6,opt,name=minRequests"`
}

// FeatureDeclaration is what a third party declares about one of its gates.
type FeatureDeclaration struct {
	// preRelease is the gate's stage: Alpha, Beta, GA or Deprecated.
	// +required
	PreRelease FeaturePreRelease `json:"preRelease" protobuf:"bytes,1,opt,name=preRelease,casttype=FeaturePreRelease"`

	// default is the gate's default value, and the Feature's desired state
	// while spec.desiredState is unset.
	// +required
	Default bool `json:"default" protobuf:"varint,2,opt,name=default"`

	// components names the components that use the gate, as their
	// FeatureReports in the Feature's namespace name them
	// (spec.component). When set, only their reports count for what a
	// transition waits on. At most 16.
	// +optional
	// +listType=set
	Components []string `json:"components,omitempty" protobuf:"bytes,3,rep,name=components"`

	// tasks are the tasks of the gate's transitions that the third party's
	// own components complete, after every component stopped using the
	// value the feature leaves (wait-for-uses), in this order. At most 16.
	// +optional
	// +listType=map
	// +listMapKey=name
	Tasks []FeatureDeclaredTask `json:"tasks,omitempty" protobuf:"bytes,4,rep,name=tasks"`
}

// WaitForUsesTaskName is the name of the task every transition starts
// with: wait until no live component reports the value the feature leaves.
const WaitForUsesTaskName = "wait-for-uses"

// FeatureDeclaredTask is a task of a third party's transition that one of
// its components completes.
type FeatureDeclaredTask struct {
	// name identifies the task within the Feature: a DNS label, other than
	// wait-for-uses.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// description says in a sentence what the task does.
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,2,opt,name=description"`

	// transition is the transition whose plan holds the task: Enabling or
	// Disabling.
	// +required
	Transition FeatureState `json:"transition" protobuf:"bytes,3,opt,name=transition,casttype=FeatureState"`

	// owner is the component that completes the task. A user authorized
	// for the verb "report" on featurereports named owner in the Feature's
	// namespace (the component's reporter) marks it done by setting
	// status.tasks[].done, and may set its message and progress.
	// +required
	Owner string `json:"owner" protobuf:"bytes,4,opt,name=owner"`
}

// FeatureState is the observed state of a feature.
// +enum
type FeatureState string

const (
	// FeatureStateEnabled means the feature is enabled and no task is left.
	FeatureStateEnabled FeatureState = "Enabled"
	// FeatureStateDisabled means the feature is disabled and no task is left.
	FeatureStateDisabled FeatureState = "Disabled"
	// FeatureStateEnabling means the feature is being enabled; tasks remain.
	FeatureStateEnabling FeatureState = "Enabling"
	// FeatureStateDisabling means the feature is being disabled; tasks remain.
	FeatureStateDisabling FeatureState = "Disabling"
)

// FeaturePreRelease is the maturity of a feature gate.
// +enum
type FeaturePreRelease string

const (
	// FeaturePreReleaseAlpha is an alpha gate.
	FeaturePreReleaseAlpha FeaturePreRelease = "Alpha"
	// FeaturePreReleaseBeta is a beta gate.
	FeaturePreReleaseBeta FeaturePreRelease = "Beta"
	// FeaturePreReleaseGA is a generally available gate.
	FeaturePreReleaseGA FeaturePreRelease = "GA"
	// FeaturePreReleaseDeprecated is a deprecated gate.
	FeaturePreReleaseDeprecated FeaturePreRelease = "Deprecated"
)

// Condition types of a Feature.
const (
	// FeatureConditionConverged is True exactly when the state equals the
	// desired state and no task is left.
	FeatureConditionConverged = "Converged"
	// FeatureConditionUsesAgree is False when a component reports a value of
	// the gate that differs from the feature's final state.
	FeatureConditionUsesAgree = "UsesAgree"
	// FeatureConditionConfigurationAgreed is False when the live
	// kube-apiservers are configured with different values of the gate.
	FeatureConditionConfigurationAgreed = "ConfigurationAgreed"
	// FeatureConditionKnown is False when no live kube-apiserver knows the
	// gate: a newer kube-apiserver announced it before a downgrade, or an
	// upgrade removed the gate. Such a Feature is kept, and deleted once the
	// apiservers are more minor versions past status.version than they retain.
	FeatureConditionKnown = "Known"
	// FeatureConditionStoredDataRemains is True when a Feature that was Disabled
	// was found to still have stored objects that use what its gate guards
	// (restored from a backup, written by an older kube-apiserver), which
	// the message names: the Feature went back to Disabling to run its
	// tasks again. It turns False once the Feature is Disabled again. Absent
	// while nothing was ever found.
	FeatureConditionStoredDataRemains = "StoredDataRemains"
	// FeatureConditionUpgradeSafe says whether this Feature allows raising
	// the kube-apiservers' emulation version by one minor version (the
	// message names it): False with the reason and what to do when it
	// blocks (a transition in progress, apiservers that disagree), True
	// otherwise, Unknown when the binary emulates no higher version. Set by
	// the Feature's leader from what changes between the versions it can
	// emulate; kubectl features check --to-version answers for the cluster.
	FeatureConditionUpgradeSafe = "UpgradeSafe"
	// FeatureConditionDowngradeSafe says the same of lowering the emulation
	// version by one minor version: False, for instance, while the feature
	// is on and its gate is off by default, or missing, one version below.
	FeatureConditionDowngradeSafe = "DowngradeSafe"
)

// Components and bounds of status.uses.
const (
	// APIServerComponent is the component kube-apiserver reports its uses
	// under; its uses list the identity of every apiserver.
	APIServerComponent = "kube-apiserver"
	// MaxAPIServerReporters bounds the reporters of a kube-apiserver use.
	MaxAPIServerReporters = 64
	// MaxSampledReporters bounds the reporters of any other component's use,
	// which keep a sample.
	MaxSampledReporters = 8
)

// FeatureStatus is the observed state of a Feature.
type FeatureStatus struct {
	// state is the observed state: Enabled, Disabled, Enabling or Disabling.
	// +optional
	State FeatureState `json:"state,omitempty" protobuf:"bytes,1,opt,name=state,casttype=FeatureState"`

	// default is the gate's default value at the emulation version in version.
	// +optional
	Default *bool `json:"default,omitempty" protobuf:"varint,2,opt,name=default"`

	// preRelease is the gate's maturity at the emulation version in version:
	// Alpha, Beta, GA or Deprecated.
	// +optional
	PreRelease FeaturePreRelease `json:"preRelease,omitempty" protobuf:"bytes,3,opt,name=preRelease,casttype=FeaturePreRelease"`

	// lockToDefault is true when the gate cannot be set to anything but its default.
	// +optional
	LockToDefault bool `json:"lockToDefault,omitempty" protobuf:"varint,4,opt,name=lockToDefault"`

	// version is the emulation version (major.minor) the gate's spec and the
	// state hold for: the lowest emulation version among the live
	// kube-apiservers, the version the cluster can still fall back to while
	// they emulate different versions (or the leading kube-apiserver's own
	// when the gate does not exist at that lowest version).
	// +optional
	Version string `json:"version,omitempty" protobuf:"bytes,5,opt,name=version"`

	// appliesWhileRunning is true when components read the gate each time
	// they use it, so that a Central or Dynamic Feature's new desired state
	// is applied while they run; otherwise a component that follows the
	// Feature exits to be restarted with the new value.
	// +optional
	AppliesWhileRunning bool `json:"appliesWhileRunning,omitempty" protobuf:"varint,11,opt,name=appliesWhileRunning"`

	// tasks are the tasks the current transition still has to run, in order;
	// the first one is the active task. Empty in a final state.
	// +optional
	// +listType=map
	// +listMapKey=name
	Tasks []FeatureTask `json:"tasks,omitempty" protobuf:"bytes,6,rep,name=tasks"`

	// uses are the values of the gate that components found when they checked
	// it, one entry per (component, enabled) pair.
	// +optional
	// +listType=map
	// +listMapKey=component
	// +listMapKey=enabled
	Uses []FeatureUse `json:"uses,omitempty" protobuf:"bytes,7,rep,name=uses"`

	// usesResetTime is when uses was last cleared to wait for fresh reports.
	// +optional
	UsesResetTime *metav1.Time `json:"usesResetTime,omitempty" protobuf:"bytes,8,opt,name=usesResetTime"`

	// conditions are the latest observations of the feature: Converged,
	// UsesAgree and ConfigurationAgreed.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,9,rep,name=conditions"`

	// observedGeneration is the spec generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,10,opt,name=observedGeneration"`

	// rollout is where the rollout of spec.rollout stands, and who has the
	// new value: components follow it, not spec.desiredState, while
	// spec.rollout is set.
	// +optional
	Rollout *FeatureRolloutStatus `json:"rollout,omitempty" protobuf:"bytes,12,opt,name=rollout"`
}

// FeatureRolloutPhase is where a rollout stands.
type FeatureRolloutPhase string

// The phases of a rollout. Complete, RolledBack and Aborted are final.
const (
	// FeatureRolloutProgressing: a step soaks and is analysed.
	FeatureRolloutProgressing FeatureRolloutPhase = "Progressing"
	// FeatureRolloutPaused: spec.rollout.paused holds it; the cohort keeps
	// the new value.
	FeatureRolloutPaused FeatureRolloutPhase = "Paused"
	// FeatureRolloutFailed: a step failed and the feature cannot be undone;
	// the cohort keeps the new value until the rollout is aborted.
	FeatureRolloutFailed FeatureRolloutPhase = "Failed"
	// FeatureRolloutRolledBack: a step failed and the cohort went back to
	// the old value.
	FeatureRolloutRolledBack FeatureRolloutPhase = "RolledBack"
	// FeatureRolloutAborted: spec.rollout.abort took the new value back.
	FeatureRolloutAborted FeatureRolloutPhase = "Aborted"
	// FeatureRolloutComplete: the last step passed; every component follows
	// spec.desiredState.
	FeatureRolloutComplete FeatureRolloutPhase = "Complete"
)

// FeatureRolloutScope names the components a rollout picks its cohort from.
type FeatureRolloutScope string

const (
	// FeatureRolloutScopeNodes: the kubelets, by node name.
	FeatureRolloutScopeNodes FeatureRolloutScope = "Nodes"
	// FeatureRolloutScopeAPIServers: the kube-apiservers, by identity
	// (the name of each one's identity lease).
	FeatureRolloutScopeAPIServers FeatureRolloutScope = "APIServers"
)

// FeatureConditionProgressing is True while a rollout progresses or when it
// completed, and False with the reason when it paused, failed, rolled back
// or was aborted.
const FeatureConditionProgressing = "Progressing"

// FeatureRolloutStatus is where a rollout stands and who has the new value.
type FeatureRolloutStatus struct {
	// phase is Progressing, Paused, Failed, RolledBack, Aborted or Complete.
	Phase FeatureRolloutPhase `json:"phase" protobuf:"bytes,1,opt,name=phase,casttype=FeatureRolloutPhase"`

	// scope names the components the cohort is picked from: Nodes or
	// APIServers, as the lifecycle registry declares for the gate.
	// Components outside the scope keep the old value until the rollout is
	// complete.
	Scope FeatureRolloutScope `json:"scope" protobuf:"bytes,2,opt,name=scope,casttype=FeatureRolloutScope"`

	// from is the old value, which components outside the cohort keep.
	From FeatureDesiredState `json:"from" protobuf:"bytes,3,opt,name=from,casttype=FeatureDesiredState"`

	// to is the new value, spec.desiredState when the rollout began.
	To FeatureDesiredState `json:"to" protobuf:"bytes,4,opt,name=to,casttype=FeatureDesiredState"`

	// step is the current step, from 1; 0 before the first.
	// +optional
	Step int32 `json:"step,omitempty" protobuf:"varint,5,opt,name=step"`

	// stepStartTime is when the current step started or resumed.
	// +optional
	StepStartTime *metav1.Time `json:"stepStartTime,omitempty" protobuf:"bytes,6,opt,name=stepStartTime"`

	// cohort is who has the new value.
	// +optional
	Cohort FeatureCohort `json:"cohort,omitempty" protobuf:"bytes,7,opt,name=cohort"`

	// candidates is how many components the cohort was picked from when
	// the current step started.
	// +optional
	Candidates int32 `json:"candidates,omitempty" protobuf:"varint,8,opt,name=candidates"`

	// members is how many of the candidates the cohort held when the
	// current step started.
	// +optional
	Members int32 `json:"members,omitempty" protobuf:"varint,9,opt,name=members"`

	// reason says, in CamelCase, why the rollout stands where it does:
	// StepStarted, NodeNotReady, PausedByAdmin, Complete...
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,10,opt,name=reason"`

	// message says the same for humans, naming the nodes concerned.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,11,opt,name=message"`
}

// FeatureCohort is who has the new value of a rollout. A component decides
// for itself: its rank is k8s.io/features/cohort.Rank(seed, identity), and
// it is a member when all is true, when its rank is below below, or when
// one of selectors matches its node's labels. The zero value is nobody.
type FeatureCohort struct {
	// seed seeds the ranks: the Feature's UID, so that each feature picks
	// different components first.
	// +optional
	Seed string `json:"seed,omitempty" protobuf:"bytes,1,opt,name=seed"`

	// all: every component, including those that join later.
	// +optional
	All bool `json:"all,omitempty" protobuf:"varint,2,opt,name=all"`

	// below is the rank threshold, a decimal unsigned 64-bit integer:
	// components ranked below it are members. It only grows.
	// +optional
	Below string `json:"below,omitempty" protobuf:"bytes,3,opt,name=below"`

	// selectors add the nodes whose labels one of them matches.
	// +optional
	// +listType=atomic
	Selectors []metav1.LabelSelector `json:"selectors,omitempty" protobuf:"bytes,4,rep,name=selectors"`
}

// FeatureTask is one step a transition has to complete.
type FeatureTask struct {
	// name identifies the task within the feature, for example wait-for-uses.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// description says in a sentence what the task does.
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,2,opt,name=description"`

	// attempts counts how many times the task has been tried.
	// +optional
	Attempts int32 `json:"attempts,omitempty" protobuf:"varint,3,opt,name=attempts"`

	// message is the latest human-readable message: what the task waits for,
	// or why its last attempt failed.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`

	// progress is a human-readable measure of progress, e.g. "12000/50000 objects".
	// +optional
	Progress string `json:"progress,omitempty" protobuf:"bytes,5,opt,name=progress"`

	// checkpoint is opaque state from which whichever kube-apiserver leads the
	// feature next resumes the task.
	// +optional
	Checkpoint string `json:"checkpoint,omitempty" protobuf:"bytes,6,opt,name=checkpoint"`

	// owner is the component that completes the task, for a task a third
	// party declared (spec.declaration.tasks); kube-apiserver runs the
	// others.
	// +optional
	Owner string `json:"owner,omitempty" protobuf:"bytes,7,opt,name=owner"`

	// done is set by the owner's reporter when a task with an owner is
	// complete; the Feature's leader then moves on.
	// +optional
	Done bool `json:"done,omitempty" protobuf:"varint,8,opt,name=done"`
}

// FeatureUse records that a component checked the gate and what value it found.
type FeatureUse struct {
	// component is the name of the component that checked the gate, for
	// example kube-apiserver, kube-controller-manager or kubelet.
	// +required
	Component string `json:"component" protobuf:"bytes,1,opt,name=component"`

	// enabled is the value the component found.
	// +required
	Enabled bool `json:"enabled" protobuf:"varint,2,opt,name=enabled"`

	// reporters are identities of processes of the component that reported
	// this value: every identity for kube-apiservers, a sample of at most 8
	// for other components.
	// +optional
	// +listType=set
	Reporters []string `json:"reporters,omitempty" protobuf:"bytes,3,rep,name=reporters"`

	// firstReportTime is when this (component, enabled) pair was first reported
	// since uses was last reset.
	// +optional
	FirstReportTime metav1.Time `json:"firstReportTime,omitempty" protobuf:"bytes,4,opt,name=firstReportTime"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// FeatureList is a list of Feature objects.
type FeatureList struct {
	metav1.TypeMeta `json:",inline"`

	// Standard list metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of Features.
	Items []Feature `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// FeatureReport is what one process of a component found when it checked
// feature gates: the gates it checked and their values, and how long the
// report counts as live. Each reporting process keeps exactly one report,
// named <component>.<identity>, in the namespace of the Features it reports
// to, and writes it only when its values change (and, when no lease of its
// own says it is alive, to renew it). kube-apiserver aggregates the live
// reports into the uses of each Feature, so a reporter neither reads nor
// writes Features, and a write to a Feature is sent to no reporter.
type FeatureReport struct {
	metav1.TypeMeta `json:",inline"`

	// Standard object's metadata. The name is <component>.<identity>.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is the report.
	// +optional
	Spec FeatureReportSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// FeatureReportSpec is what a process reports and how long it counts.
type FeatureReportSpec struct {
	// component is the name of the reporting component, for example
	// kubelet, kube-controller-manager or kube-scheduler. Required and
	// immutable.
	// +required
	Component string `json:"component" protobuf:"bytes,1,opt,name=component"`

	// identity identifies the process among its component's: a kubelet's
	// node name, a kube-apiserver's identity lease name, the host name of
	// a kube-controller-manager or kube-scheduler. Required and immutable.
	// +required
	Identity string `json:"identity" protobuf:"bytes,2,opt,name=identity"`

	// gates are the gates the process checked and the values it found
	// (kube-apiserver: every gate it knows, with its configured value),
	// at most one entry per gate.
	// +optional
	// +listType=atomic
	Gates []FeatureReportGate `json:"gates,omitempty" protobuf:"bytes,3,rep,name=gates"`

	// renewTime is when the reporter last wrote or renewed the report.
	// +optional
	RenewTime *metav1.MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`

	// leaseDurationSeconds is how long after renewTime the report counts
	// as live when holderLease does not say so; the reporter renews the
	// report well within it. Unset, a report without a renewed holderLease
	// counts as live for the waitForUsesPeriod of kube-apiserver's
	// feature lifecycle configuration after renewTime.
	// +optional
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty" protobuf:"varint,5,opt,name=leaseDurationSeconds"`

	// holderLease names a Lease that the reporting process already renews
	// (a kubelet's node lease, a kube-apiserver's identity lease): while it
	// is renewed within its duration the report counts as live, and the
	// reporter writes the report only when its values change.
	// +optional
	HolderLease *FeatureReportLease `json:"holderLease,omitempty" protobuf:"bytes,6,opt,name=holderLease"`

	// startTime is when the reporting process started. A new startTime
	// says the process restarted; a rollout in steps counts the restarts
	// of its cohort from it.
	// +optional
	StartTime *metav1.MicroTime `json:"startTime,omitempty" protobuf:"bytes,7,opt,name=startTime"`
}

// FeatureReportGate is one gate a process checked and the value it found.
type FeatureReportGate struct {
	// name is the exact name of the gate, for example
	// MaxUnavailableStatefulSet.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// enabled is the value the process found.
	// +required
	Enabled bool `json:"enabled" protobuf:"varint,2,opt,name=enabled"`

	// management is where the process takes the value from: for
	// kube-apiserver, the mode its flags opt the gate into (CommandLine
	// when unset); for other components, Central or Dynamic when the value
	// follows the Feature's desired state, CommandLine (or unset) when it
	// comes from the process's own configuration.
	// +optional
	Management FeatureManagement `json:"management,omitempty" protobuf:"bytes,3,opt,name=management,casttype=FeatureManagement"`

	// cached is true when the process could not read the Feature when it
	// started and took the value from its local cache of the desired state.
	// +optional
	Cached bool `json:"cached,omitempty" protobuf:"varint,4,opt,name=cached"`
}

// FeatureReportLease names a coordination.k8s.io Lease.
type FeatureReportLease struct {
	// namespace of the Lease.
	// +required
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`

	// name of the Lease.
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// FeatureReportList is a list of FeatureReport objects.
type FeatureReportList struct {
	metav1.TypeMeta `json:",inline"`

	// Standard list metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of FeatureReports.
	Items []FeatureReport `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// FeatureTarget is the value that the components following a Feature
// (management Central or Dynamic) take, and, while the Feature rolls out in
// steps, which of them take the new value. The Feature's leader writes it,
// with the Feature's namespace and name, only when one of these changes.
// Components watch FeatureTargets, not Features: the Feature's status
// writes (uses, tasks, conditions, each step of a rollout's analysis) reach
// no follower, and following costs one small event per change whatever the
// size of the cluster. Only kube-apiserver writes FeatureTargets.
type FeatureTarget struct {
	metav1.TypeMeta `json:",inline"`

	// Standard object's metadata. The name is the Feature's.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is what the followers take.
	// +optional
	Spec FeatureTargetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// FeatureTargetSpec is the value followers take, and who takes another
// during a rollout.
type FeatureTargetSpec struct {
	// gate is the Feature's spec.gate. Required and immutable.
	// +required
	Gate string `json:"gate" protobuf:"bytes,1,opt,name=gate"`

	// management is the Feature's spec.management: Central or Dynamic.
	// kube-apiserver follows only Dynamic targets.
	// +required
	Management FeatureManagement `json:"management" protobuf:"bytes,2,opt,name=management,casttype=FeatureManagement"`

	// desiredState is the value followers take, Enabled or Disabled; while rollout
	// is set, only those outside its cohort.
	// +required
	DesiredState FeatureDesiredState `json:"desiredState" protobuf:"bytes,3,opt,name=desiredState,casttype=FeatureDesiredState"`

	// appliesWhileRunning says that followers change the gate's value
	// while they run; otherwise a follower whose value changes restarts.
	// +optional
	AppliesWhileRunning bool `json:"appliesWhileRunning,omitempty" protobuf:"varint,4,opt,name=appliesWhileRunning"`

	// rollout is set while the Feature rolls out in steps: the members of
	// its cohort take its desiredState instead.
	// +optional
	Rollout *FeatureTargetRollout `json:"rollout,omitempty" protobuf:"bytes,5,opt,name=rollout"`
}

// FeatureTargetRollout is who takes the new value of a rollout.
type FeatureTargetRollout struct {
	// scope names the components the cohort is picked from: Nodes or
	// APIServers.
	// +required
	Scope FeatureRolloutScope `json:"scope" protobuf:"bytes,1,opt,name=scope,casttype=FeatureRolloutScope"`

	// desiredState is the value the members of the cohort take: the
	// rollout's new value.
	// +required
	DesiredState FeatureDesiredState `json:"desiredState" protobuf:"bytes,2,opt,name=desiredState,casttype=FeatureDesiredState"`

	// cohort is who takes it, as the Feature's status.rollout.cohort.
	// +optional
	Cohort FeatureCohort `json:"cohort,omitempty" protobuf:"bytes,3,opt,name=cohort"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// FeatureTargetList is a list of FeatureTarget objects.
type FeatureTargetList struct {
	metav1.TypeMeta `json:",inline"`

	// Standard list metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of FeatureTargets.
	Items []FeatureTarget `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// CustomResourceFeatureBinding binds fields, values of fields and the kind of
// one CustomResourceDefinition's custom resources to Features, the way
// Kubernetes' own strategies gate built-in fields: while a bound Feature is
// off, a write of a bound field gets it dropped with a warning, or refused;
// creating an object of a bound kind is refused; and the Feature's
// Disabling clears what stored objects hold, or holds until no stored
// object holds it, naming them. It is cluster-scoped like the CRD it
// extends, one per CRD, named after it (<plural>.<group>). Its writer must
// be allowed to update the CRD and to get every Feature it binds to.
type CustomResourceFeatureBinding struct {
	metav1.TypeMeta `json:",inline"`

	// Standard object's metadata. The name is the CustomResourceDefinition's,
	// <plural>.<group>.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec lists the bindings.
	// +required
	Spec CustomResourceFeatureBindingSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// MaxCustomResourceFieldBindings bounds the bindings of one
// CustomResourceFeatureBinding.
const MaxCustomResourceFieldBindings = 64

// CustomResourceFeatureBindingSpec lists what of a CRD's custom resources
// Features gate.
type CustomResourceFeatureBindingSpec struct {
	// bindings bind fields, values and the kind to Features. At least one,
	// at most 64; no field, value of a field or kind is bound twice.
	// +required
	// +listType=map
	// +listMapKey=name
	Bindings []CustomResourceFieldBinding `json:"bindings" protobuf:"bytes,1,rep,name=bindings"`
}

// CustomResourceFieldBinding binds a field of the custom resources, one
// value of a field, or their kind to a Feature.
type CustomResourceFieldBinding struct {
	// name identifies the binding in the list (a DNS label), for
	// server-side apply and for errors.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// path is the bound field, its names from the object's root joined by
	// dots, under spec or status, through objects only (spec.color). It
	// must be a field of the schema of one of the CRD's versions. Unset, the
	// binding binds the kind: while the Feature is off no object of the kind
	// can be created.
	// +optional
	Path string `json:"path,omitempty" protobuf:"bytes,2,opt,name=path"`

	// value, with path, binds only this value of the field (typically an
	// enum value), as a string: the string itself for a string field, the
	// decimal form for an integer or a number (3, 2.5), true or false for a
	// boolean (quote it in YAML). It must be valid for the field's type and
	// enum in the schema of one of the CRD's versions.
	// +optional
	Value *string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`

	// feature is the Feature the field, value or kind belongs to.
	// +required
	Feature FeatureReference `json:"feature" protobuf:"bytes,4,opt,name=feature"`

	// whenOff says what a write that sets the field or value gets while
	// the Feature is off (Disabled, Disabling, asked Disabled, or missing): Drop
	// removes it from the write with a warning, as built-in strategies drop
	// disabled fields; Refuse refuses the write with a field error. Default
	// Drop for a field or value; a kind is always Refuse.
	// +optional
	WhenOff CustomResourceWhenOff `json:"whenOff,omitempty" protobuf:"bytes,5,opt,name=whenOff,casttype=CustomResourceWhenOff"`

	// whenStored says what the Feature's Disabling does with stored
	// objects that hold the field or value: Clear rewrites each without it,
	// through the API; Hold keeps the Feature Disabling, naming up to ten
	// of the objects, until none holds it (the owners change or delete
	// them), as built-in gates hold for refused values. The Feature never
	// reaches Disabled while a stored object holds it. Default Clear with
	// whenOff Drop, Hold with Refuse; a kind is always Hold (objects are
	// never deleted).
	// +optional
	WhenStored CustomResourceWhenStored `json:"whenStored,omitempty" protobuf:"bytes,6,opt,name=whenStored,casttype=CustomResourceWhenStored"`
}

// FeatureReference names a Feature.
type FeatureReference struct {
	// namespace is the Feature's namespace.
	// +required
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`

	// name is the Feature's name.
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// CustomResourceWhenOff is what a write of a bound field or value gets while
// its Feature is off.
// +enum
type CustomResourceWhenOff string

const (
	// CustomResourceWhenOffDrop drops the field or value from the write,
	// with a warning naming it and the Feature.
	CustomResourceWhenOffDrop CustomResourceWhenOff = "Drop"
	// CustomResourceWhenOffRefuse refuses a write that sets the field or
	// value anew, with a field error naming it and the Feature.
	CustomResourceWhenOffRefuse CustomResourceWhenOff = "Refuse"
)

// CustomResourceWhenStored is what a Feature's Disabling does with stored
// objects that hold a bound field or value.
// +enum
type CustomResourceWhenStored string

const (
	// CustomResourceWhenStoredClear rewrites each stored object without
	// the field or value.
	CustomResourceWhenStoredClear CustomResourceWhenStored = "Clear"
	// CustomResourceWhenStoredHold keeps the Feature Disabling, naming up
	// to ten of the objects, until no stored object holds the field or
	// value.
	CustomResourceWhenStoredHold CustomResourceWhenStored = "Hold"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.34
// +k8s:prerelease-lifecycle-gen:deprecated=1.40

// CustomResourceFeatureBindingList is a list of CustomResourceFeatureBinding
// objects.
type CustomResourceFeatureBindingList struct {
	metav1.TypeMeta `json:",inline"`

	// Standard list metadata.
	// More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of CustomResourceFeatureBindings.
	Items []CustomResourceFeatureBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
