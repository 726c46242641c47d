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

// Command feature-inventory-gen writes, from upstream's own code, the inventory of
// the fields each kube-apiserver feature gate makes upstream's registry
// strategies drop when it is off: for every resource kube-apiserver serves
// with a registry store, it fills an internal object with upstream's API
// fuzzers (fixed seeds), runs the store's PrepareForCreate with every
// changeable gate on, then with one gate (and the gates that depend on it)
// off, and records the fields set in the first result and dropped or
// changed in the second. It does the same with the update of each object's
// status, from a copy without status, through the status subresource
// (updates.go): status strategies drop gated status fields only there.
//
//	feature-inventory-gen [-out FILE] [-seeds N]
//
// It changes the process's default feature gate as it goes: it is a
// generator, not a server. hack/update-lifecycle-data.sh runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"k8s.io/klog/v2"

	// Installs the API groups kube-apiserver serves into legacyscheme.
	_ "k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
	// Registers the kube gates in the default feature gate.
	_ "k8s.io/kubernetes/pkg/features"
)

func main() {
	out := flag.String("out", "pkg/features/inventory/zz_generated.inventory.yaml", "file to write the inventory to, - for standard output")
	seeds := flag.Int("seeds", 30, "fuzzed objects per resource (seeds 0..N-1)")
	exhaustive := flag.Bool("exhaustive", false, "run PrepareForCreate with every gate off on every object, also where the strategy did not read the gate (slow; to check that skipping them changes nothing)")
	release := flag.String("upstream-version", "", "the kubernetes release the tree's series applies to, recorded as upstreamVersion (hack/update-lifecycle-data.sh passes patches/RELEASE)")
	apiDir := flag.String("api-dir", "staging/src/k8s.io/api", "the source of k8s.io/api, whose +featureGate= markers and +k8s:ifEnabled/ifDisabled tags the inventory is checked against")
	exceptions := flag.String("marker-exceptions", "pkg/features/inventory/marker-exceptions.yaml", "the marked fields the generator does not find, each with a reason; a marked field neither found nor listed there fails the run")
	corpus := flag.String("corpus", ".", "the kubernetes tree whose objects (round-trip fixtures, e2e manifests, integration tests' files, the lifecycle fixtures) the corpus differential validates")
	flag.BoolVar(&relationalOnly, "relational-only", false, "skip the status, kept-value, refused-value and stricter-value probes (to work on the relational probes: the output is no inventory)")
	flag.BoolVar(&verbose, "v", false, "report progress on standard error")
	flag.Parse()
	if *release == "" {
		fmt.Fprintln(os.Stderr, "feature-inventory-gen: -upstream-version is required")
		os.Exit(2)
	}
	// Building storage and setting GA gates log; none of it matters here.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)

	if err := run(*out, *release, *apiDir, *exceptions, *corpus, *seeds, *exhaustive); err != nil {
		fmt.Fprintln(os.Stderr, "feature-inventory-gen:", err)
		os.Exit(1)
	}
}

// verbose turns progress reports on.
var verbose bool

// relationalOnly skips the probes before the relational ones.
var relationalOnly bool

// start is when the generator started.
var start = time.Now()

func progress(format string, args ...interface{}) {
	if verbose {
		fmt.Fprintf(os.Stderr, "%6.1fs %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
}

// run builds the inventory and writes it to out. When the marker
// cross-check fails it writes the inventory all the same, then fails.
func run(out, release, apiDir, exceptions, corpus string, seeds int, exhaustive bool) error {
	inv, err := build(release, seeds, exhaustive, corpus)
	if err != nil {
		return err
	}
	progress("cross-checking against the markers of %s", apiDir)
	if inv.markers, err = crossCheckMarkers(inv, apiDir, exceptions); err != nil {
		return err
	}
	data := inv.render()
	if out == "-" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(out, data, 0o644)
	}
	if err != nil {
		return err
	}
	if c := inv.markers; c.failed() {
		var b strings.Builder
		for _, m := range c.unlisted {
			fmt.Fprintf(&b, "\n  marked, not found and not listed: %s", m)
		}
		for _, e := range c.stale {
			fmt.Fprintf(&b, "\n  listed, but found or no longer marked: %s", e)
		}
		return fmt.Errorf("the marker cross-check failed; list each field below in %s with a reason, or fix the generator:%s", exceptions, b.String())
	}
	return nil
}
