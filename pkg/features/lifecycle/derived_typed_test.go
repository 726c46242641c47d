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

package lifecycle

import (
	"math/rand"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apitesting "k8s.io/kubernetes/pkg/api/testing"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// typedSeeds is how many fuzzed objects of each resource
// TestTypedClearMatchesUnstructured runs every path of the resource on.
const typedSeeds = 12

// TestTypedClearMatchesUnstructured checks, for every field path of the
// inventory (dropped fields with their kept values, and refused values),
// that reading and clearing it directly in the internal object
// (gatedfield.Compile) gives what the unstructured form gives: the same
// answer of the holder, the same change reported, and the same object.
// Objects are fuzzed with upstream's API fuzzers, and each path is also
// run on objects the unstructured clear has emptied elsewhere.
func TestTypedClearMatchesUnstructured(t *testing.T) {
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	type pathKeep struct {
		path gatedfield.Path
		keep func(interface{}) bool
		name string
	}
	byResource := map[schema.GroupResource][]pathKeep{}
	for gate, fp := range inv.Gates {
		for gr, paths := range fp.FieldPaths() {
			for _, p := range paths {
				kept := fp.KeptValues(gr, p.String())
				byResource[gr] = append(byResource[gr], pathKeep{path: p, keep: gatedfield.KeepStrings(kept), name: gate + " " + p.String()})
			}
		}
		for gr, values := range inv.Refused(gate) {
			for p, vs := range values {
				byResource[gr] = append(byResource[gr], pathKeep{path: gatedfield.MustParse(p), keep: allBut(vs), name: gate + " refused " + p})
			}
		}
	}
	f := fuzzer.FuzzerFor(apitesting.FuzzerFuncs, rand.NewSource(11), legacyscheme.Codecs).NilChance(0.1).NumElements(1, 2).MaxDepth(20)
	compiled, exercised, total := 0, 0, 0
	var fallbacks []string
	for gr, pks := range byResource {
		example, err := testCatalog(t).NewObject(gr)
		if err != nil {
			continue // not a resource the migrator rewrites
		}
		objects := make([]runtime.Object, typedSeeds)
		for i := range objects {
			objects[i] = example.DeepCopyObject()
			f.Fill(objects[i])
		}
		for _, pk := range pks {
			total++
			paths, keeps := []gatedfield.Path{pk.path}, []func(interface{}) bool{pk.keep}
			gv, err := inv.Version(gr)
			if err != nil {
				t.Fatal(err)
			}
			if _, typed := compileTyped(testCatalog(t), gv, gr, paths, keeps); typed == nil {
				fallbacks = append(fallbacks, gr.String()+" "+pk.name)
				continue
			}
			compiled++
			typedClear, typedHolds, err := clearFunc(inv, testCatalog(t), gr, paths, keeps, true)
			if err != nil {
				t.Fatal(err)
			}
			unstructuredClear, _, err := clearFunc(inv, testCatalog(t), gr, paths, keeps, false)
			if err != nil {
				t.Fatal(err)
			}
			typedHas, err := holder(inv, testCatalog(t), gr, paths, keeps, true)
			if err != nil {
				t.Fatal(err)
			}
			unstructuredHas, err := holder(inv, testCatalog(t), gr, paths, keeps, false)
			if err != nil {
				t.Fatal(err)
			}
			seen := false
			for i, obj := range objects {
				if got, want := typedHas(obj), unstructuredHas(obj); got != want {
					t.Errorf("%s %s seed %d: the typed holder says %t, the unstructured one %t", gr, pk.name, i, got, want)
				}
				a, b := obj.DeepCopyObject(), obj.DeepCopyObject()
				holdsA := typedHolds(a)
				changedA, changedB := typedClear(a), unstructuredClear(b)
				if holdsA != changedB {
					t.Errorf("%s %s seed %d: the clear's holds function says %t, the unstructured clear changed %t", gr, pk.name, i, holdsA, changedB)
				}
				if changedA != changedB {
					t.Errorf("%s %s seed %d: the typed clear reports a change %t, the unstructured one %t", gr, pk.name, i, changedA, changedB)
					continue
				}
				seen = seen || changedA
				if changedA && !apiequality.Semantic.DeepEqual(a, b) {
					t.Errorf("%s %s seed %d: the typed clear and the unstructured one leave different objects", gr, pk.name, i)
				}
				if typedHas(a) {
					t.Errorf("%s %s seed %d: the field is held after the typed clear", gr, pk.name, i)
				}
			}
			if seen {
				exercised++
			}
		}
	}
	slices.Sort(fallbacks)
	t.Logf("%d of %d inventory paths compile for the internal types (%d changed on some fuzzed object); read through the unstructured form: %v",
		compiled, total, exercised, fallbacks)
	// Most paths are read directly; a fall in this share means Compile
	// stopped accepting what it did.
	if compiled*10 < total*8 {
		t.Errorf("only %d of %d inventory paths compile for the internal types", compiled, total)
	}
	if exercised*2 < compiled {
		t.Errorf("only %d of %d compiled paths changed a fuzzed object: the fuzzing does not exercise them", exercised, compiled)
	}
}
