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
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// export writes the tree's series back into the repository. For each commit
// from the release to HEAD: the files it adds that upstream does not have
// are ours, copied to their paths here as HEAD has them and listed, one by
// one, in its .files; its changes to files that exist before it (upstream's,
// or ours that an earlier commit added), with its message, become its
// .patch. A later commit may so change a file of ours (a concept's fields
// added to a type another commit introduced); make recovers the file as
// the adding commit had it by taking the later changes back. A commit that
// deletes a file of ours an earlier commit added is refused: fold the
// deletion into that commit. Uncommitted changes to files of ours are taken
// as they are in the working copy; any other uncommitted change is refused.
func (r *repository) export(dir string) error {
	release, err := r.release()
	if err != nil {
		return err
	}
	base, err := gitLine(dir, nil, nil, "rev-parse", "refs/tags/"+release+"^{commit}")
	if err != nil {
		return fmt.Errorf("%s holds no %s: run make tree first: %w", dir, release, err)
	}
	if _, err := git(dir, nil, nil, "merge-base", "--is-ancestor", base, "HEAD"); err != nil {
		return fmt.Errorf("HEAD of %s does not descend from %s", dir, release)
	}
	upstream, err := treeFiles(dir, base)
	if err != nil {
		return err
	}
	if err := r.unchangedSinceMake(dir); err != nil {
		return err
	}
	out, err := gitLine(dir, nil, nil, "rev-list", "--reverse", base+"..HEAD")
	if err != nil {
		return err
	}
	commits := strings.Fields(out)
	series, addedBy, err := exportCommits(dir, release, commits, upstream)
	if err != nil {
		return err
	}
	if err := takeEdits(dir, addedBy); err != nil {
		return err
	}
	// Our files at HEAD (or in the working copy), by commit.
	byCommit := make([][]string, len(commits))
	for p, i := range addedBy {
		byCommit[i] = append(byCommit[i], p)
	}
	ours := mapKeysInt(addedBy)
	slices.Sort(ours)
	for _, p := range ours {
		// The working copy holds HEAD's content, or the edits takeEdits
		// took.
		if err := copyFile(filepath.Join(dir, p), filepath.Join(r.root, p)); err != nil {
			return err
		}
	}
	// Files of ours the tree no longer has.
	current, err := r.ourFiles()
	if err != nil {
		return err
	}
	for _, p := range current {
		if _, ok := addedBy[p]; !ok {
			if err := os.Remove(filepath.Join(r.root, p)); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "tree: removed %s (not in the tree)\n", p)
		}
	}

	if err := r.writePatches(series, byCommit); err != nil {
		return err
	}
	if _, err := git(dir, nil, nil, "update-ref", madeRef, "HEAD"); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "tree: exported %d commits (%d files of ours) into %s\n", len(series), len(ours), r.root)
	return nil
}

// exported is one commit of the series as export writes it: its patch's
// name and content, and the files it changes that exist before it.
type exported struct {
	name     string
	patch    []byte
	upstream []string
}

