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
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// make brings the tree in dir to the release plus the series: it builds the
// series' commits on the release commit (materialized once), with git's
// plumbing and a private index, so nothing in the working copy moves until
// the result is known; then it checks the result out, which rewrites only the
// files that differ. Commits carry their patch's author and date, also as
// committer, so the same repository gives the same commits on any machine:
// when the tip is already checked out nothing is touched.
func (r *repository) make(dir string, force bool) error {
	release, err := r.release()
	if err != nil {
		return err
	}
	specs, err := r.assign()
	if err != nil {
		return err
	}
	if err := ensureBase(release, dir); err != nil {
		return err
	}
	base, err := gitLine(dir, nil, nil, "rev-parse", "refs/tags/"+release+"^{commit}")
	if err != nil {
		return err
	}
	upstream, err := treeFiles(dir, base)
	if err != nil {
		return err
	}

	index := filepath.Join(dir, ".git", "tree-series-index")
	defer os.Remove(index)
	env := []string{"GIT_INDEX_FILE=" + index}
	tmp, err := os.MkdirTemp("", "tree-series")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	headers := make([]patchHeader, len(specs))
	for i, s := range specs {
		for _, f := range s.files {
			if upstream[f] {
				return fmt.Errorf("%s (in %s.files) is a file of upstream's: change it in the tree and export the commit", f, s.name)
			}
		}
		if headers[i], err = readPatch(dir, filepath.Join(r.patchesDir(), s.name+".patch"), tmp); err != nil {
			return fmt.Errorf("%s.patch: %w", s.name, err)
		}
	}
	added, err := addedStates(dir, r.root, specs, headers)
	if err != nil {
		return err
	}

	parent := base
	for i, s := range specs {
		hdr := headers[i]
		if _, err := git(dir, env, nil, "read-tree", parent); err != nil {
			return err
		}
		if err := addFiles(dir, env, r.root, s.files, added); err != nil {
			return err
		}
		if hdr.diff != "" {
			if _, err := git(dir, env, nil, "apply", "--cached", "--whitespace=nowarn", hdr.diff); err != nil {
				return fmt.Errorf("%s.patch does not apply: %w", s.name, err)
			}
		}
		tree, err := gitLine(dir, env, nil, "write-tree")
		if err != nil {
			return err
		}
		cenv := append(slices.Clone(baseIdentity),
			"GIT_AUTHOR_NAME="+hdr.author, "GIT_AUTHOR_EMAIL="+hdr.email, "GIT_AUTHOR_DATE="+hdr.date,
			"GIT_COMMITTER_DATE="+hdr.date)
		if parent, err = gitLine(dir, cenv, []byte(hdr.message), "commit-tree", tree, "-p", parent); err != nil {
			return err
		}
	}

	if err := excludeByproducts(dir); err != nil {
		return err
	}
	head, _ := gitLine(dir, nil, nil, "rev-parse", "-q", "--verify", "HEAD")
	changes, err := edits(dir)
	if err != nil {
		return err
	}
	status := strings.Join(changes, "\n")
	if head == parent && status == "" {
		return nil
	}
	// Commits made in the tree since the last make or export are not in the
	// repository yet: moving the branch would drop them.
	made, _ := gitLine(dir, nil, nil, "rev-parse", "-q", "--verify", madeRef)
	if head != parent && head != made && head != base && !force {
		return fmt.Errorf("%s has commits that are not in the repository (HEAD %s); take them back with hack/tree.sh export (make export), or drop them with FORCE=1", dir, short(head))
	}
	if status != "" && !force && !sameAsCommit(dir, parent) {
		return fmt.Errorf("%s has changes that are not in the repository; take them back with hack/tree.sh export (make export), or drop them with FORCE=1:\n%s", dir, status)
	}
	if _, err := git(dir, nil, nil, "checkout", "-q", "-f", "-B", branch, parent); err != nil {
		return err
	}
	if _, err := git(dir, nil, nil, "update-ref", madeRef, parent); err != nil {
		return err
	}
	if force {
		if _, err := git(dir, nil, nil, "clean", "-q", "-f", "-d"); err != nil {
			return err
		}
	}
	n, _ := gitLine(dir, nil, nil, "rev-list", "--count", base+".."+parent)
	fmt.Fprintf(os.Stderr, "tree: %s is %s plus %s commits\n", dir, release, n)
	return nil
}

