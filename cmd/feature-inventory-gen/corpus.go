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
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// The corpus differential: real objects, validated as the probes
// validate theirs, catch what the probes do not imagine. Every object of
// the corpus that decodes to a resource examined is prepared with every
// gate on and validated with every gate on, then with every changeable
// gate off and, where a field is refused only then, with each gate
// PrepareForCreate or validation read off in turn: a field validation
// refuses with the gate off and accepts with every gate on is a
// footprint, which the inventory must hold.

// corpusSources are the corpus's directories in the tree, each with the
// files read below it, as the inventory names them.
var corpusSources = []struct {
	name, dir string
	match     func(path string) bool
}{
	// Upstream's round-trip fixtures of every API type at HEAD (the JSON
	// of each; the YAML and protobuf files hold the same objects).
	{"api-testdata", "staging/src/k8s.io/api/testdata/HEAD", func(p string) bool { return strings.HasSuffix(p, ".json") }},
	// The e2e tests' manifests.
	{"e2e-manifests", "test/e2e/testing-manifests", yamlOrJSON},
	// The objects upstream's integration tests write from files (the
	// scheduler_perf templates), but this project's.
	{"integration", "test/integration", func(p string) bool {
		return yamlOrJSON(p) && !strings.HasPrefix(p, "test/integration/features/")
	}},
	// This project's integration tests' objects: the hand-written
	// on→use→off fixtures. The generated ones are made from this
	// inventory (cmd/lifecycle-fixtures-gen): they hold only what it holds,
	// and reading them would make each generator's output depend on the
	// other's.
	{"lifecycle-fixtures", "pkg/features/lifecycle/testdata", func(p string) bool {
		return yamlOrJSON(p) && !strings.HasPrefix(filepath.Base(p), "zz_generated.")
	}},
}

func yamlOrJSON(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json")
}

// templateAction is a Go template action in a manifest ({{.Index}}), read
// as 0.
var templateAction = regexp.MustCompile(`\{\{[^}]*\}\}`)

// corpusObject is one object of the corpus, decoded to its internal type.
type corpusObject struct {
	source string // "<source>:<file>#<document>"
	res    *resource
	obj    runtime.Object
	// prepared is obj after PrepareForCreate with every gate on, on its
	// error fields with every gate on, cand the fields refused only with
	// every gate off.
	prepared runtime.Object
	on, cand map[string]bool
	reads    map[featuregate.Feature]bool
}

// corpusReport is what the differential found, for the inventory.
type corpusReport struct {
	// files and objects count, by source, the files read and the objects
	// of examined resources decoded from them.
	files, objects map[string]int
	// refusedOnly counts the objects accepted with every gate on and
	// refused with one gate off.
	refusedOnly int
	// footprints are "<gate> <resource> <field> (<object>)", one per gate,
	// resource and field; onlyCorpus those the probes had not found.
	footprints, onlyCorpus []string
}

