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

// Package turningoff holds the integration test of the resources of a
// feature that turns off (KEP-3920): which are still served, which are
// refused, and what discovery lists, while the feature is Disabling and
// once it is Disabled. It left package transitions, whose tests together came
// too close to go test's 10 minutes while make verify ran alongside.
package turningoff

import (
	"testing"

	"k8s.io/kubernetes/test/integration/features/harness"
)

func TestMain(m *testing.M) {
	harness.EtcdMain(m.Run)
}
