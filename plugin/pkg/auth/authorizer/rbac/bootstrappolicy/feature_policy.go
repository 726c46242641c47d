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

package bootstrappolicy

import (
	rbacv1 "k8s.io/api/rbac/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	rbacv1helpers "k8s.io/kubernetes/pkg/apis/rbac/v1"
	"k8s.io/kubernetes/pkg/features"
)

// featureReporterRules are the rules of a component that reports the feature
// gates it checks in its own FeatureReport and reads the Features whose
// desired state it follows, and their FeatureTargets (KEP-3920): kubelets,
// kube-controller-manager and kube-scheduler. The FeatureStatus admission
// plugin limits each to its own report in kube-system. Nil unless the FeatureLifecycle gate is on.
func featureReporterRules() []rbacv1.PolicyRule {
	if !utilfeature.DefaultFeatureGate.Enabled(features.FeatureLifecycle) {
		return nil
	}
	return []rbacv1.PolicyRule{
		rbacv1helpers.NewRule("create", "get", "patch", "update").Groups(featuresGroup).Resources("featurereports").RuleOrDie(),
		rbacv1helpers.NewRule(Read...).Groups(featuresGroup).Resources("features", "featuretargets").RuleOrDie(),
	}
}