// testByproducts are files upstream's tests write into the tree, as they do
// in a kubernetes checkout: certificates kube-apiserver's test server caches
// for service IPs that have none committed. They are no edit of anyone's:
// git ignores them in the tree (.git/info/exclude), so they neither block
// make nor count as generated changes.
var testByproducts = []string{
	"/cmd/kube-apiserver/app/testing/testdata/*.crt",
	"/cmd/kube-apiserver/app/testing/testdata/*.key",
}

// excludeByproducts writes testByproducts to dir's .git/info/exclude.
func excludeByproducts(dir string) error {
	content := "# Written by hack/tools/tree: files upstream's tests write.\n" + strings.Join(testByproducts, "\n") + "\n"
	return os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte(content), 0o644)
}

// sameAsCommit reports whether every uncommitted change in dir's working
// copy holds what commit has (as after an export, whose edits the new
// commits hold): then checking commit out loses nothing.
func sameAsCommit(dir, commit string) bool {
	changes, err := edits(dir)
	if err != nil {
		return false
	}
	for _, e := range changes {
		p := e[3:]
		want, err := gitLine(dir, nil, nil, "rev-parse", "-q", "--verify", commit+":"+p)
		if err != nil {
			return false
		}
		got, err := gitLine(dir, nil, nil, "hash-object", "--no-filters", "--", p)
		if err != nil || got != want {
			return false
		}
	}
	return true
}

// edits returns the uncommitted changes of dir's working copy as git status
// --porcelain entries ("XY path"), untracked files included, but not the go
// command's own bookkeeping: a go.work.sum or go.sum that only gained lines,
// the checksums any go command run in the tree records (go test, go list
// -m all). Those are no edit of anyone's: make goes on over them and export
// leaves them.
func edits(dir string) ([]string, error) {
	status, err := git(dir, nil, nil, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range strings.Split(string(status), "\x00") {
		if len(e) < 4 {
			continue
		}
		if bookkeeping(dir, e[:2], e[3:]) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// bookkeeping reports whether the change code of path p in dir is the go
// command's: go.work.sum or a go.sum, modified by added lines only.
func bookkeeping(dir, code, p string) bool {
	if code != " M" || (path.Base(p) != "go.work.sum" && path.Base(p) != "go.sum") {
		return false
	}
	numstat, err := gitLine(dir, nil, nil, "diff", "--numstat", "--", p)
	fields := strings.Fields(numstat)
	return err == nil && len(fields) == 3 && fields[0] != "0" && fields[1] == "0"
}

// madeRef records the commit the tree last got from the repository (make)
// or gave to it (export).
const madeRef = "refs/featureflags/made"

// ensureBase materializes the release in dir unless dir already holds it.
func ensureBase(release, dir string) error {
	if _, err := gitLine(dir, nil, nil, "rev-parse", "-q", "--verify", "refs/tags/"+release); err == nil {
		return nil
	}
	if _, err := os.Stat(dir); err == nil {
		fmt.Fprintf(os.Stderr, "tree: %s does not hold %s; materializing it anew\n", dir, release)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "tree: materializing kubernetes %s from the Go module proxy into %s\n", release, dir)
	return materializeBase(release, dir)
}

// treeFiles returns the set of paths of commit's tree.
func treeFiles(dir, commit string) (map[string]bool, error) {
	out, err := git(dir, nil, nil, "ls-tree", "-r", "-z", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files[f] = true
		}
	}
	return files, nil
}

// addedStates returns, for each file of ours that a later commit of the
// series changes, the blob of the file as the commit adding it has it: the
// repository holds the file as the series' last commit has it, so the
// later commits' changes to it are taken back, newest first, in a scratch
// index. Files no later commit changes are not in the map.
func addedStates(dir, root string, specs []*commitSpec, headers []patchHeader) (map[string]string, error) {
	addedIn := map[string]int{}
	for i, s := range specs {
		for _, f := range s.files {
			addedIn[f] = i
		}
	}
	changedBy := make([][]string, len(specs)) // per commit, files of ours it changes
	var changed []string
	for i, h := range headers {
		if h.diff == "" {
			continue
		}
		paths, err := diffPaths(h.diff)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if k, ok := addedIn[p]; ok && k < i {
				changedBy[i] = append(changedBy[i], p)
				changed = append(changed, p)
			}
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	index := filepath.Join(dir, ".git", "tree-added-index")
	defer os.Remove(index)
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := git(dir, env, nil, "read-tree", "--empty"); err != nil {
		return nil, err
	}
	if err := addFiles(dir, env, root, changed, nil); err != nil {
		return nil, err
	}
	for i := len(specs) - 1; i >= 0; i-- {
		if len(changedBy[i]) == 0 {
			continue
		}
		args := []string{"apply", "--cached", "-R", "--whitespace=nowarn"}
		for _, p := range changedBy[i] {
			args = append(args, "--include="+p)
		}
		if _, err := git(dir, env, nil, append(args, headers[i].diff)...); err != nil {
			return nil, fmt.Errorf("%s.patch changes %s, which the repository has changed where the patch does; make the change in the tree (hack/tree.sh export takes it back): %w",
				specs[i].name, strings.Join(changedBy[i], ", "), err)
		}
	}
	out, err := git(dir, env, nil, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	blobs := map[string]string{}
	for _, e := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if fields := strings.Fields(meta); ok && len(fields) == 3 {
			blobs[p] = fields[1]
		}
	}
	return blobs, nil
}

// diffPaths returns the paths a git diff file changes.
func diffPaths(diff string) ([]string, error) {
	b, err := os.ReadFile(diff)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "diff --git a/"); ok {
			if _, p, ok := strings.Cut(rest, " b/"); ok {
				paths = append(paths, p)
			}
		}
	}
	return paths, nil
}

// addFiles writes the repository's files into the object store and the
// index; a file with a blob in states gets that blob instead.
func addFiles(dir string, env []string, root string, files []string, states map[string]string) error {
	if len(files) == 0 {
		return nil
	}
	var paths strings.Builder
	for _, f := range files {
		paths.WriteString(filepath.Join(root, f) + "\n")
	}
	out, err := git(dir, nil, []byte(paths.String()), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return err
	}
	hashes := strings.Fields(string(out))
	if len(hashes) != len(files) {
		return fmt.Errorf("hash-object gave %d hashes for %d files", len(hashes), len(files))
	}
	for i, f := range files {
		if blob, ok := states[f]; ok {
			hashes[i] = blob
		}
	}
	var info strings.Builder
	for i, f := range files {
		st, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			return err
		}
		mode := "100644"
		if st.Mode()&0o111 != 0 {
			mode = "100755"
		}
		fmt.Fprintf(&info, "%s %s\t%s\n", mode, hashes[i], f)
	}
	_, err = git(dir, env, []byte(info.String()), "update-index", "--add", "--index-info")
	return err
}

