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

// +k8s:deepcopy-gen=package
// +groupName=featurelifecycle.config.k8s.io

// Package v1alpha1 is the configuration file of kube-apiserver's feature
// lifecycle (KEP-3920), --feature-lifecycle-config-file: the knobs of the
// server flow that are not flags. kube-apiserver decodes it strictly,
// defaults it (SetDefaults) and validates it (Validate), naming the field
// of each error.
package v1alpha1 // import "k8s.io/kubernetes/pkg/featurelifecycle/apis/config/v1alpha1"
