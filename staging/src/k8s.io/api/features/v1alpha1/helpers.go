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

// DesiredStateSetByAnnotation records on a Feature who last set its
// spec.desiredState through the API, and the generation that change made
// ("alice (generation 4)"). The FeatureStatus admission plugin sets it;
// kube-apiserver names the user in a DesiredStateSet event.
const DesiredStateSetByAnnotation = "features.k8s.io/desired-state-set-by"

// EmulationVersionAnnotation records on a kube-apiserver's FeatureReport the
// emulation version (--emulated-version, "major.minor") its reported values
// hold for. The Features' leaders describe each gate at the lowest emulation
// version among the live kube-apiservers, and name the versions when the
// apiservers disagree.
const EmulationVersionAnnotation = "features.k8s.io/emulation-version"

// FeatureReportName returns the name of the FeatureReport of a component's
// process: <component>.<identity>.
func FeatureReportName(component, identity string) string {
	return component + "." + identity
}

// Final says whether a rollout in phase p is over: Complete, RolledBack or
// Aborted. A Failed rollout is not: the cohort keeps the new value until
// it is aborted.
func (p FeatureRolloutPhase) Final() bool {
	return p == FeatureRolloutComplete || p == FeatureRolloutRolledBack || p == FeatureRolloutAborted
}
