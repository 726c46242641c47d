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

// Package rollout is the pure state machine of a canary rollout (the KEP's
// canary follow-up): steps widen the cohort (k8s.io/features/cohort) while
// the analysis of each step passes (Analyze); a failed analysis pauses the
// rollout for good and, when the feature can be undone, rolls the cohort
// back. It does no I/O; a controller gathers the Health of the cohort,
// calls Analyze and Next, and publishes the Status. Gates says which gates
// can roll out in steps, and on which components (gates.go); the cohort's
// membership, which the components decide, is k8s.io/features/cohort.
package rollout
