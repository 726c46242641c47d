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

package rest_test

import (
	"testing"

	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	"k8s.io/kubernetes/pkg/featurelifecycle/servewhiledisabling/servewhiledisablingtesting"
	"k8s.io/kubernetes/pkg/features"
	lifecyclerest "k8s.io/kubernetes/pkg/registry/lifecycle/rest"
)

// TestServedWhileDisabling checks the provider's hook for the
// EvictionRequestAPI gate's resources.
func TestServedWhileDisabling(t *testing.T) {
	servewhiledisablingtesting.CheckProvider(t, func(s *featurestates.Registry) servewhiledisablingtesting.Provider {
		return lifecyclerest.RESTStorageProvider{FeatureStates: s}
	}, features.EvictionRequestAPI, map[string][]string{
		"v1alpha1": {"evictionrequests", "evictions"},
	})
}
