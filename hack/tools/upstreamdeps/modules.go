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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const (
	// kubernetesModule is the module whose version names the release we build on.
	kubernetesModule = "k8s.io/kubernetes"
	// featuresDir is our own staging module, relative to the project root.
	featuresDir = "staging/src/k8s.io/features"
	// exceptionsFile lists the modules allowed to differ from upstream's go.mod.
	exceptionsFile = "hack/upstream-deps-exceptions.txt"
)

// modFile is the part of `go mod edit -json` we read.
type modFile struct {
	Module  struct{ Path string }
	Require []struct {
		Path     string
		Version  string
		Indirect bool
	}
	Replace []struct {
		Old, New struct{ Path, Version string }
	}
}

// readModFile parses a go.mod file with the go command.
func readModFile(path string) (*modFile, error) {
	out, err := goCmd("", nil, "mod", "edit", "-json", path)
	if err != nil {
		return nil, err
	}
	mf := &modFile{}
	if err := json.Unmarshal(out, mf); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return mf, nil
}

// required returns the version a go.mod requires of a module, or "".
func (m *modFile) required(path string) string {
	for _, r := range m.Require {
		if r.Path == path {
			return r.Version
		}
	}
	return ""
}

// upstream is what upstream's go.mod at one release says.
type upstream struct {
	// Version of k8s.io/kubernetes, e.g. v1.37.2.
	Version string
	// Dir is the module's source in the module cache.
	Dir string
	// Staging maps every module upstream replaces with ./staging/... to the
	// version it is published at (v0.<minor>.<patch>).
	Staging map[string]string
	// Requires maps every other module upstream's go.mod requires to its version.
	Requires map[string]string
}

// downloaded is one line of `go mod download -json`.
type downloaded struct {
	Path, Version, Error, Dir, GoMod string
}

// download fetches modules into the module cache, outside any module, and
// returns one result per module; a module that is not served has Error set.
func download(mods ...string) ([]downloaded, error) {
	tmp, err := os.MkdirTemp("", "upstreamdeps")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"mod", "download", "-json"}, mods...)
	// go mod download exits non-zero when any module fails but still prints
	// one JSON object per module; read them all.
	out, runErr := goCmd(tmp, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, args...)
	var res []downloaded
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var d downloaded
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			if runErr != nil {
				return nil, runErr
			}
			return nil, fmt.Errorf("go mod download: %w", err)
		}
		res = append(res, d)
	}
	if len(res) != len(mods) {
		if runErr != nil {
			return nil, runErr
		}
		return nil, fmt.Errorf("go mod download returned %d results for %d modules", len(res), len(mods))
	}
	return res, nil
}

var releaseRE = regexp.MustCompile(`^v1\.(\d+)\.(\d+)$`)

// loadUpstream downloads k8s.io/kubernetes at version and reads its go.mod.
func loadUpstream(version string) (*upstream, error) {
	m := releaseRE.FindStringSubmatch(version)
	if m == nil {
		return nil, fmt.Errorf("%q is not a Kubernetes release version (want v1.<minor>.<patch>)", version)
	}
	res, err := download(kubernetesModule + "@" + version)
	if err != nil {
		return nil, err
	}
	if res[0].Error != "" {
		return nil, fmt.Errorf("%s@%s is not served: %s", kubernetesModule, version, res[0].Error)
	}
	mf, err := readModFile(res[0].GoMod)
	if err != nil {
		return nil, err
	}
	up := &upstream{
		Version:  version,
		Dir:      res[0].Dir,
		Staging:  map[string]string{},
		Requires: map[string]string{},
	}
	stagingVersion := "v0." + m[1] + "." + m[2]
	for _, r := range mf.Replace {
		if strings.HasPrefix(r.New.Path, "./staging/") {
			up.Staging[r.Old.Path] = stagingVersion
		}
	}
	if len(up.Staging) == 0 {
		return nil, fmt.Errorf("%s@%s: go.mod replaces no staging module", kubernetesModule, version)
	}
	for _, r := range mf.Require {
		if _, ok := up.Staging[r.Path]; !ok {
			up.Requires[r.Path] = r.Version
		}
	}
	return up, nil
}

