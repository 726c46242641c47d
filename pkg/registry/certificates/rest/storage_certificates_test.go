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

	"k8s.io/apiserver/pkg/authorization/authorizerfactory"

	"k8s.io/kubernetes/pkg/featurelifecycle/featurestates"
	"k8s.io/kubernetes/pkg/featurelifecycle/servewhiledisabling/servewhiledisablingtesting"
	"k8s.io/kubernetes/pkg/features"
	certificatesrest "k8s.io/kubernetes/pkg/registry/certificates/rest"
)

// TestServedWhileDisabling checks the provider's hooks for the
// ClusterTrustBundle and PodCertificateRequest gates' resources.
func TestServedWhileDisabling(t *testing.T) {
	provider := func(s *featurestates.Registry) servewhiledisablingtesting.Provider {
		return certificatesrest.RESTStorageProvider{Authorizer: authorizerfactory.NewAlwaysAllowAuthorizer(), FeatureStates: s}
	}
	t.Run("ClusterTrustBundle", func(t *testing.T) {
		servewhiledisablingtesting.CheckProvider(t, provider, features.ClusterTrustBundle, map[string][]string{
			"v1":       {"clustertrustbundles"},
			"v1beta1":  {"clustertrustbundles"},
			"v1alpha1": {"clustertrustbundles"},
		})
	})
	t.Run("PodCertificateRequest", func(t *testing.T) {
		servewhiledisablingtesting.CheckProvider(t, provider, features.PodCertificateRequest, map[string][]string{
			"v1":      {"podcertificaterequests"},
			"v1beta1": {"podcertificaterequests"},
		})
	})
}
