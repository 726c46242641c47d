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

// Package inventory holds the gate inventory: what each kube-apiserver
// feature gate of the release we build on leaves in storage, generated from
// upstream's own registry strategies by cmd/feature-inventory-gen into
// zz_generated.inventory.yaml, and this package's reading of it. The
// lifecycle registry (pkg/features) derives the tasks of every gate with a
// footprint from it.
package inventory

import (
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// InventoryFile is the name, in this package's directory, of the file
// cmd/feature-inventory-gen writes.
const InventoryFile = "zz_generated.inventory.yaml"

// generatedFiles holds the files the lifecycle generators write into this
// package's directory (hack/update-lifecycle-data.sh). The pattern also
// matches the hand-written marker-exceptions.yaml, so that the package
// builds before they are first generated: the generators read what this
// package reads (the fixtures' generator derives tasks from the
// inventory; the inventory's corpus holds the fixtures), and a first run
// starts from nothing.
//
//go:embed *.yaml
var generatedFiles embed.FS

// readGenerated returns the embedded generated file name, or nothing when
// it has not been generated yet: it then reads as empty (no footprints, no
// changes). TestGeneratedFilesAreEmbedded fails on a build without them.
func readGenerated(name string) []byte {
	data, err := generatedFiles.ReadFile(name)
	if err != nil {
		return nil
	}
	return data
}

// Inventory is the generated file, read.
type Inventory struct {
	// UpstreamVersion is the kubernetes release the file was generated on.
	UpstreamVersion string `json:"upstreamVersion"`
	// EmulationVersion is the version gates were evaluated at.
	EmulationVersion string `json:"emulationVersion"`
	// SeedsPerResource is how many fuzzed objects of each resource were run.
	SeedsPerResource int `json:"seedsPerResource"`
	// SingleFieldObjects is how many objects with one leaf field set were
	// run, over every resource.
	SingleFieldObjects int `json:"singleFieldObjects"`
	// GatesExamined counts the changeable gates examined.
	GatesExamined int `json:"gatesExamined"`
	// GatesLockedSkipped counts the gates locked to their default.
	GatesLockedSkipped int `json:"gatesLockedSkipped"`
	// ResourcesExamined counts the resources whose strategy was run.
	ResourcesExamined int `json:"resourcesExamined"`
	// GatesWithFieldFootprint counts the entries of Gates.
	GatesWithFieldFootprint int `json:"gatesWithFieldFootprint"`
	// GatesWithStatusFieldFootprint counts the entries of Gates with a
	// field under status (cleared through the status subresource).
	GatesWithStatusFieldFootprint int `json:"gatesWithStatusFieldFootprint"`
	// GatesWithValueFootprint counts the entries of RefusedValues.
	GatesWithValueFootprint int `json:"gatesWithValueFootprint"`
	// GatesStricterWhenOn counts the entries of StricterValues.
	GatesStricterWhenOn int `json:"gatesStricterWhenOn"`
	// GatesWithRelationalFootprint counts the entries of
	// RelationalValues.
	GatesWithRelationalFootprint int `json:"gatesWithRelationalFootprint"`
	// Gates maps a gate to the fields it guards.
	Gates map[string]Footprint `json:"gates"`
	// RefusedValues maps a gate, a resource and a field path to the values
	// of the field upstream's validation refuses with the gate off and
	// accepts with every gate on.
	RefusedValues map[string]map[string]map[string][]string `json:"refusedValues"`
	// StricterValues maps a gate, a resource and a field path to the
	// probes of the field (free-form strings) upstream's validation
	// refuses with the gate on and accepts with it off: turning the gate
	// on makes stored objects invalid.
	StricterValues map[string]map[string]map[string][]string `json:"stricterValues"`
	// RelationalValues maps a gate, a resource and a field path to what
	// upstream's validation refuses there with the gate off only in
	// relation to other values: another field's (combination), sibling
	// quantities' (arithmetic), what kube-apiserver itself wrote with the
	// gate on (prepared, prepared-copied), or as an object of the corpus
	// showed (corpus).
	RelationalValues map[string]map[string]map[string]Relational `json:"relationalValues"`
	// RelationalTrials counts the objects each relational probe
	// validated, by class.
	RelationalTrials map[string]int `json:"relationalTrials"`
	// Corpus is the corpus differential's report.
	Corpus Corpus `json:"corpus"`
	// GatesWithoutFieldFootprint are the examined gates with no entry.
	GatesWithoutFieldFootprint []string `json:"gatesWithoutFieldFootprint"`
	// ResourcesServedOnlyWith maps a gate to the resources not served
	// while it is off.
	ResourcesServedOnlyWith map[string][]string `json:"resourcesServedOnlyWith"`
	// Resources maps each resource examined to the group-version its paths
	// are written in.
	Resources map[string]string `json:"resources"`
	// ResourcesWithoutStore are served without a registry store.
	ResourcesWithoutStore []string `json:"resourcesWithoutStore"`
	// Notes are the problems the generator met.
	Notes []string `json:"notes"`
	// Markers is the cross-check against upstream's +featureGate= markers
	// and +k8s:ifEnabled/ifDisabled tags in k8s.io/api.
	Markers MarkerCrossCheck `json:"markers"`
}

// MarkerCrossCheck is the inventory checked against the gates upstream
// names on the fields of its API types. Fields are named
// "<group>.<Type>.<json name>" with a type's versions merged; entries are
// "<gates> <field>", and under OnlyCrossCheck ": <reason>" follows.
type MarkerCrossCheck struct {
	// FeatureGateMarkers counts the +featureGate= lines read.
	FeatureGateMarkers int `json:"featureGateMarkers"`
	// ValidationTags counts the +k8s: tag lines naming a gate.
	ValidationTags int `json:"validationTags"`
	// MarkedFields counts the fields they mark.
	MarkedFields int `json:"markedFields"`
	// OfChangeableGates counts the marked fields naming a changeable gate.
	OfChangeableGates int `json:"ofChangeableGates"`
	// FoundByGenerator counts those in a footprint of their gate.
	FoundByGenerator int `json:"foundByGenerator"`
	// OnlyByCrossCheck counts those listed in marker-exceptions.yaml.
	OnlyByCrossCheck int `json:"onlyByCrossCheck"`
	// NotStored counts those in types no examined resource stores.
	NotStored int `json:"notStored"`
	// Found, OnlyCrossCheck, NotStoredFields and Unlisted list them.
	Found           []string `json:"found"`
	OnlyCrossCheck  []string `json:"onlyCrossCheck"`
	NotStoredFields []string `json:"notStoredFields"`
	Unlisted        []string `json:"unlisted"`
}

// Classes of relational footprints (Relational.Class).
const (
	ClassCombination = "combination"
	ClassArithmetic  = "arithmetic"
	ClassPrepared    = "prepared"
	ClassCopied      = "prepared-copied"
	ClassCorpus      = "corpus"
)

// Relational is what validation with a gate off refuses at one field only
// in relation to other values.
type Relational struct {
	// Class is how it was found (the Class* constants).
	Class string `json:"class"`
	// Probe is what was set ("path=value"), or the object of the corpus.
	Probe []string `json:"probe"`
	// NoneNeeded, when set, says why turning the gate off needs no task
	// for it; otherwise the objects validation refuses there are held.
	NoneNeeded string `json:"noneNeeded,omitempty"`
}

// Corpus is the corpus differential's report: real objects validated
// with every gate on and with each gate off.
type Corpus struct {
	// Files and Objects count, by source, the files read and the objects
	// of examined resources decoded from them.
	Files   map[string]int `json:"files"`
	Objects map[string]int `json:"objects"`
	// AcceptedOnRefusedOff counts the objects accepted with every gate on
	// and refused with one gate off.
	AcceptedOnRefusedOff int `json:"acceptedOnRefusedOff"`
	// Footprints counts the entries of Found, OnlyByCorpus of OnlyCorpus.
	Footprints   int `json:"footprints"`
	OnlyByCorpus int `json:"onlyByCorpus"`
	// Found are "<gate> <resource> <field> (<object>)", one per gate,
	// resource and field validation refuses only with the gate off;
	// OnlyCorpus those no probe found.
	Found      []string `json:"found"`
	OnlyCorpus []string `json:"onlyCorpus"`
}

// Footprint is what one gate guards.
type Footprint struct {
	// TurnsOff are the gates turned off with it (itself and the gates that
	// depend on it), when more than itself.
	TurnsOff []string `json:"turnsOff,omitempty"`
	// Fields maps a resource to the paths its strategy drops with the gate
	// off.
	Fields map[string][]string `json:"fields,omitempty"`
	// Changed maps a resource to the paths its strategy sets to another
	// value with the gate off: values it derives, never cleared.
	Changed map[string][]string `json:"changed,omitempty"`
	// Keeps maps a resource and one of its Fields to the values of that
	// field the strategy keeps with the gate off: the field is dropped
	// only when it holds another value (an init container's restartPolicy
	// but Always).
	Keeps map[string]map[string][]string `json:"keeps,omitempty"`
}

// Load returns the inventory, read once.
var Load = sync.OnceValues(func() (*Inventory, error) { return Parse(readGenerated(InventoryFile)) })

// gatesWithStatusFields counts the gates with a field under status.
func (inv *Inventory) gatesWithStatusFields() int {
	n := 0
	for _, fp := range inv.Gates {
		if slices.ContainsFunc(slices.Collect(maps.Values(fp.Fields)), func(paths []string) bool {
			return slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, "status.") })
		}) {
			n++
		}
	}
	return n
}

