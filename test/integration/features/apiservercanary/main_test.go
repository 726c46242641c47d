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

// Package apiservercanary holds the integration test of canary rollouts on
// apiservers (the KEP's canary follow-up, scope APIServers): three
// kube-apiservers as processes, each its own host, built with a test-only
// gate that the lifecycle registry declares safe to canary on apiservers
// (testgate-apiserver).
package apiservercanary

import (
	"testing"

	"k8s.io/kubernetes/test/integration/features/harness"
)

func TestMain(m *testing.M) {
	harness.EtcdMain(m.Run)
}
