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

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FeatureLifecycleConfiguration configures the server flow of the feature
// lifecycle in kube-apiserver (--feature-lifecycle-config-file). Every
// field is optional; an unset field takes its default. The gates managed
// Central or Dynamic are flags (--feature-lifecycle-central-gates,
// --feature-lifecycle-dynamic-gates), not fields: an operator turns them.
type FeatureLifecycleConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	// LivenessWindow is how recently a kube-apiserver must have renewed
	// its identity lease (every 10s) to count as live, for leading
	// Features and agreeing on their desired state. Default 30s.
	// +optional
	LivenessWindow *metav1.Duration `json:"livenessWindow,omitempty"`
	// ForgetWindow is how long a kube-apiserver that stopped renewing its
	// identity lease still counts with its configured value of each gate:
	// a Feature's desired state changes only when every kube-apiserver seen
	// within this window agrees, so that an outage cannot start a
	// transition the stopped apiservers disagree with. Default 5m.
	// +optional
	ForgetWindow *metav1.Duration `json:"forgetWindow,omitempty"`
	// WaitForUsesPeriod is the longest a component's FeatureReport counts
	// as live when neither a lease it names (a kubelet's node lease) nor a
	// lease duration of its own says how long: the upper bound of a
	// transition's wait for a component whose liveness cannot be seen.
	// Default 3m.
	// +optional
	WaitForUsesPeriod *metav1.Duration `json:"waitForUsesPeriod,omitempty"`
	// ReportRetention is how long a FeatureReport that stopped being live
	// is kept before it is deleted. Default 1h.
	// +optional
	ReportRetention *metav1.Duration `json:"reportRetention,omitempty"`
	// ResidueScan tunes the background scan for stored data of Features
	// that are Disabled.
	// +optional
	ResidueScan ResidueScanConfiguration `json:"residueScan,omitempty"`
	// Migration tunes the storage migrations of the ClearFields tasks.
	// +optional
	Migration MigrationConfiguration `json:"migration,omitempty"`
	// OpenAPIByState serves /openapi/v2 and /openapi/v3 without the fields
	// (and enum values) of gates that are off here or whose Feature is Disabled
	// or turning off, and marks the gated fields served with their Feature
	// and its state (x-kubernetes-feature, x-kubernetes-feature-state).
	// Default true.
	// +optional
	OpenAPIByState *bool `json:"openAPIByState,omitempty"`
}

// ResidueScanConfiguration tunes the scan that reads, a page at a time,
// the stored objects the Disabling tasks of the Disabled Features this
// kube-apiserver leads look at, and sends a Feature back to Disabling
// when some still use what its gate guards.
type ResidueScanConfiguration struct {
	// Interval is the pause between two passes; 0 turns the scan off.
	// Default 30m.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`
	// PageInterval is the pause between two reads of at most 100 objects
	// of a pass: it bounds the load of the scan on etcd and kube-apiserver.
	// 0 reads without a pause. Default 2s.
	// +optional
	PageInterval *metav1.Duration `json:"pageInterval,omitempty"`
}

// MigrationConfiguration tunes the storage migrations of this
// kube-apiserver's tasks.
type MigrationConfiguration struct {
	// PageSize is how many stored objects a migration reads per step; its
	// checkpoint is written after each page. Default 500.
	// +optional
	PageSize *int64 `json:"pageSize,omitempty"`
	// Workers is how many objects a migration writes concurrently.
	// Default 16.
	// +optional
	Workers *int32 `json:"workers,omitempty"`
	// QPS is the most writes per second of all the migrations of this
	// kube-apiserver; -1 means no limit. Default 2000.
	// +optional
	QPS *int32 `json:"qps,omitempty"`
	// Burst is the burst of those writes. Default 200.
	// +optional
	Burst *int32 `json:"burst,omitempty"`
}
