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

// Command tree assembles the kubernetes tree this repository is a patch set
// to, and takes edits made in that tree back into the repository.
//
//	tree make       _output/tree: the release from the Go module proxy as one
//	                commit tagged with it, then one commit per patches/*.patch,
//	                each adding the files of ours its .files names
//	tree export     the tree's commits back into the repository: our files to
//	                their paths, changes to upstream files to patches/
//	tree check      every file of ours belongs to exactly one commit
//	tree base DIR   only the release commit, in DIR (a new directory)
//
// The release is the one line of patches/RELEASE. See patches/README.md.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// treeDirs are the top-level directories of the repository whose files are
// ours at their in-tree paths; everything else (hack/, docs/, patches/, ...)
// is the repository's own and never enters the tree.
var treeDirs = []string{"api", "cmd", "pkg", "plugin", "staging", "test"}

// branch is the tree's branch holding the series.
const branch = "kep-3920"

func main() {
	repo := flag.String("repo", ".", "the repository's root")
	out := flag.String("tree", "", "the tree (default <repo>/_output/tree)")
	force := flag.Bool("force", false, "make: replace uncommitted changes in the tree")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: tree [flags] make|export|check|base DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	root, err := filepath.Abs(*repo)
	if err != nil {
		fatal(err)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(root, "_output", "tree")
	}
	r := &repository{root: root}
	switch flag.Arg(0) {
	case "make":
		err = r.make(dir, *force)
	case "export":
		err = r.export(dir)
	case "check":
		_, err = r.assign()
	case "base":
		if flag.NArg() != 2 {
			flag.Usage()
			os.Exit(2)
		}
		var release string
		if release, err = r.release(); err == nil {
			err = materializeBase(release, flag.Arg(1))
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "tree:", err)
	os.Exit(1)
}

// repository is this repository: our files, patches/ and the release.
type repository struct {
	root string
}

func (r *repository) patchesDir() string { return filepath.Join(r.root, "patches") }

// release returns the release the series applies to (patches/RELEASE).
func (r *repository) release() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.patchesDir(), "RELEASE"))
	if err != nil {
		return "", err
	}
	release := strings.TrimSpace(string(b))
	if !isRelease(release) {
		return "", fmt.Errorf("patches/RELEASE: %q is not a release (v1.<minor>.<patch>)", release)
	}
	return release, nil
}

// commitSpec is one commit of the series: patches/<name>.patch (message and
// changes to upstream files) and patches/<name>.files (our files it adds).
type commitSpec struct {
	name    string
	entries []string
	files   []string
}

// specs reads the series in order.
func (r *repository) specs() ([]*commitSpec, error) {
	patches, err := filepath.Glob(filepath.Join(r.patchesDir(), "[0-9][0-9][0-9][0-9]-*.patch"))
	if err != nil {
		return nil, err
	}
	slices.Sort(patches)
	var specs []*commitSpec
	for _, p := range patches {
		name := strings.TrimSuffix(filepath.Base(p), ".patch")
		spec := &commitSpec{name: name}
		b, err := os.ReadFile(filepath.Join(r.patchesDir(), name+".files"))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				spec.entries = append(spec.entries, line)
			}
		}
		specs = append(specs, spec)
	}
	files, _ := filepath.Glob(filepath.Join(r.patchesDir(), "*.files"))
	for _, f := range files {
		if _, err := os.Stat(strings.TrimSuffix(f, ".files") + ".patch"); err != nil {
			return nil, fmt.Errorf("%s has no .patch beside it", f)
		}
	}
	return specs, nil
}

// ourFiles lists the repository's files under treeDirs, as paths relative
// to the root, sorted: tracked and untracked ones that are not ignored.
func (r *repository) ourFiles() ([]string, error) {
	args := append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, treeDirs...)
	outb, err := git(r.root, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(string(outb), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(r.root, f)); err != nil {
			continue // deleted, not yet committed
		}
		files = append(files, f)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// assign gives each file of ours to the commit whose .files names it or its
// closest directory; every file must belong to one commit and every entry
// must name a file.
func (r *repository) assign() ([]*commitSpec, error) {
	specs, err := r.specs()
	if err != nil {
		return nil, err
	}
	files, err := r.ourFiles()
	if err != nil {
		return nil, err
	}
	owner := map[string]*commitSpec{} // entry -> spec
	for _, s := range specs {
		for _, e := range s.entries {
			if o, ok := owner[e]; ok {
				return nil, fmt.Errorf("%s is in %s.files and %s.files", e, o.name, s.name)
			}
			owner[e] = s
		}
	}
	used := map[string]bool{}
	var unassigned []string
	for _, f := range files {
		var best string
		for e := range owner {
			if (e == f || strings.HasSuffix(e, "/") && strings.HasPrefix(f, e)) && len(e) > len(best) {
				best = e
			}
		}
		if best == "" {
			unassigned = append(unassigned, f)
			continue
		}
		used[best] = true
		owner[best].files = append(owner[best].files, f)
	}
	if len(unassigned) > 0 {
		return nil, fmt.Errorf("not in any commit of the series (name them, or a directory of theirs, in a patches/*.files):\n  %s", strings.Join(unassigned, "\n  "))
	}
	var stale []string
	for e, s := range owner {
		if !used[e] {
			stale = append(stale, s.name+".files: "+e)
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		return nil, fmt.Errorf("entries that name no file:\n  %s", strings.Join(stale, "\n  "))
	}
	return specs, nil
}

// git runs git in dir with extra environment and stdin, and returns stdout.
func git(dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

func gitLine(dir string, env []string, stdin []byte, args ...string) (string, error) {
	b, err := git(dir, env, stdin, args...)
	return strings.TrimSpace(string(b)), err
}

// isRelease reports whether s is v<major>.<minor>.<patch>.
func isRelease(s string) bool {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if !strings.HasPrefix(s, "v") || len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// goModDownload downloads module@version pairs from the module proxy and
// returns what go mod download -json says of each, by path.
func goModDownload(mods ...string) (map[string]moduleInfo, error) {
	tmp, err := os.MkdirTemp("", "tree-download")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, mods...)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// go mod download exits 1 when one module fails; each says why in its JSON.
	runErr := cmd.Run()
	infos := map[string]moduleInfo{}
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var m moduleInfo
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("go mod download: %v (%v)\n%s", err, runErr, stderr.String())
		}
		infos[m.Path] = m
	}
	if len(infos) != len(mods) {
		return nil, fmt.Errorf("go mod download %s: %v\n%s", strings.Join(mods, " "), runErr, stderr.String())
	}
	return infos, nil
}

// moduleInfo is what go mod download -json prints of a module.
type moduleInfo struct {
	Path, Version, Zip, Info, Error string
}