// loadCorpus reads the corpus below root (the tree) and decodes the
// objects of the resources examined.
func loadCorpus(inv *inventory, root string, rep *corpusReport, note func(string, ...interface{})) ([]*corpusObject, error) {
	byType := map[reflect.Type]*resource{}
	for i := range inv.resources {
		t := reflect.TypeOf(inv.resources[i].Store.NewFunc())
		if _, ok := byType[t]; !ok {
			byType[t] = &inv.resources[i]
		}
	}
	rep.files, rep.objects = map[string]int{}, map[string]int{}
	var out []*corpusObject
	for _, src := range corpusSources {
		err := filepath.WalkDir(filepath.Join(root, src.dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					note("corpus %s: %s is not in the tree", src.name, src.dir)
					return filepath.SkipDir
				}
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() || !src.match(filepath.ToSlash(rel)) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rep.files[src.name]++
			for i, doc := range documents(data) {
				for _, obj := range decodeAll(doc) {
					r := byType[reflect.TypeOf(obj)]
					if r == nil {
						continue
					}
					placeInCorpus(r, obj)
					out = append(out, &corpusObject{source: fmt.Sprintf("%s:%s#%d", src.name, filepath.ToSlash(rel), i), res: r, obj: obj})
					rep.objects[src.name]++
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// documents splits a YAML or JSON file into its documents, with template
// actions read as 0.
func documents(data []byte) [][]byte {
	data = templateAction.ReplaceAll(data, []byte("0"))
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if err != nil {
			return out
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			out = append(out, doc)
		}
	}
}

// decodeAll decodes one document to internal objects, defaulted as
// kube-apiserver decodes a request (a List to its items); nothing when it
// is no built-in object.
func decodeAll(doc []byte) []runtime.Object {
	data, err := utilyaml.ToJSON(doc)
	if err != nil {
		return nil
	}
	var list metav1.List
	if _, gvk, err := legacyscheme.Codecs.UniversalDeserializer().Decode(data, nil, &list); err == nil && gvk.Kind == "List" {
		var out []runtime.Object
		for _, item := range list.Items {
			out = append(out, decodeAll(item.Raw)...)
		}
		return out
	}
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), data)
	if err != nil {
		return nil
	}
	return []runtime.Object{obj}
}

// placeInCorpus gives obj a name and, for a namespaced resource, a
// namespace where it has none (a manifest applied to a namespace).
func placeInCorpus(r *resource, obj runtime.Object) {
	a, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if a.GetName() == "" && a.GetGenerateName() == "" {
		a.SetName("corpus")
	}
	if r.Store.CreateStrategy.NamespaceScoped() && a.GetNamespace() == "" {
		a.SetNamespace("corpus")
	}
}

// corpusDifferential runs the differential on objs and returns its
// footprints by gate, resource and field.
func corpusDifferential(gs *gateSet, rec *recordingGate, objs []*corpusObject, rep *corpusReport, note func(string, ...interface{})) (findings, error) {
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	for _, o := range objs {
		o.reads = rec.recordDuring(func() {
			p, err := prepare(o.res, o.obj)
			if err != nil {
				note("corpus %s: PrepareForCreate with every gate on: %v", o.source, err)
				return
			}
			errs, err := validate(o.res, p)
			if err != nil {
				note("corpus %s: validating with every gate on: %v", o.source, err)
				return
			}
			o.prepared, o.on = p, errorFields(errs)
		})
	}
	if err := gs.setAllOff(); err != nil {
		return nil, err
	}
	parallel(len(objs), func(i int) {
		o := objs[i]
		if o.prepared == nil {
			return
		}
		if errs, err := validate(o.res, o.prepared); err == nil {
			o.cand = newFields(errorFields(errs), o.on, nil)
		}
	})
	out := findings{}
	refused := map[*corpusObject]bool{}
	for _, g := range gs.changeable {
		var mine []*corpusObject
		for _, o := range objs {
			if len(o.cand) > 0 && o.reads[g] {
				mine = append(mine, o)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if _, err := gs.setOff(g); err != nil {
			return nil, err
		}
		found := make([]map[string]bool, len(mine))
		parallel(len(mine), func(i int) {
			if errs, err := validate(mine[i].res, mine[i].prepared); err == nil {
				found[i] = newFields(errorFields(errs), mine[i].on, func(f string) bool { return mine[i].cand[f] })
			}
		})
		for i, o := range mine {
			for _, f := range slices.Sorted(maps.Keys(found[i])) {
				out.add(g, o.res.GroupResource, f, &relFinding{class: classCorpus, probe: []string{o.source}})
				if len(o.on) == 0 {
					refused[o] = true
				}
			}
		}
	}
	rep.refusedOnly = len(refused)
	return out, gs.setAllOn()
}

// addCorpus records the corpus's footprints in rep and adds those the
// inventory does not hold yet to inv.relational (class corpus).
func (inv *inventory) addCorpus(found findings, rep *corpusReport) {
	missing := findings{}
	for _, g := range slices.Sorted(maps.Keys(found)) {
		for _, gr := range sortedGRs(found[g]) {
			for _, f := range slices.Sorted(maps.Keys(found[g][gr])) {
				line := fmt.Sprintf("%s %s %s (%s)", g, gr, f, found[g][gr][f][0].probe[0])
				rep.footprints = append(rep.footprints, line)
				if !inv.covered(g, gr, f) {
					rep.onlyCorpus = append(rep.onlyCorpus, line)
					missing.add(g, gr, f, found[g][gr][f][0])
				}
			}
		}
	}
	inv.mergeFindings(missing)
}