// Parse reads an inventory and checks it: every path parses, every
// resource with paths has a version, and the counts match the lists.
func Parse(data []byte) (*Inventory, error) {
	inv := &Inventory{}
	if err := yaml.UnmarshalStrict(data, inv); err != nil {
		return nil, fmt.Errorf("reading the gate inventory: %w", err)
	}
	if inv.GatesWithFieldFootprint != len(inv.Gates) {
		return nil, fmt.Errorf("gate inventory: gatesWithFieldFootprint is %d but %d gates are listed", inv.GatesWithFieldFootprint, len(inv.Gates))
	}
	if n := inv.gatesWithStatusFields(); inv.GatesWithStatusFieldFootprint != n {
		return nil, fmt.Errorf("gate inventory: gatesWithStatusFieldFootprint is %d but %d gates list a status field", inv.GatesWithStatusFieldFootprint, n)
	}
	if inv.GatesWithValueFootprint != len(inv.RefusedValues) {
		return nil, fmt.Errorf("gate inventory: gatesWithValueFootprint is %d but %d gates have refused values", inv.GatesWithValueFootprint, len(inv.RefusedValues))
	}
	if inv.GatesStricterWhenOn != len(inv.StricterValues) {
		return nil, fmt.Errorf("gate inventory: gatesStricterWhenOn is %d but %d gates have stricter values", inv.GatesStricterWhenOn, len(inv.StricterValues))
	}
	for what, values := range map[string]map[string]map[string]map[string][]string{"refused values": inv.RefusedValues, "stricter values": inv.StricterValues} {
		for gate, byRes := range values {
			for r, paths := range byRes {
				if _, err := inv.Version(schema.ParseGroupResource(r)); err != nil {
					return nil, fmt.Errorf("gate inventory: %s of %s: %w", what, gate, err)
				}
				for p, values := range paths {
					if _, err := gatedfield.Parse(p); err != nil {
						return nil, fmt.Errorf("gate inventory: %s of %s, resource %s: %w", what, gate, r, err)
					}
					if len(values) == 0 {
						return nil, fmt.Errorf("gate inventory: %s of %s, resource %s: none listed for %s", what, gate, r, p)
					}
				}
			}
		}
	}
	if err := inv.checkRelational(); err != nil {
		return nil, err
	}
	if inv.ResourcesExamined != len(inv.Resources) {
		return nil, fmt.Errorf("gate inventory: resourcesExamined is %d but %d resources are listed", inv.ResourcesExamined, len(inv.Resources))
	}
	for gate, fp := range inv.Gates {
		for _, m := range []map[string][]string{fp.Fields, fp.Changed} {
			for r, paths := range m {
				if _, err := inv.Version(schema.ParseGroupResource(r)); err != nil {
					return nil, fmt.Errorf("gate inventory: gate %s: %w", gate, err)
				}
				for _, p := range paths {
					if _, err := gatedfield.Parse(p); err != nil {
						return nil, fmt.Errorf("gate inventory: gate %s, resource %s: %w", gate, r, err)
					}
				}
			}
		}
		for r, paths := range fp.Keeps {
			for p, values := range paths {
				if !slices.Contains(fp.Fields[r], p) {
					return nil, fmt.Errorf("gate inventory: gate %s, resource %s: kept values of %s, which is not among its fields", gate, r, p)
				}
				if len(values) == 0 {
					return nil, fmt.Errorf("gate inventory: gate %s, resource %s: no kept values listed for %s", gate, r, p)
				}
			}
		}
	}
	return inv, nil
}