// exportCommits returns commits (the series, from the release on) as
// patches, and, for each file of ours, the index of the commit adding it.
// upstream holds the release's files.
func exportCommits(dir, release string, commits []string, upstream map[string]bool) (series []exported, addedBy map[string]int, err error) {
	addedBy = map[string]int{}
	for i, c := range commits {
		changes, err := git(dir, nil, nil, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--name-status", c+"^", c)
		if err != nil {
			return nil, nil, err
		}
		fields := strings.Split(strings.TrimSuffix(string(changes), "\x00"), "\x00")
		var ups []string
		for j := 0; j+1 < len(fields); j += 2 {
			status, p := fields[j], fields[j+1]
			switch {
			case upstream[p]:
				ups = append(ups, p)
			case status == "A" && isTreePath(p):
				if prev, ok := addedBy[p]; ok {
					return nil, nil, fmt.Errorf("%s is added by %s and again by %s", p, short(commits[prev]), short(c))
				}
				addedBy[p] = i
			case !isTreePath(p):
				return nil, nil, fmt.Errorf("commit %s changes %s, which is neither upstream's nor under %s", short(c), p, strings.Join(treeDirs, "/, "))
			default:
				if prev, ok := addedBy[p]; ok && status == "D" {
					return nil, nil, fmt.Errorf("commit %s deletes %s, which commit %s added: fold the deletion into that commit (git commit --fixup=%s; git rebase -i --autosquash %s)", short(c), p, short(commits[prev]), short(commits[prev]), release)
				}
				// A change to a file of ours an earlier commit added, or
				// a file the series itself moved or deleted.
				ups = append(ups, p)
			}
		}
		name, err := patchName(dir, c, i+1)
		if err != nil {
			return nil, nil, err
		}
		patch, err := formatPatch(dir, c, i+1, ups)
		if err != nil {
			return nil, nil, err
		}
		series = append(series, exported{name: name, patch: patch, upstream: ups})
	}
	return series, addedBy, nil
}

// takeEdits refuses uncommitted changes in dir but to files of ours
// (addedBy), which export takes from the working copy as they are.
func takeEdits(dir string, addedBy map[string]int) error {
	changes, err := edits(dir)
	if err != nil {
		return err
	}
	var refused []string
	for _, e := range changes {
		code, p := e[:2], e[3:]
		if _, ours := addedBy[p]; ours && (code == " M" || code == "M " || code == "MM") {
			continue
		}
		refused = append(refused, code+" "+p)
	}
	if len(refused) > 0 {
		return fmt.Errorf("uncommitted changes in %s that belong to no commit yet; commit them (git commit --fixup=<commit> for a change to an upstream file) and export again:\n  %s", dir, strings.Join(refused, "\n  "))
	}
	return nil
}

// writePatches replaces patches/ with series, and the files of ours each
// commit adds (byCommit, by index) in its .files.
func (r *repository) writePatches(series []exported, byCommit [][]string) error {
	old, _ := filepath.Glob(filepath.Join(r.patchesDir(), "[0-9][0-9][0-9][0-9]-*.*"))
	for _, f := range old {
		if strings.HasSuffix(f, ".patch") || strings.HasSuffix(f, ".files") {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for i, s := range series {
		if err := os.WriteFile(filepath.Join(r.patchesDir(), s.name+".patch"), s.patch, 0o644); err != nil {
			return err
		}
		if len(byCommit[i]) == 0 {
			continue
		}
		entries := slices.Sorted(slices.Values(byCommit[i]))
		if err := os.WriteFile(filepath.Join(r.patchesDir(), s.name+".files"), []byte(strings.Join(entries, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// unchangedSinceMake refuses an export that would overwrite edits made in
// the repository since the tree was last made from it (or exported to it):
// every file of ours must hold what the tree had then.
func (r *repository) unchangedSinceMake(dir string) error {
	made, err := gitLine(dir, nil, nil, "rev-parse", "-q", "--verify", madeRef)
	if err != nil {
		return nil // a tree that was never made by this tool: nothing to compare
	}
	files, err := r.ourFiles()
	if err != nil {
		return err
	}
	listing, err := git(dir, nil, nil, "ls-tree", "-r", "-z", made)
	if err != nil {
		return err
	}
	known := map[string]string{} // path -> blob
	for _, e := range strings.Split(string(listing), "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		if fields := strings.Fields(meta); ok && len(fields) == 3 {
			known[path] = fields[2]
		}
	}
	var paths strings.Builder
	for _, f := range files {
		paths.WriteString(filepath.Join(r.root, f) + "\n")
	}
	out, err := git(dir, nil, []byte(paths.String()), "hash-object", "--no-filters", "--stdin-paths")
	if err != nil {
		return err
	}
	hashes := strings.Fields(string(out))
	var changed []string
	for i, f := range files {
		switch want, ok := known[f]; {
		case !ok:
			changed = append(changed, f+" (new)")
		case want != hashes[i]:
			changed = append(changed, f)
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("the repository has edits the tree does not (an export would overwrite them); make the tree first (hack/tree.sh make):\n  %s", strings.Join(changed, "\n  "))
	}
	return nil
}

func isTreePath(p string) bool {
	top, _, _ := strings.Cut(p, "/")
	return slices.Contains(treeDirs, top)
}

func short(c string) string { return c[:min(12, len(c))] }

// patchName is the file name git format-patch gives commit c as the n-th
// patch, without .patch.
func patchName(dir, c string, n int) (string, error) {
	tmp, err := os.MkdirTemp("", "tree-name")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	name, err := gitLine(dir, nil, nil, "format-patch", "-1", "-k", "--start-number", strconv.Itoa(n), "-o", tmp, c)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(filepath.Base(name), ".patch"), nil
}

// formatPatch is commit c as git format-patch -k writes it, with only the
// changes to paths; with no paths, the header alone.
func formatPatch(dir, c string, n int, paths []string) ([]byte, error) {
	if len(paths) > 0 {
		args := append([]string{"format-patch", "-1", "-k", "--zero-commit", "--no-signature", "--diff-algorithm=histogram", "--stdout", "--start-number", strconv.Itoa(n), c, "--"}, paths...)
		return git(dir, nil, nil, args...)
	}
	return git(dir, nil, nil, "log", "-1", "--format=From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001%nFrom: %an <%ae>%nDate: %aD%nSubject: %s%n%n%b", c)
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm())
}

func mapKeysInt(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
