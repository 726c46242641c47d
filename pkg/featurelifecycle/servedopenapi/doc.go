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

// Package servedopenapi serves kube-apiserver's OpenAPI documents without
// the fields of features that are off (KEP-3920's follow-up goal): while a
// gate is off in the apiserver, or its Feature in kube-system is Disabled or
// asked to be Disabled, /openapi/v2 and /openapi/v3 leave out the fields the
// gate inventory lists for it, and the values its validation refuses leave
// their enums; kubectl explain then says the field does not exist. Fields
// that are served carry their Feature and its state as extensions.
//
// Only the served documents change. The documents as built stay whole
// (the Recorder keeps them, as the server's OpenAPIV3Config.PostProcessSpec;
// v2's is the server's StaticOpenAPISpec), and so do the static
// api/openapi-spec files and the definitions server-side apply's type
// converter is built from, so an object that still holds a hidden field
// applies as before. The Publisher republishes a copy, schemas copied only
// where they change, through the server's own OpenAPI services: a v3
// group-version gets a new hash in /openapi/v3, which kube-aggregator's
// OpenAPI v3 controller picks up from its local delegate within a second.
// The Recorder can also hand the server, as it builds its v3 documents,
// each one as the stored Features show it (ServeFromStart), so that
// kube-aggregator, which hashes every document as the server is prepared
// to run, marshals none of them twice; the Publisher then republishes only
// what changed since (Publisher.Served).
package servedopenapi
