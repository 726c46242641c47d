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

package reporting

import (
	corev1 "k8s.io/api/core/v1"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/features/report"
)

// kubeletReporterOptions are the reporting options of a kubelet, as our
// cmd/kubelet sets them: its node lease says it is alive.
func kubeletReporterOptions(node string) report.Options {
	return report.Options{
		Component:   "kubelet",
		Identity:    node,
		HolderLease: &featuresv1alpha1.FeatureReportLease{Namespace: corev1.NamespaceNodeLease, Name: node},
	}
}
