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

// Command models-schema prints the OpenAPI v2 definitions of the
// features.k8s.io types as a swagger document. hack/update-codegen.sh feeds it
// to applyconfiguration-gen, so the generated apply configurations know the
// list types and map keys that server-side apply merges by.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"k8s.io/features/api/openapi"
)

func main() {
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + name) }
	definitions := map[string]spec.Schema{}
	for name, def := range openapi.GetOpenAPIDefinitions(ref) {
		schema := def.Schema
		// Definitions that carry a separate v2 schema (int-or-string, quantity)
		// must be written in their v2 form.
		if v2, ok := def.Schema.Extensions[common.ExtensionV2Schema].(spec.Schema); ok {
			schema = v2
		}
		definitions[name] = schema
	}
	doc := spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "features.k8s.io", Version: "unversioned"}},
		Definitions: definitions,
	}}
	if err := json.NewEncoder(os.Stdout).Encode(&doc); err != nil {
		fmt.Fprintf(os.Stderr, "models-schema: %v\n", err)
		os.Exit(1)
	}
}
