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

// Package featuregate provides a reporting feature gate: Gate wraps a
// k8s.io/component-base/featuregate.MutableVersionedFeatureGate, behaves
// exactly like it, and remembers which gates the process checked so that the
// values the process actually uses can be reported to the cluster's Feature
// objects (KEP-3920).
//
// A component installs the wrapper in place of its global gate before flags
// are parsed, so that every check, including those made before any API client
// exists, is remembered:
//
//	gate := featuregate.Wrap(utilfeature.DefaultMutableFeatureGate, "kube-scheduler")
//	utilfeature.DefaultMutableFeatureGate = gate
//	utilfeature.DefaultFeatureGate = gate
//
// Enabled answers from an immutable snapshot that is rebuilt whenever the gate
// is mutated through the wrapper, so it is at least as fast as upstream's
// Enabled and never allocates.
package featuregate
