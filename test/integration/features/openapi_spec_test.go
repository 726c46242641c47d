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

package features

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

const (
	// openAPISpecFile is the committed OpenAPI v3 document of
	// features.k8s.io/v1alpha1, relative to this package, named as
	// upstream names those of api/openapi-spec/v3.
	openAPISpecFile = "../../../api/openapi-spec/v3/apis__features.k8s.io__v1alpha1_openapi.json"
	// updateOpenAPISpecEnv set to "true" makes TestOpenAPISpec write the
	// served document instead of comparing it (hack/update-openapi-spec.sh).
	updateOpenAPISpecEnv = "UPDATE_OPENAPI_SPEC"
)

// TestOpenAPISpec compares the OpenAPI v3 document our apiserver serves for
// features.k8s.io/v1alpha1 with the committed api/openapi-spec, so that an
// API change shows in review and a stale spec fails (make verify runs this
// test through hack/verify-openapi-spec.sh).
func TestOpenAPISpec(t *testing.T) {
	e := startServer(t, lifecycleFlags...)
	paths, err := e.kube.Discovery().OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	gv, ok := paths["apis/features.k8s.io/v1alpha1"]
	if !ok {
		t.Fatalf("no OpenAPI v3 document for features.k8s.io/v1alpha1")
	}
	raw, err := gv.Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	served, err := canonicalJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(updateOpenAPISpecEnv) == "true" {
		if err := os.MkdirAll(filepath.Dir(openAPISpecFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(openAPISpecFile, served, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", openAPISpecFile)
		return
	}
	committed, err := os.ReadFile(openAPISpecFile)
	if err != nil {
		t.Fatalf("%v: run hack/update-openapi-spec.sh (make update)", err)
	}
	if !bytes.Equal(committed, served) {
		t.Fatalf("api/openapi-spec/v3/%s is stale: run hack/update-openapi-spec.sh (make update)", filepath.Base(openAPISpecFile))
	}
}

// canonicalJSON returns doc with sorted keys, indented, and a final newline.
func canonicalJSON(doc []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
