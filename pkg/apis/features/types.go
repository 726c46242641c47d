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

package features

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Feature records the lifecycle of one feature gate in a cluster. See the
// external type in k8s.io/api/features/v1alpha1 for field documentation.
type Feature struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   FeatureSpec
	Status FeatureStatus
}

// FeatureDesiredState is the state a feature is asked to reach.
type FeatureDesiredState string

const (
	// FeatureDesiredStateEnabled asks for the feature to be enabled.
	FeatureDesiredStateEnabled FeatureDesiredState = "Enabled"
	// FeatureDesiredStateDisabled asks for the feature to be disabled.
	FeatureDesiredStateDisabled FeatureDesiredState = "Disabled"
)

// FeatureManagement says where the desired state of a feature comes from.
type FeatureManagement string

const (
	// FeatureManagementCommandLine: desired state follows the apiservers' flags.
	FeatureManagementCommandLine FeatureManagement = "CommandLine"
	// FeatureManagementCentral: desired state follows the apiservers' flags,
	// and the other components follow the desired state.
	FeatureManagementCentral FeatureManagement = "Central"
	// FeatureManagementDynamic: an authorized client sets the desired state.
	FeatureManagementDynamic FeatureManagement = "Dynamic"
)

// FeatureSpec is the desired state of a Feature.
type FeatureSpec struct {
	Gate         string
	DesiredState FeatureDesiredState
	Management   FeatureManagement
	Declaration  *FeatureDeclaration
	Rollout      *FeatureRollout
}

// FeatureRollout is how a change of a Feature's desired state rolls out.
type FeatureRollout struct {
	Steps    []FeatureRolloutStep
	Paused   bool
	Abort    bool
	Analysis *FeatureRolloutAnalysis
}

// FeatureRolloutStep is one step of a rollout.
type FeatureRolloutStep struct {
	Count       int32
	Percent     int32
	Selector    *metav1.LabelSelector
	SoakSeconds *int32
}

// FeatureRolloutAnalysis bounds what a step of a rollout may cost.
type FeatureRolloutAnalysis struct {
	IntervalSeconds             *int32
	ReportTimeoutSeconds        *int32
	MaxNotReady                 int32
	MaxRestarts                 int32
	MaxErrorRateIncreasePercent *int32
	MinRequests                 *int32
}

// FeatureDeclaration is what a third party declares about one of its gates.
type FeatureDeclaration struct {
	PreRelease FeaturePreRelease
	Default    bool
	Components []string
	Tasks      []FeatureDeclaredTask
}

// FeatureDeclaredTask is a task of a third party's transition that one of
// its components completes.
type FeatureDeclaredTask struct {
	Name        string
	Description string
	Transition  FeatureState
	Owner       string
}

// FeatureState is the observed state of a feature.
type FeatureState string

const (
	// FeatureStateEnabled means enabled with no task left.
	FeatureStateEnabled FeatureState = "Enabled"
	// FeatureStateDisabled means disabled with no task left.
	FeatureStateDisabled FeatureState = "Disabled"
	// FeatureStateEnabling means being enabled.
	FeatureStateEnabling FeatureState = "Enabling"
	// FeatureStateDisabling means being disabled.
	FeatureStateDisabling FeatureState = "Disabling"
)

// FeaturePreRelease is the maturity of a feature gate.
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

// FeatureStatus is the observed state of a Feature.
type FeatureStatus struct {
	State               FeatureState
	Default             *bool
	PreRelease          FeaturePreRelease
	LockToDefault       bool
	Version             string
	Tasks               []FeatureTask
	Uses                []FeatureUse
	UsesResetTime       *metav1.Time
	Conditions          []metav1.Condition
	ObservedGeneration  int64
	AppliesWhileRunning bool
	Rollout             *FeatureRolloutStatus
}

// FeatureRolloutPhase is where a rollout stands.
type FeatureRolloutPhase string

// FeatureRolloutScope names the components a rollout picks its cohort from.
type FeatureRolloutScope string

const (
	// FeatureRolloutScopeNodes: the kubelets, by node name.
	FeatureRolloutScopeNodes FeatureRolloutScope = "Nodes"
	// FeatureRolloutScopeAPIServers: the kube-apiservers, by identity.
	FeatureRolloutScopeAPIServers FeatureRolloutScope = "APIServers"
)

// FeatureRolloutStatus is where a rollout stands and who has the new value.
type FeatureRolloutStatus struct {
	Phase         FeatureRolloutPhase
	Scope         FeatureRolloutScope
	From          FeatureDesiredState
	To            FeatureDesiredState
	Step          int32
	StepStartTime *metav1.Time
	Cohort        FeatureCohort
	Candidates    int32
	Members       int32
	Reason        string
	Message       string
}

// FeatureCohort is who has the new value of a rollout.
type FeatureCohort struct {
	Seed      string
	All       bool
	Below     string
	Selectors []metav1.LabelSelector
}

// FeatureTask is one step a transition has to complete.
type FeatureTask struct {
	Name        string
	Description string
	Attempts    int32
	Message     string
	Progress    string
	Checkpoint  string
	Owner       string
	Done        bool
}

// FeatureUse records that a component checked the gate and what it found.
type FeatureUse struct {
	Component       string
	Enabled         bool
	Reporters       []string
	FirstReportTime metav1.Time
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FeatureList is a list of Feature objects.
type FeatureList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Feature
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FeatureReport is what one process of a component found when it checked
// feature gates. See the external type in k8s.io/api/features/v1alpha1 for
// field documentation.
type FeatureReport struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec FeatureReportSpec
}

// FeatureReportSpec is what a process reports and how long it counts.
type FeatureReportSpec struct {
	Component            string
	Identity             string
	Gates                []FeatureReportGate
	RenewTime            *metav1.MicroTime
	LeaseDurationSeconds *int32
	HolderLease          *FeatureReportLease
	StartTime            *metav1.MicroTime
}

// FeatureReportGate is one gate a process checked and the value it found.
type FeatureReportGate struct {
	Name       string
	Enabled    bool
	Management FeatureManagement
	Cached     bool
}

// FeatureReportLease names a coordination.k8s.io Lease.
type FeatureReportLease struct {
	Namespace string
	Name      string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FeatureReportList is a list of FeatureReports.
type FeatureReportList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []FeatureReport
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FeatureTarget is the value the components following a Feature take. See
// the external type in k8s.io/api/features/v1alpha1 for field documentation.
type FeatureTarget struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec FeatureTargetSpec
}

// FeatureTargetSpec is the value followers take, and who takes another
// during a rollout.
type FeatureTargetSpec struct {
	Gate                string
	Management          FeatureManagement
	DesiredState        FeatureDesiredState
	AppliesWhileRunning bool
	Rollout             *FeatureTargetRollout
}

// FeatureTargetRollout is who takes the new value of a rollout.
type FeatureTargetRollout struct {
	Scope        FeatureRolloutScope
	DesiredState FeatureDesiredState
	Cohort       FeatureCohort
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FeatureTargetList is a list of FeatureTargets.
type FeatureTargetList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []FeatureTarget
}
