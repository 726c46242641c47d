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

// Command version-changes-gen writes what changes between each pair of
// consecutive versions the kube-apiserver we build can emulate, from
// upstream's own code: the gates whose default or stage changes (from the
// versioned gate specs kube-apiserver registers) and the resources whose
// storage version changes (from upstream's storage factory configuration,
// built for each emulation version as kube-apiserver builds it). It is the
// inventory of stage 2 (upgrade and downgrade flows): what a version
// change turns on or off, and what it makes rewrite.
//
//	version-changes-gen [-out FILE]
//
// hack/update-lifecycle-data.sh runs it; hack/update-lifecycle-data.sh --check
// fails when the committed file is stale.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"

	// Registers the kube gates in the default feature gate.
	_ "k8s.io/kubernetes/pkg/features"
)

func main() {
	out := flag.String("out", "pkg/features/inventory/zz_generated.version-changes.yaml", "the file to write")
	flag.Parse()
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	data, err := generate()
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "version-changes-gen:", err)
		os.Exit(1)
	}
}
