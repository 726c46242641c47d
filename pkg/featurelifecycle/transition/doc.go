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

// Package transition is the pure decision logic of the KEP-3920 server flow
// (DESIGN §5) for one Feature. It makes no API calls; the leader of a
// Feature feeds it the object it read and writes back what it returns.
//
//   - ConfigurationOf and Desired derive spec.desiredState from the values
//     the live kube-apiservers report in status.uses. When they disagree the
//     previous desired state is held, so nothing flaps while an admin rolls a
//     flag change through the apiservers.
//   - Step is the state machine: Enabled, Disabled, Enabling, Disabling. Entering a
//     transitional state installs the task list of a Plan; a reversal mid-way
//     replaces it; a transitional state with no task left becomes final.
//     Running the tasks is the task runner's job, not this package's.
//   - Drift finds components whose uses contradict a final state.
//   - SetConditions records the Converged, UsesAgree and ConfigurationAgreed
//     conditions.
package transition