// checkRelational checks RelationalValues and the corpus's counts.
func (inv *Inventory) checkRelational() error {
	if inv.GatesWithRelationalFootprint != len(inv.RelationalValues) {
		return fmt.Errorf("gate inventory: gatesWithRelationalFootprint is %d but %d gates have relational values", inv.GatesWithRelationalFootprint, len(inv.RelationalValues))
	}
	if inv.Corpus.Footprints != len(inv.Corpus.Found) || inv.Corpus.OnlyByCorpus != len(inv.Corpus.OnlyCorpus) {
		return fmt.Errorf("gate inventory: the corpus counts %d footprints, %d only by it, but lists %d and %d", inv.Corpus.Footprints, inv.Corpus.OnlyByCorpus, len(inv.Corpus.Found), len(inv.Corpus.OnlyCorpus))
	}
	classes := []string{ClassCombination, ClassArithmetic, ClassPrepared, ClassCopied, ClassCorpus}
	for gate, byRes := range inv.RelationalValues {
		for r, fields := range byRes {
			if _, err := inv.Version(schema.ParseGroupResource(r)); err != nil {
				return fmt.Errorf("gate inventory: relational values of %s: %w", gate, err)
			}
			for p, rel := range fields {
				if _, err := gatedfield.Parse(p); err != nil {
					return fmt.Errorf("gate inventory: relational values of %s, resource %s: %w", gate, r, err)
				}
				if !slices.Contains(classes, rel.Class) || len(rel.Probe) == 0 {
					return fmt.Errorf("gate inventory: relational values of %s, resource %s, %s: class %q (one of %v) and a probe are required", gate, r, p, rel.Class, classes)
				}
			}
		}
	}
	return nil
}

