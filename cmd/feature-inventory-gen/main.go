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

// Command gate-inventory writes, from upstream's own code, the inventory of
// the fields each kube-apiserver feature gate makes upstream's registry
// strategies drop when it is off: for every resource kube-apiserver serves
// with a registry store, it fills an internal object with upstream's API
// fuzzers (fixed seeds), runs the store's PrepareForCreate with every
// changeable gate on, then with one gate (and the gates that depend on it)
// off, and records the fields set in the first result and dropped or
// changed in the second.
//
//	gate-inventory [-out FILE] [-seeds N]
//
// It changes the process's default feature gate as it goes: it is a
// generator, not a server. hack/update-lifecycle-data.sh runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/klog/v2"

	// Installs the API groups kube-apiserver serves into legacyscheme.
	_ "k8s.io/kubernetes/pkg/featurelifecycle/upstreamstores"
	// Registers the kube gates in the default feature gate.
	_ "k8s.io/kubernetes/pkg/features"
)

func main() {
	out := flag.String("out", "pkg/features/inventory/zz_generated.inventory.yaml", "file to write the inventory to, - for standard output")
	seeds := flag.Int("seeds", 30, "fuzzed objects per resource (seeds 0..N-1)")
	exhaustive := flag.Bool("exhaustive", false, "run PrepareForCreate with every gate off on every object, also where the strategy did not read the gate (slow; to check that skipping them changes nothing)")
	release := flag.String("upstream-version", "", "the kubernetes release the tree's series applies to, recorded as upstreamVersion (hack/update-lifecycle-data.sh passes patches/RELEASE)")
	flag.BoolVar(&verbose, "v", false, "report progress on standard error")
	flag.Parse()
	if *release == "" {
		fmt.Fprintln(os.Stderr, "gate-inventory: -upstream-version is required")
		os.Exit(2)
	}
	// Building storage and setting GA gates log; none of it matters here.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)

	if err := run(*out, *release, *seeds, *exhaustive); err != nil {
		fmt.Fprintln(os.Stderr, "gate-inventory:", err)
		os.Exit(1)
	}
}

// verbose turns progress reports on.
var verbose bool

// start is when the generator started.
var start = time.Now()

func progress(format string, args ...interface{}) {
	if verbose {
		fmt.Fprintf(os.Stderr, "%6.1fs %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
}

func run(out, release string, seeds int, exhaustive bool) error {
	inv, err := build(release, seeds, exhaustive)
	if err != nil {
		return err
	}
	data := inv.render()
	if out == "-" {
		_, err = os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(out, data, 0o644)
}
