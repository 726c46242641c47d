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

// Command lifecycle-fixtures-gen writes the on→use→off fixture of every gate
// whose lifecycle is derived from the gate inventory
// (pkg/features/inventory), with no per-gate code: for each resource the
// inventory records field paths of the gate in (a pod spec path in every
// resource that holds a pod spec, as the derived tasks apply it), and for
// each resource served only with the gate, it starts from a minimal valid
// object of the resource (templates.go), sets each recorded leaf path with
// a valid value for that path (values.go, keyed by path, shared by every
// gate and resource), and keeps a path only if upstream's defaulting,
// strategy and validation accept the object with the gate on, a derived
// task of the gate holds it, and with the gate off the strategy leaves
// nothing a task holds. Paths it cannot set are listed, with the reason, in
// the fixture's header.
//
//	lifecycle-fixtures-gen [-dir DIR]
//
// It writes DIR/<gate>/zz_generated.fixture.yaml and removes the generated
// files of gates that no longer get one. It then clears, from each
// fixture, what the gate's clear-fields tasks clear, runs upstream's update
// strategy and validation on the result with the gate off, and writes the
// resources that refuse it to the -refused-rewrites file, from which
// pkg/features derives waiting tasks instead (refused.go). Gates with an explicit
// registration (pkg/features.Lifecycles) and gates in DIR/exceptions.yaml
// keep their hand-written fixtures. It changes the process's default
// feature gate as it goes: it is a generator, not a server.
// hack/update-lifecycle-data.sh runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/features/inventory"

	// Registers the kube gates in the default feature gate.
	_ "k8s.io/kubernetes/pkg/features"
)

func main() {
	dir := flag.String("dir", "pkg/features/lifecycle/testdata", "the lifecycle fixtures directory")
	refused := flag.String("refused-rewrites", "pkg/features/inventory/"+inventory.RefusedRewritesFile, "the file to write the refused rewrites to (embedded by pkg/features/inventory)")
	flag.BoolVar(&verbose, "v", false, "report what was kept and left out on standard error")
	flag.Parse()
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	if err := run(*dir, *refused); err != nil {
		fmt.Fprintln(os.Stderr, "lifecycle-fixtures-gen:", err)
		os.Exit(1)
	}
}

var verbose bool

func progress(format string, args ...interface{}) {
	if verbose {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}
