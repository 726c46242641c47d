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

// Package components holds integration tests of the feature lifecycle
// (KEP-3920) with real components as processes: a kubelet reporting the
// gates it checks and following a Dynamic Feature, and
// kube-controller-manager and kube-scheduler following Central and
// Dynamic Features.
package components

import (
	"testing"

	"k8s.io/kubernetes/test/integration/features/harness"
)

func TestMain(m *testing.M) {
	harness.EtcdMain(m.Run)
}
