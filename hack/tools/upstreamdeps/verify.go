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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// exception allows one module to differ from upstream's version.
type exception struct {
	Version, Reason string
	line            int
	used            bool
}

// readExceptions parses the exception list: one "module version # reason"
// per line; blank lines and lines starting with # are comments. Every
// exception must give its reason.
func readExceptions(path string) (map[string]*exception, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]*exception{}, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	exc := map[string]*exception{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		body, reason, _ := strings.Cut(line, "#")
		fields := strings.Fields(body)
		reason = strings.TrimSpace(reason)
		if len(fields) != 2 || reason == "" {
			return nil, fmt.Errorf("%s:%d: want \"module version # reason\", got %q", path, n, line)
		}
		if _, dup := exc[fields[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, n, fields[0])
		}
		exc[fields[0]] = &exception{Version: fields[1], Reason: reason, line: n}
	}
	return exc, sc.Err()
}

// verify checks that the modules we build with are the ones upstream tested:
//   - the root go.mod replaces every upstream staging module in our build
//     list with its published version for our release;
//   - k8s.io/features requires the same k8s.io versions as the root;
//   - every module upstream's go.mod names is at upstream's version, unless
//     the exception list allows that version: in the workspace's build list
//     (what our binaries and tests build with) and among the modules that
//     provide packages to k8s.io/features and its tests when it is built on
//     its own (what a third party importing it gets; its full build list also
//     holds older versions of modules that provide no package, which are
//     never built).
func verify(root string, w io.Writer) error {
	version, err := currentVersion(root)
	if err != nil {
		return err
	}
	up, err := loadUpstream(version)
	if err != nil {
		return err
	}
	exc, err := readExceptions(filepath.Join(root, exceptionsFile))
	if err != nil {
		return err
	}
	var problems []string

	rootMod, err := readModFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	replaced := map[string]string{}
	for _, r := range rootMod.Replace {
		replaced[r.Old.Path] = r.New.Version
	}
	workspace, err := moduleGraph(root, nil)
	if err != nil {
		return err
	}
	inGraph := map[string]bool{}
	for _, m := range workspace {
		inGraph[m.Path] = true
	}
	for _, s := range up.stagingModules() {
		got, ok := replaced[s]
		// A staging module we do not build needs no replacement (upstream
		// does not serve every sample module at every release).
		if got != up.Staging[s] && (ok || inGraph[s]) {
			problems = append(problems, fmt.Sprintf("go.mod: replace %s => %s %s, want %s (run hack/rebase.sh %s)", s, s, orNone(got), up.Staging[s], version))
		}
	}

	featMod, err := readModFile(filepath.Join(root, featuresDir, "go.mod"))
	if err != nil {
		return err
	}
	for _, r := range featMod.Require {
		if want, ok := up.Staging[r.Path]; ok && r.Version != want {
			problems = append(problems, fmt.Sprintf("%s/go.mod: requires %s %s, the root builds %s", featuresDir, r.Path, r.Version, want))
		}
	}

	checked := 0
	library, err := packageModules(filepath.Join(root, featuresDir), []string{"GOWORK=off"})
	if err != nil {
		return err
	}
	for _, g := range []struct {
		name string
		mods []graphModule
	}{
		{"workspace", workspace},
		{"k8s.io/features", library},
	} {
		for _, m := range g.mods {
			got := m.effectiveVersion()
			want := up.expected(m.Path)
			if m.Main || got == "" || want == "" {
				continue
			}
			checked++
			if got == want {
				continue
			}
			if e := exc[m.Path]; e != nil && e.Version == got {
				e.used = true
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: %s is %s, upstream %s builds %s", g.name, m.Path, got, version, want))
		}
	}
	for path, e := range exc {
		if !e.used {
			problems = append(problems, fmt.Sprintf("%s:%d: exception for %s %s is not needed (remove it)", exceptionsFile, e.line, path, e.Version))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("the module graph is not the one upstream %s tested:\n  %s", version, strings.Join(problems, "\n  "))
	}
	fmt.Fprintf(w, "module graph matches upstream %s: %d module versions checked in 2 build lists, %d staging modules pinned, %d exceptions\n",
		version, checked, len(up.Staging), len(exc))
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
