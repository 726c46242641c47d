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
	"archive/zip"
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// baseIdentity is the author and committer of the release commit (and the
// committer of every commit of the series), so that the tree's commits are
// the same on every machine and every day.
var baseIdentity = []string{
	"GIT_AUTHOR_NAME=featureflags tree", "GIT_AUTHOR_EMAIL=tree@featureflags.invalid",
	"GIT_COMMITTER_NAME=featureflags tree", "GIT_COMMITTER_EMAIL=tree@featureflags.invalid",
}

var stagingUse = regexp.MustCompile(`(?m)^\s*\./staging/src/k8s\.io/([a-z0-9-]+)\s*$`)

// materializeBase writes, in dir (which must not exist), a git repository
// holding kubernetes at release as one commit tagged release: the
// k8s.io/kubernetes module at the root and every staging module its go.work
// uses, at v0.<minor>.<patch>, at staging/src/k8s.io/<name>, all from the Go
// module proxy. Staging modules the proxy does not publish (sample-*) are
// left out of go.work; any other failure is an error.
//
// Module zips keep no file modes: a file that starts with "#!" gets mode
// 0755, every other 0644. Bytes are stored as they are (no end-of-line
// conversion).
func materializeBase(release, dir string) error {
	if !isRelease(release) {
		return fmt.Errorf("%q is not a release", release)
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists", dir)
	}
	infos, err := goModDownload("k8s.io/kubernetes@" + release)
	if err != nil {
		return err
	}
	kube := infos["k8s.io/kubernetes"]
	if kube.Error != "" {
		return fmt.Errorf("k8s.io/kubernetes@%s: %s", release, kube.Error)
	}
	tmp := dir + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := unzipModule(kube.Zip, "k8s.io/kubernetes@"+release, tmp); err != nil {
		return err
	}

	work, err := os.ReadFile(filepath.Join(tmp, "go.work"))
	if err != nil {
		return err
	}
	stagingVersion := "v0." + strings.SplitN(strings.TrimPrefix(release, "v"), ".", 2)[1]
	var mods []string
	for _, m := range stagingUse.FindAllStringSubmatch(string(work), -1) {
		mods = append(mods, "k8s.io/"+m[1]+"@"+stagingVersion)
	}
	staging, err := goModDownload(mods...)
	if err != nil {
		return err
	}
	var dropped []string
	names := mapKeys(staging)
	slices.Sort(names)
	for _, name := range names {
		m := staging[name]
		short := strings.TrimPrefix(name, "k8s.io/")
		if m.Error != "" {
			if !strings.HasPrefix(short, "sample-") {
				return fmt.Errorf("%s@%s: %s", name, stagingVersion, m.Error)
			}
			dropped = append(dropped, short)
			continue
		}
		if err := unzipModule(m.Zip, name+"@"+stagingVersion, filepath.Join(tmp, "staging", "src", "k8s.io", short)); err != nil {
			return err
		}
	}
	if len(dropped) > 0 {
		var kept []string
		for _, line := range strings.SplitAfter(string(work), "\n") {
			if m := stagingUse.FindStringSubmatch(line); m != nil && slices.Contains(dropped, m[1]) {
				continue
			}
			kept = append(kept, line)
		}
		if err := os.WriteFile(filepath.Join(tmp, "go.work"), []byte(strings.Join(kept, "")), 0o644); err != nil {
			return err
		}
	}

	// The commit's date is the release's, as the proxy records it.
	var info struct{ Time string }
	b, err := os.ReadFile(kube.Info)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &info); err != nil || info.Time == "" {
		return fmt.Errorf("%s: no release time (%v)", kube.Info, err)
	}
	if err := initRepository(tmp); err != nil {
		return err
	}
	if _, err := git(tmp, nil, nil, "add", "--all", "--force", "."); err != nil {
		return err
	}
	tree, err := gitLine(tmp, nil, nil, "write-tree")
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("Kubernetes %s from the Go module proxy\n\n"+
		"k8s.io/kubernetes@%s, and each staging module its go.work uses at\n"+
		"%s at staging/src/k8s.io/<name>. Module zips keep no file modes:\n"+
		"files that start with #! are executable.\n", release, release, stagingVersion)
	if len(dropped) > 0 {
		msg += fmt.Sprintf("\nNot published on the module proxy, so left out of go.work: %s.\n", strings.Join(dropped, ", "))
	}
	env := append(slices.Clone(baseIdentity), "GIT_AUTHOR_DATE="+info.Time, "GIT_COMMITTER_DATE="+info.Time)
	commit, err := gitLine(tmp, env, []byte(msg), "commit-tree", tree)
	if err != nil {
		return err
	}
	if _, err := git(tmp, nil, nil, "update-ref", "refs/heads/"+branch, commit); err != nil {
		return err
	}
	if _, err := git(tmp, nil, nil, "tag", release, commit); err != nil {
		return err
	}
	if _, err := git(tmp, nil, nil, "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return err
	}
	if _, err := git(tmp, nil, nil, "reset", "-q"); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// initRepository makes dir a git repository that stores bytes as they are.
func initRepository(dir string) error {
	if _, err := git(dir, nil, nil, "init", "-q", "-b", branch); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"core.autocrlf", "false"}, {"core.safecrlf", "false"}, {"gc.auto", "0"}} {
		if _, err := git(dir, nil, nil, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	// kubernetes' .gitattributes asks for end-of-line conversion; the
	// published modules hold some files with CRLF, kept as they are.
	return os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), []byte("* -text\n"), 0o644)
}

// unzipModule extracts a module zip, whose entries all start with
// prefix+"/", into dir.
func unzipModule(zipFile, prefix, dir string) error {
	zr, err := zip.OpenReader(zipFile)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix+"/")
		if !ok || strings.HasSuffix(f.Name, "/") {
			return fmt.Errorf("%s: unexpected entry %q", zipFile, f.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := extract(f, dst); err != nil {
			return fmt.Errorf("%s: %s: %w", zipFile, f.Name, err)
		}
	}
	return nil
}

func extract(f *zip.File, dst string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	head, _ := br.Peek(2)
	mode := os.FileMode(0o644)
	if string(head) == "#!" {
		mode = 0o755
	}
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, br); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
