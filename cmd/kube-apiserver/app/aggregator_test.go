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

package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

// TestPrioritiesAreUpstreams reads upstream's unexported priority table from
// the source of the k8s.io/kubernetes module we build with
// (cmd/kube-apiserver/app/aggregator.go) and checks that ours is the same
// plus features.k8s.io: after a rebase, a group-version upstream added,
// moved or dropped fails here rather than vanishing from discovery.
func TestPrioritiesAreUpstreams(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/kubernetes: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "cmd", "kube-apiserver", "app", "aggregator.go")
	upstream := parsePriorities(t, path)
	if len(upstream) < 20 {
		t.Fatalf("read only %d priorities from %s: has its layout changed?", len(upstream), path)
	}
	ours := maps.Clone(kubeAPIServicePriorities)
	if _, ok := ours[featuresv1alpha1.SchemeGroupVersion]; !ok {
		t.Errorf("%s has no priority", featuresv1alpha1.SchemeGroupVersion)
	}
	delete(ours, featuresv1alpha1.SchemeGroupVersion)
	for gv, p := range upstream {
		if got, ok := ours[gv]; !ok || got != p {
			t.Errorf("%s: upstream's priority is %+v, ours %+v (present: %t)", gv, p, got, ok)
		}
	}
	for gv := range ours {
		if _, ok := upstream[gv]; !ok {
			t.Errorf("%s: upstream has no priority for it any more; remove it", gv)
		}
	}
}

// parsePriorities collects the entries {Group: "g", Version: "v"}: {Group: n,
// Version: m} of every map literal of APIServicePriority in a Go file.
func parsePriorities(t *testing.T, path string) map[schema.GroupVersion]controlplaneapiserver.APIServicePriority {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	fields := func(e ast.Expr) map[string]string {
		lit, ok := e.(*ast.CompositeLit)
		if !ok {
			return nil
		}
		m := map[string]string{}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				return nil
			}
			key, ok1 := kv.Key.(*ast.Ident)
			val, ok2 := kv.Value.(*ast.BasicLit)
			if !ok1 || !ok2 {
				return nil
			}
			m[key.Name] = val.Value
		}
		return m
	}
	out := map[schema.GroupVersion]controlplaneapiserver.APIServicePriority{}
	ast.Inspect(file, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		k, v := fields(kv.Key), fields(kv.Value)
		if k == nil || v == nil || k["Version"] == "" || v["Group"] == "" {
			return true
		}
		group, err1 := strconv.Unquote(k["Group"])
		version, err2 := strconv.Unquote(k["Version"])
		gp, err3 := strconv.ParseInt(v["Group"], 10, 32)
		vp, err4 := strconv.ParseInt(v["Version"], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			t.Errorf("%s: unexpected priority entry %v: %v", path, k, v)
			return false
		}
		out[schema.GroupVersion{Group: group, Version: version}] = controlplaneapiserver.APIServicePriority{Group: int32(gp), Version: int32(vp)}
		return false
	})
	return out
}
