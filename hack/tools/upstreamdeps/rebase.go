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

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// rebase moves the project to another upstream release. Every check that can
// refuse runs before the first file is written: the working tree is clean,
// the version is a release, not older than the current one (unless
// allowDowngrade), and k8s.io/kubernetes and every staging module are served
// at it. Then it rewrites both go.mod files from upstream's go.mod and runs
// go mod tidy.
func rebase(root, version string, allowDowngrade bool) error {
	if out, err := exec.Command("git", "-C", root, "status", "--porcelain").Output(); err != nil {
		return fmt.Errorf("git status: %w", err)
	} else if len(strings.TrimSpace(string(out))) > 0 {
		return fmt.Errorf("the working tree has uncommitted changes; commit or stash them first:\n%s", out)
	}
	if !releaseRE.MatchString(version) {
		return fmt.Errorf("%q is not a Kubernetes release version (want v1.<minor>.<patch>)", version)
	}
	current, err := currentVersion(root)
	if err != nil {
		return err
	}
	if compareReleases(version, current) < 0 && !allowDowngrade {
		return fmt.Errorf("%s is older than the current %s; pass --allow-downgrade to go back", version, current)
	}
	fmt.Fprintf(os.Stderr, "+++ reading upstream's go.mod at %s\n", version)
	up, err := loadUpstream(version)
	if err != nil {
		return err
	}
	staging := up.stagingModules()
	fmt.Fprintf(os.Stderr, "+++ checking that %d staging modules are served at %s\n", len(staging), up.Staging[staging[0]])
	var wanted []string
	for _, s := range staging {
		wanted = append(wanted, s+"@"+up.Staging[s])
	}
	res, err := download(wanted...)
	if err != nil {
		return err
	}
	// A staging module that is not served is fatal when we build with it.
	// Upstream does not publish every sample module of every patch release;
	// one we never build gets no replace directive (a replacement of a module
	// outside the build list does nothing).
	graph, err := moduleGraph(root, nil)
	if err != nil {
		return err
	}
	inGraph := map[string]bool{}
	for _, m := range graph {
		inGraph[m.Path] = true
	}
	var missing []string
	unserved := map[string]bool{}
	for _, d := range res {
		if d.Error == "" {
			continue
		}
		if inGraph[d.Path] {
			missing = append(missing, fmt.Sprintf("%s@%s: %s", d.Path, d.Version, d.Error))
			continue
		}
		unserved[d.Path] = true
		fmt.Fprintf(os.Stderr, "    %s@%s is not served; we do not build it, so it gets no replace directive\n", d.Path, d.Version)
	}
	if len(missing) > 0 {
		return fmt.Errorf("not every staging module of %s that we build is served; nothing was changed:\n  %s", version, strings.Join(missing, "\n  "))
	}

	fmt.Fprintf(os.Stderr, "+++ rewriting go.mod files for %s (was %s)\n", version, current)
	rootGoMod := filepath.Join(root, "go.mod")
	rootMod, err := readModFile(rootGoMod)
	if err != nil {
		return err
	}
	edits := []string{"-require=" + kubernetesModule + "@" + version}
	edits = append(edits, requireEdits(rootMod, up)...)
	for _, s := range staging {
		if !unserved[s] {
			edits = append(edits, fmt.Sprintf("-replace=%s=%s@%s", s, s, up.Staging[s]))
		}
	}
	for _, r := range rootMod.Replace {
		// Drop module replacements of k8s.io staging modules upstream no
		// longer has or does not serve; keep local ones (our own k8s.io/features).
		_, staged := up.Staging[r.Old.Path]
		if (unserved[r.Old.Path] || !staged) && r.New.Version != "" && strings.HasPrefix(r.Old.Path, "k8s.io/") {
			edits = append(edits, "-dropreplace="+r.Old.Path)
		}
	}
	if err := goModEdit(rootGoMod, edits); err != nil {
		return err
	}
	featGoMod := filepath.Join(root, featuresDir, "go.mod")
	featMod, err := readModFile(featGoMod)
	if err != nil {
		return err
	}
	if err := goModEdit(featGoMod, requireEdits(featMod, up)); err != nil {
		return err
	}

	// k8s.io/features first: it is tidied on its own (a third party gets its
	// graph without our replace directives), then the root, which uses it.
	for _, dir := range []string{filepath.Join(root, featuresDir), root} {
		fmt.Fprintf(os.Stderr, "+++ go mod tidy in %s\n", dir)
		if _, err := goCmd(dir, []string{"GOFLAGS=-mod=mod"}, "mod", "tidy"); err != nil {
			return err
		}
	}
	return nil
}

// requireEdits sets every requirement of mf that upstream's go.mod names to
// upstream's version; staging modules to their published version.
func requireEdits(mf *modFile, up *upstream) []string {
	var edits []string
	for _, r := range mf.Require {
		if r.Path == kubernetesModule {
			continue
		}
		if want := up.expected(r.Path); want != "" && want != r.Version {
			edits = append(edits, "-require="+r.Path+"@"+want)
		}
	}
	// Modules our go.mod does not list yet but upstream's does are left to
	// go mod tidy: k8s.io/kubernetes' own requirements bring them in at
	// upstream's versions.
	sort.Strings(edits)
	return edits
}

// goModEdit applies edits to one go.mod file with the go command.
func goModEdit(path string, edits []string) error {
	if len(edits) == 0 {
		return nil
	}
	_, err := goCmd("", nil, append(append([]string{"mod", "edit"}, edits...), path)...)
	return err
}
