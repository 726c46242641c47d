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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testRelease = "v1.37.2"

// identity is the author of the test's commits.
var identity = []string{
	"GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=test@example.invalid", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
	"GIT_COMMITTER_NAME=Test Author", "GIT_COMMITTER_EMAIL=test@example.invalid", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
}

func write(t *testing.T, root, p, content string) {
	t.Helper()
	f := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitLine(dir, identity, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// newBase makes a tree holding only a small release commit, tagged, as
// materializeBase would (without the module proxy).
func newBase(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := initRepository(dir); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "pkg/upstream/upstream.go", "package upstream\n\nconst A = 1\n")
	write(t, dir, "cmd/tool/main.go", "package main\n\nfunc main() {}\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "kubernetes "+testRelease)
	run(t, dir, "tag", testRelease)
	return dir
}

// newRepository makes an empty repository of ours naming the release.
func newRepository(t *testing.T) *repository {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := initRepository(root); err != nil {
		t.Fatal(err)
	}
	write(t, root, "patches/RELEASE", testRelease+"\n")
	return &repository{root: root}
}

// TestExportThenMake writes a series made in a tree into a repository and
// makes a second tree from it: the same commits, byte for byte.
func TestExportThenMake(t *testing.T) {
	tree := newBase(t)
	write(t, tree, "pkg/ours/a.go", "package ours\n")
	write(t, tree, "pkg/ours/sub/b.go", "package sub\n")
	write(t, tree, "pkg/upstream/upstream.go", "package upstream\n\nconst A = 1\n\n// B is a hook.\nconst B = 2\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "-m", "ours: add the package\n\nWhy it is needed.")
	write(t, tree, "cmd/ours-gen/main.go", "package main\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "-m", "ours: add the generator")
	wantTree := run(t, tree, "rev-parse", "HEAD^{tree}")
	wantLog := run(t, tree, "log", "--format=%an <%ae> %ad%n%B", testRelease+"..HEAD")

	r := newRepository(t)
	if err := r.export(tree); err != nil {
		t.Fatalf("export: %v", err)
	}
	if got := read(t, r.root, "pkg/ours/sub/b.go"); got != "package sub\n" {
		t.Errorf("pkg/ours/sub/b.go in the repository: %q", got)
	}
	patches, _ := filepath.Glob(filepath.Join(r.root, "patches", "*"))
	var names []string
	for _, p := range patches {
		names = append(names, filepath.Base(p))
	}
	wantNames := []string{"0001-ours-add-the-package.files", "0001-ours-add-the-package.patch", "0002-ours-add-the-generator.files", "0002-ours-add-the-generator.patch", "RELEASE"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("patches/: %v, want %v", names, wantNames)
	}
	if got := read(t, r.root, "patches/0001-ours-add-the-package.files"); got != "pkg/ours/a.go\npkg/ours/sub/b.go\n" {
		t.Errorf("0001 .files: %q, want each file", got)
	}
	if got := read(t, r.root, "patches/0001-ours-add-the-package.patch"); !strings.Contains(got, "+const B = 2") || !strings.Contains(got, "Why it is needed.") || strings.Contains(got, "pkg/ours/a.go") {
		t.Errorf("0001 .patch should hold the message and the upstream diff only:\n%s", got)
	}

	second := newBase(t)
	if err := r.make(second, false); err != nil {
		t.Fatalf("make: %v", err)
	}
	if got := run(t, second, "rev-parse", "HEAD^{tree}"); got != wantTree {
		t.Errorf("made tree %s, want the exported tree's %s", got, wantTree)
	}
	if got := run(t, second, "log", "--format=%an <%ae> %ad%n%B", testRelease+"..HEAD"); got != wantLog {
		t.Errorf("made commits:\n%s\nwant:\n%s", got, wantLog)
	}
	// Again, and in a third tree: the same commits, nothing touched.
	head := run(t, second, "rev-parse", "HEAD")
	if err := r.make(second, false); err != nil {
		t.Fatalf("second make: %v", err)
	}
	if got := run(t, second, "rev-parse", "HEAD"); got != head {
		t.Errorf("second make moved HEAD from %s to %s", head, got)
	}
	third := newBase(t)
	if err := r.make(third, false); err != nil {
		t.Fatalf("make: %v", err)
	}
	if got := run(t, third, "rev-parse", "HEAD"); got != head {
		t.Errorf("another tree got %s, want the same commits (%s)", got, head)
	}
}

// TestMakeGuards checks the refusals that keep work from being lost.
func TestMakeGuards(t *testing.T) {
	tree := newBase(t)
	write(t, tree, "pkg/ours/a.go", "package ours\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "-m", "ours: add the package")
	r := newRepository(t)
	if err := r.export(tree); err != nil {
		t.Fatalf("export: %v", err)
	}

	// A commit made in the tree and not exported.
	write(t, tree, "pkg/upstream/upstream.go", "package upstream\n\nconst A = 2\n")
	run(t, tree, "commit", "-q", "-a", "-m", "upstream: change A")
	if err := r.make(tree, false); err == nil || !strings.Contains(err.Error(), "not in the repository") {
		t.Errorf("make over an unexported commit: %v, want a refusal", err)
	}

	// An edit in the repository the tree does not have: export would lose it.
	write(t, r.root, "pkg/ours/a.go", "package ours\n\n// edited in the repository\n")
	if err := r.export(tree); err == nil || !strings.Contains(err.Error(), "pkg/ours/a.go") {
		t.Errorf("export over a repository edit: %v, want a refusal naming the file", err)
	}

	// A later commit deleting a file of ours must be folded.
	write(t, r.root, "pkg/ours/a.go", "package ours\n")
	run(t, tree, "rm", "-q", "pkg/ours/a.go")
	run(t, tree, "commit", "-q", "-m", "ours: remove a")
	if err := r.export(tree); err == nil || !strings.Contains(err.Error(), "fold the deletion into that commit") {
		t.Errorf("export of a later deletion of a file of ours: %v, want a refusal", err)
	}
}

// TestLaterCommitChangesOurFile: a commit adds a type of ours and a later
// one adds a field to it (a concept's own fields, in its own commit). The
// repository holds the file as the last commit has it, the later change
// in that commit's .patch; make builds the same commits, the file as each
// commit had it; an edit made in the repository where a later change is
// makes make say so.
func TestLaterCommitChangesOurFile(t *testing.T) {
	tree := newBase(t)
	write(t, tree, "pkg/ours/types.go", "package ours\n\ntype T struct {\n\tA int\n}\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "-m", "ours: add the type")
	write(t, tree, "pkg/ours/types.go", "package ours\n\ntype T struct {\n\tA int\n\tB int\n}\n")
	write(t, tree, "pkg/ours/b.go", "package ours\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "-m", "ours: add B")
	wantLog := run(t, tree, "log", "--format=%T %s", testRelease+"..HEAD")

	r := newRepository(t)
	if err := r.export(tree); err != nil {
		t.Fatalf("export: %v", err)
	}
	if got := read(t, r.root, "pkg/ours/types.go"); !strings.Contains(got, "B int") {
		t.Errorf("the repository holds types.go as the first commit had it:\n%s", got)
	}
	if got := read(t, r.root, "patches/0002-ours-add-B.patch"); !strings.Contains(got, "+\tB int") {
		t.Errorf("0002 .patch should hold the change to types.go:\n%s", got)
	}
	if got := read(t, r.root, "patches/0002-ours-add-B.files"); got != "pkg/ours/b.go\n" {
		t.Errorf("0002 .files: %q", got)
	}
	second := newBase(t)
	if err := r.make(second, false); err != nil {
		t.Fatalf("make: %v", err)
	}
	if got := run(t, second, "log", "--format=%T %s", testRelease+"..HEAD"); got != wantLog {
		t.Errorf("made commits:\n%s\nwant:\n%s", got, wantLog)
	}
	if got := run(t, second, "show", "HEAD^:pkg/ours/types.go"); strings.Contains(got, "B int") {
		t.Errorf("the first commit's types.go holds the later field:\n%s", got)
	}

	write(t, r.root, "pkg/ours/types.go", "package ours\n\ntype T struct {\n\tA int\n\tC int\n}\n")
	third := newBase(t)
	if err := r.make(third, false); err == nil || !strings.Contains(err.Error(), "0002-ours-add-B.patch changes pkg/ours/types.go") {
		t.Errorf("make over a repository edit where a later patch changes the file: %v, want an error naming both", err)
	}
}

// TestGoBookkeepingIsNoEdit: a go command run in the tree adds checksums to
// go.work.sum; make and export go on as if the tree were clean, and make
// overwrites it. A real edit still stops make, and its message names it.
func TestGoBookkeepingIsNoEdit(t *testing.T) {
	tree := newBase(t)
	write(t, tree, "go.work.sum", "a v1.0.0 h1:x\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "--amend", "--no-edit")
	run(t, tree, "tag", "-f", testRelease)
	write(t, tree, "pkg/ours/a.go", "package ours\n")
	run(t, tree, "add", "-A")
	run(t, tree, "commit", "-q", "-m", "ours: add the package")
	r := newRepository(t)
	if err := r.export(tree); err != nil {
		t.Fatalf("export: %v", err)
	}

	write(t, tree, "go.work.sum", "a v1.0.0 h1:x\nb v1.0.0 h1:y\n")
	if err := r.make(tree, false); err != nil {
		t.Errorf("make after a go command added to go.work.sum: %v", err)
	}
	write(t, tree, "go.work.sum", "a v1.0.0 h1:x\nb v1.0.0 h1:y\n")
	if err := r.export(tree); err != nil {
		t.Errorf("export after a go command added to go.work.sum: %v", err)
	}

	// Removing a line is no go command's doing; nor is an upstream edit.
	write(t, tree, "go.work.sum", "")
	if err := r.make(tree, false); err == nil || !strings.Contains(err.Error(), "go.work.sum") {
		t.Errorf("make over an edited go.work.sum: %v, want a refusal naming it", err)
	}
	run(t, tree, "checkout", "-q", "--", "go.work.sum")
	write(t, tree, "pkg/upstream/upstream.go", "package upstream\n\nconst A = 3\n")
	if err := r.make(tree, false); err == nil || !strings.Contains(err.Error(), "pkg/upstream/upstream.go") {
		t.Errorf("make over an upstream edit: %v, want a refusal naming it", err)
	}
}

// TestAssign checks that every file of ours belongs to exactly one commit.
func TestAssign(t *testing.T) {
	r := newRepository(t)
	write(t, r.root, "patches/0001-a.patch", "")
	write(t, r.root, "patches/0001-a.files", "pkg/ours/\n")
	write(t, r.root, "patches/0002-b.patch", "")
	write(t, r.root, "patches/0002-b.files", "pkg/ours/gen/\npkg/ours/one.go\n")
	write(t, r.root, "pkg/ours/one.go", "package ours\n")
	write(t, r.root, "pkg/ours/two.go", "package ours\n")
	write(t, r.root, "pkg/ours/gen/gen.go", "package gen\n")
	specs, err := r.assign()
	if err != nil {
		t.Fatal(err)
	}
	if got := specs[0].files; !slices.Equal(got, []string{"pkg/ours/two.go"}) {
		t.Errorf("0001 gets %v", got)
	}
	if got := specs[1].files; !slices.Equal(got, []string{"pkg/ours/gen/gen.go", "pkg/ours/one.go"}) {
		t.Errorf("0002 gets %v (the closest entry wins)", got)
	}

	write(t, r.root, "cmd/stray/main.go", "package main\n")
	if _, err := r.assign(); err == nil || !strings.Contains(err.Error(), "cmd/stray/main.go") {
		t.Errorf("a file in no commit: %v", err)
	}
	os.RemoveAll(filepath.Join(r.root, "cmd"))
	write(t, r.root, "patches/0002-b.files", "pkg/ours/gen/\npkg/ours/one.go\npkg/ours/gone.go\n")
	if _, err := r.assign(); err == nil || !strings.Contains(err.Error(), "pkg/ours/gone.go") {
		t.Errorf("an entry naming no file: %v", err)
	}
}

func TestIsRelease(t *testing.T) {
	for s, want := range map[string]bool{"v1.37.2": true, "v1.37.0": true, "v1.37": false, "1.37.2": false, "v1.37.2-rc.1": false, "v1.x.2": false} {
		if got := isRelease(s); got != want {
			t.Errorf("isRelease(%q) = %v, want %v", s, got, want)
		}
	}
}