// expected is the version upstream builds a module at, or "" if upstream's
// go.mod does not name it.
func (u *upstream) expected(path string) string {
	if v, ok := u.Staging[path]; ok {
		return v
	}
	return u.Requires[path]
}

// stagingModules lists upstream's staging modules, sorted.
func (u *upstream) stagingModules() []string {
	mods := make([]string, 0, len(u.Staging))
	for p := range u.Staging {
		mods = append(mods, p)
	}
	sort.Strings(mods)
	return mods
}

// pinnedEtcdVersion reads the etcd version upstream's build/dependencies.yaml
// names for the release our go.mod requires.
func pinnedEtcdVersion(root string) (string, error) {
	version, err := currentVersion(root)
	if err != nil {
		return "", err
	}
	up, err := loadUpstream(version)
	if err != nil {
		return "", err
	}
	return etcdVersion(filepath.Join(up.Dir, "build", "dependencies.yaml"))
}

// etcdVersion finds the version of the dependency named "etcd" in upstream's
// build/dependencies.yaml (a list of {name, version, refPaths}).
func etcdVersion(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	nameRE := regexp.MustCompile(`^\s*-\s*name:\s*"?([^"\s]+)"?\s*$`)
	versionRE := regexp.MustCompile(`^\s*version:\s*"?([^"\s]+)"?\s*$`)
	inEtcd := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := nameRE.FindStringSubmatch(line); m != nil {
			inEtcd = m[1] == "etcd"
			continue
		}
		if m := versionRE.FindStringSubmatch(line); m != nil && inEtcd {
			return strings.TrimPrefix(m[1], "v"), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s names no etcd version", path)
}

// currentVersion is the k8s.io/kubernetes version our root go.mod requires.
func currentVersion(root string) (string, error) {
	mf, err := readModFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	v := mf.required(kubernetesModule)
	if v == "" {
		return "", fmt.Errorf("go.mod does not require %s", kubernetesModule)
	}
	return v, nil
}

// compareReleases compares two v1.<minor>.<patch> versions.
func compareReleases(a, b string) int {
	pa, pb := releaseRE.FindStringSubmatch(a), releaseRE.FindStringSubmatch(b)
	if pa == nil || pb == nil {
		return strings.Compare(a, b)
	}
	for i := 1; i <= 2; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// graphModule is one line of `go list -m -json all`.
type graphModule struct {
	Path    string
	Version string
	Main    bool
	Replace *struct{ Path, Version string }
}

// effectiveVersion is the version that is built: the replacement's, if the
// module is replaced by another module version; "" for local replacements.
func (g graphModule) effectiveVersion() string {
	if g.Replace != nil {
		return g.Replace.Version
	}
	return g.Version
}

// moduleGraph lists the build list of the module (or workspace) in dir.
func moduleGraph(dir string, env []string) ([]graphModule, error) {
	out, err := goCmd(dir, env, "list", "-m", "-json", "all")
	if err != nil {
		return nil, err
	}
	var mods []graphModule
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var g graphModule
		if err := dec.Decode(&g); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -m all in %s: %w", dir, err)
		}
		mods = append(mods, g)
	}
	return mods, nil
}

// packageModules lists the modules that provide the packages (tests
// included) of the module in dir, once each.
func packageModules(dir string, env []string) ([]graphModule, error) {
	out, err := goCmd(dir, env, "list", "-deps", "-test", "-json=Module", "./...")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var mods []graphModule
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ Module *graphModule }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -deps in %s: %w", dir, err)
		}
		if p.Module != nil && !seen[p.Module.Path] {
			seen[p.Module.Path] = true
			mods = append(mods, *p.Module)
		}
	}
	return mods, nil
}

// goCmd runs the go command in dir with extra environment and returns stdout;
// on failure the error carries stderr.
func goCmd(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// projectRoot is the nearest directory upwards that holds go.work.
func projectRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the project (no go.work found upwards)")
		}
		dir = parent
	}
}
