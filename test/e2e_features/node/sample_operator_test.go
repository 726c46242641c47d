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

package node

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sampleartifacts "k8s.io/sample-feature-controller/artifacts"

	"k8s.io/kubernetes/test/e2e_features/framework"
)

// The sample third party's operator
// (staging/src/k8s.io/sample-feature-controller), loaded with kind load and
// installed from its manifests, runs as a Deployment on the cluster of
// TestKindCreateCluster, reports from its pod and takes its gate
// WidgetColors through use and off.
func init() {
	kindClusterChecks = append(kindClusterChecks, sampleOperator)
}

// sampleImage is the sample operator's image, as its Deployment names it
// (hack/build-images.sh sample-feature-controller).
const sampleImage = "sample-feature-controller:dev"

// sampleOperator loads the sample operator's image into the cluster name,
// installs it from its manifests and checks that its pod reports its gates
// and that its gate WidgetColors turns off, its task done by the pod.
func sampleOperator(t *testing.T, c kindCluster) {
	t.Helper()
	kind, env, name, cp, start := c.kind, c.env, c.name, c.cp, c.start
	ctx := context.Background()
	if _, err := framework.Docker(ctx, "image", "inspect", "--format", "{{.Id}}", sampleImage); err != nil {
		t.Fatalf("the image %s is missing: build it with hack/build-images.sh sample-feature-controller (make test-e2e does): %v", sampleImage, err)
	}
	if out, err := kindCommand(ctx, kind, env, "load", "docker-image", sampleImage, "--name", name); err != nil {
		t.Fatalf("kind load docker-image %s: %v\n%s", sampleImage, err, out)
	}
	files, err := fs.Glob(sampleartifacts.Manifests, "install/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("the sample's manifests: %v", err)
	}
	var manifests []byte
	for _, file := range append(files, "examples/widget.yaml") {
		data, err := fs.ReadFile(sampleartifacts.Manifests, file)
		if err != nil {
			t.Fatal(err)
		}
		manifests = append(append(manifests, "\n---\n"...), data...)
	}
	local := filepath.Join(t.TempDir(), "sample.yaml")
	if err := os.WriteFile(local, manifests, 0o644); err != nil {
		t.Fatal(err)
	}
	// Not /tmp: the node's /tmp is a tmpfs over the directory docker cp writes.
	if out, err := framework.Docker(ctx, "cp", local, cp.name+":/kind/sample.yaml"); err != nil {
		t.Fatalf("docker cp: %v\n%s", err, out)
	}
	// The Widget's CRD is served shortly after it is created: apply again
	// until everything is.
	var out string
	var applied error
	if err := poll(time.Minute, func() bool {
		out, applied = cp.kubectl("apply", "-f", "/kind/sample.yaml")
		return applied == nil
	}); err != nil {
		t.Fatalf("installing the sample operator: %v\n%s", applied, out)
	}
	const ns = "sample-feature-system"
	waitTrue(t, cp, start, "the sample operator Available", 3*time.Minute,
		"-n", ns, "get", "deployment", "sample-feature-controller", "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
	pod := cp.mustKubectl("-n", ns, "get", "pods", "-l", "app=sample-feature-controller", "-o", "jsonpath={.items[0].metadata.name}")
	var reports string
	if err := poll(2*time.Minute, func() bool {
		reports, _ = cp.kubectl("-n", ns, "get", "featurereports")
		return strings.Contains(reports, "sample-feature-controller."+pod+" ")
	}); err != nil {
		t.Errorf("the sample operator's pod %s does not report:\n%s", pod, reports)
	}
	t.Logf("the sample operator's reports:\n%s", reports)
	var color string
	if err := poll(2*time.Minute, func() bool {
		color, _ = cp.kubectl("-n", ns, "get", "configmap", "widget-example-widget", "-o", "jsonpath={.data.color}")
		return color == "red"
	}); err != nil {
		t.Fatalf("the Widget's ConfigMap holds the color %q, want red:\n%s", color, cp.mustKubectl("-n", ns, "logs", pod))
	}

	cp.mustKubectl("-n", ns, "patch", "feature", "widget-colors", "--type=merge", "-p", `{"spec":{"desiredState":"Disabled"}}`)
	asked := time.Now()
	var state string
	if err := poll(3*time.Minute, func() bool {
		state, _ = cp.kubectl("-n", ns, "get", "feature", "widget-colors", "-o", "jsonpath={.status.state}")
		return state == "Disabled"
	}); err != nil {
		t.Fatalf("widget-colors is %s 3 minutes after it was asked Disabled:\n%s", state, cp.mustKubectl("-n", ns, "describe", "feature", "widget-colors"))
	}
	t.Logf("widget-colors Disabled %v after it was asked Disabled:\n%s", time.Since(asked).Round(time.Second), cp.mustKubectl("-n", ns, "get", "events", "--field-selector", "involvedObject.name=widget-colors"))
	if color := cp.mustKubectl("-n", ns, "get", "configmap", "widget-example-widget", "-o", "jsonpath={.data.color}"); color != "" {
		t.Errorf("the Widget's ConfigMap holds the color %q with widget-colors Disabled", color)
	}
	if widget := cp.mustKubectl("-n", ns, "get", "widget", "example-widget", "-o", "jsonpath={.spec}"); strings.Contains(widget, "color") || strings.Contains(widget, "Huge") {
		t.Errorf("the Widget holds %s with widget-colors Disabled", widget)
	}
}