// Relational returns, for each resource, the fields (as written in the
// file) validation refuses with gate off only in relation to other
// values, and what is known of each.
func (inv *Inventory) Relational(gate string) map[schema.GroupResource]map[string]Relational {
	out := make(map[schema.GroupResource]map[string]Relational, len(inv.RelationalValues[gate]))
	for r, fields := range inv.RelationalValues[gate] {
		out[schema.ParseGroupResource(r)] = fields
	}
	return out
}

// Version returns the group-version the paths of gr are written in.
func (inv *Inventory) Version(gr schema.GroupResource) (schema.GroupVersion, error) {
	v, ok := inv.Resources[gr.String()]
	if !ok {
		return schema.GroupVersion{}, fmt.Errorf("resource %s is not among the resources examined", gr.String())
	}
	gv, err := schema.ParseGroupVersion(v)
	if err != nil {
		return schema.GroupVersion{}, fmt.Errorf("resource %s: %w", gr.String(), err)
	}
	if gv.Group != gr.Group {
		return schema.GroupVersion{}, fmt.Errorf("resource %s: version %s is of another group", gr.String(), v)
	}
	return gv, nil
}

// FieldPaths returns, for each resource, the parsed paths a gate's strategy
// drops (Fields), sorted as in the file.
func (fp Footprint) FieldPaths() map[schema.GroupResource][]gatedfield.Path {
	out := make(map[schema.GroupResource][]gatedfield.Path, len(fp.Fields))
	for r, paths := range fp.Fields {
		gr := schema.ParseGroupResource(r)
		for _, p := range paths {
			out[gr] = append(out[gr], gatedfield.MustParse(p)) // checked by Parse
		}
	}
	return out
}

// KeptValues returns the values of path, one of the Fields of gr, the
// strategy keeps with the gate off (none when it drops every value).
func (fp Footprint) KeptValues(gr schema.GroupResource, path string) []string {
	return fp.Keeps[gr.String()][path]
}

// Refused returns, for each resource, the field paths (as written in the
// file) and the values of them validation refuses with gate off.
func (inv *Inventory) Refused(gate string) map[schema.GroupResource]map[string][]string {
	out := make(map[schema.GroupResource]map[string][]string, len(inv.RefusedValues[gate]))
	for r, paths := range inv.RefusedValues[gate] {
		out[schema.ParseGroupResource(r)] = paths
	}
	return out
}

// Stricter returns, for each resource, the field paths (as written in the
// file) and the probes of them validation refuses with gate on and
// accepts with it off.
func (inv *Inventory) Stricter(gate string) map[schema.GroupResource]map[string][]string {
	out := make(map[schema.GroupResource]map[string][]string, len(inv.StricterValues[gate]))
	for r, paths := range inv.StricterValues[gate] {
		out[schema.ParseGroupResource(r)] = paths
	}
	return out
}

// ServedOnlyWith returns the resources not served while gate is off.
func (inv *Inventory) ServedOnlyWith(gate string) []schema.GroupResource {
	var out []schema.GroupResource
	for _, r := range inv.ResourcesServedOnlyWith[gate] {
		out = append(out, schema.ParseGroupResource(r))
	}
	slices.SortFunc(out, func(a, b schema.GroupResource) int {
		if a.String() < b.String() {
			return -1
		}
		return 1
	})
	return out
}
