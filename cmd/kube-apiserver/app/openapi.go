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

package app

import (
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	featuresopenapi "k8s.io/features/api/openapi"
)

// addOpenAPIDefinitions merges the features.k8s.io definitions into the
// OpenAPI v2 and v3 configurations. The v3 configuration precomputes its
// Definitions map, which takes precedence over GetDefinitions, so both are
// extended. The configurations are shared by pointer with the apiextensions
// and aggregator configs built from the same generic config.
func addOpenAPIDefinitions(generic *genericapiserver.Config) {
	if c := generic.OpenAPIConfig; c != nil {
		c.GetDefinitions = withFeatureDefinitions(c.GetDefinitions)
	}
	if c := generic.OpenAPIV3Config; c != nil {
		c.GetDefinitions = withFeatureDefinitions(c.GetDefinitions)
		if c.Definitions != nil {
			// Build references exactly as DefaultOpenAPIV3Config built the map.
			ref := func(name string) spec.Ref {
				defName, _ := c.GetDefinitionName(name)
				return spec.MustCreateRef("#/components/schemas/" + common.EscapeJsonPointer(defName))
			}
			for name, def := range featuresopenapi.GetOpenAPIDefinitions(ref) {
				if _, found := c.Definitions[name]; !found {
					c.Definitions[name] = def
				}
			}
		}
	}
}

func withFeatureDefinitions(upstream common.GetOpenAPIDefinitions) common.GetOpenAPIDefinitions {
	return func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		defs := upstream(ref)
		for name, def := range featuresopenapi.GetOpenAPIDefinitions(ref) {
			if _, found := defs[name]; !found {
				defs[name] = def
			}
		}
		return defs
	}
}
