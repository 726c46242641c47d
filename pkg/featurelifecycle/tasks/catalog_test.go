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

package tasks

import (
	"testing"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

// TestingCatalog returns kube-apiserver's store catalog built without one
// (standalone.Catalog): what the tests validate declarations against.
func TestingCatalog(tb testing.TB) *storecatalog.Catalog {
	tb.Helper()
	c, err := standalone.Catalog()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