// patchHeader is what a patch file says of its commit.
type patchHeader struct {
	author, email, date string
	message             string
	// diff is the file holding the patch's diff, empty when it has none.
	diff string
}

var mailinfoLine = regexp.MustCompile(`(?m)^(Author|Email|Subject|Date): (.*)$`)

// readPatch splits a patch file (git format-patch -k) into its header and
// diff with git mailinfo; the diff goes to a file in tmp.
func readPatch(dir, patch, tmp string) (patchHeader, error) {
	b, err := os.ReadFile(patch)
	if err != nil {
		return patchHeader{}, err
	}
	msgFile := filepath.Join(tmp, "msg")
	diffFile := filepath.Join(tmp, filepath.Base(patch)+".diff")
	info, err := git(dir, nil, b, "mailinfo", "-k", "-u", msgFile, diffFile)
	if err != nil {
		return patchHeader{}, err
	}
	fields := map[string]string{}
	for _, m := range mailinfoLine.FindAllStringSubmatch(string(info), -1) {
		fields[m[1]] = m[2]
	}
	for _, k := range []string{"Author", "Email", "Subject", "Date"} {
		if fields[k] == "" {
			return patchHeader{}, fmt.Errorf("no %s in its header", k)
		}
	}
	body, err := os.ReadFile(msgFile)
	if err != nil {
		return patchHeader{}, err
	}
	msg := fields["Subject"] + "\n"
	if b := strings.TrimSpace(string(body)); b != "" {
		msg += "\n" + b + "\n"
	}
	h := patchHeader{author: fields["Author"], email: fields["Email"], date: fields["Date"], message: msg}
	if st, err := os.Stat(diffFile); err == nil && st.Size() > 0 {
		h.diff = diffFile
	}
	return h, nil
}
