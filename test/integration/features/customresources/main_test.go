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

// Package customresources holds the integration test of custom resources
// gated by a third party's Features (KEP-3920's third parties): fields,
// enum values and kinds that CustomResourceFeatureBindings bind to Features
// in the vendor's namespace, dropped, refused, and cleared from etcd or
// held until none is stored when they turn off; and the binding API itself
// through kubectl (field errors, explain, server-side apply, migration).
package customresources

import (
	"testing"

	"k8s.io/kubernetes/test/integration/features/harness"
)

func TestMain(m *testing.M) {
	harness.EtcdMain(m.Run)
}
