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
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// derivation is what the field tasks of one gate are derived from (see
// Derived): the gate's paths in the inventory, those of pod specs applied
// to every resource holding one, with the values the strategy keeps.
type derivation struct {
	inv       *inventory.Inventory
	catalog   *storecatalog.Catalog
	templates map[schema.GroupResource]gatedfield.Path
	// refused are, per resource, the paths whose clearing is refused,
	// with why.
	refused map[schema.GroupResource]map[string]string
	gate    string

	// own are a resource's paths but those under its pod spec.
	own map[schema.GroupResource][]gatedfield.Path
	// rel are the paths relative to a pod spec, found under any resource.
	rel []gatedfield.Path
	// relKeep are the kept values of the paths of rel.
	relKeep map[string][]string
	// keeps are the kept values of a path, by resource and path.
	keeps map[schema.GroupResource]map[string][]string
	// holds are what each resource holds: its own paths, and the paths
	// of rel under its pod spec.
	holds map[schema.GroupResource][]gatedfield.Path
}

// newDerivation sorts the paths of gate for the resources catalog has a
// store of.
func newDerivation(inv *inventory.Inventory, catalog *storecatalog.Catalog, templates map[schema.GroupResource]gatedfield.Path,
	refused map[schema.GroupResource]map[string]string, gate string) *derivation {
	d := &derivation{
		inv: inv, catalog: catalog, templates: templates, refused: refused, gate: gate,
		own:     map[schema.GroupResource][]gatedfield.Path{},
		relKeep: map[string][]string{},
		keeps:   map[schema.GroupResource]map[string][]string{},
		holds:   map[schema.GroupResource][]gatedfield.Path{},
	}
	fp := inv.Gates[gate]
	paths := fp.FieldPaths()
	podSpec := map[string]gatedfield.Path{} // relative to a pod spec
	for _, gr := range slices.SortedFunc(maps.Keys(paths), compareGR) {
		if _, ok := catalog.Lookup(gr); !ok {
			continue
		}
		d.keeps[gr] = map[string][]string{}
		for _, p := range leaves(paths[gr]) {
			kept := fp.KeptValues(gr, p.String())
			if prefix, ok := templates[gr]; ok {
				if rel, ok := p.TrimPrefix(prefix); ok {
					podSpec[rel.String()] = rel
					d.relKeep[rel.String()] = union(d.relKeep[rel.String()], kept)
					continue
				}
			}
			d.own[gr] = append(d.own[gr], p)
			d.keeps[gr][p.String()] = kept
		}
	}
	for _, k := range slices.Sorted(maps.Keys(podSpec)) {
		d.rel = append(d.rel, podSpec[k])
	}
	d.rel = leaves(d.rel)
	for gr, ps := range d.own {
		d.holds[gr] = append(d.holds[gr], ps...)
	}
	if len(d.rel) > 0 {
		for gr, prefix := range templates {
			if d.keeps[gr] == nil {
				d.keeps[gr] = map[string][]string{}
			}
			for _, r := range d.rel {
				p := prefix.Join(r)
				d.holds[gr] = append(d.holds[gr], p)
				d.keeps[gr][p.String()] = d.relKeep[r.String()]
			}
		}
	}
	return d
}

// clearTasks clears the gate's fields of objects that may be rewritten:
// through a resource's own strategy, and under status through its status
// subresource (also of the resources whose spec is immutable: pods, Jobs).
func (d *derivation) clearTasks() ([]tasks.Task, error) {
	var clear []tasks.FieldClearer
	var cleared []string
	for _, gr := range slices.SortedFunc(maps.Keys(d.own), compareGR) {
		// Refusals are of rewrites through gr's own strategy: not of status
		// written through its status subresource.
		spec, status := splitStatus(d.catalog, gr, d.own[gr])
		spec = allowed(spec, d.refused[gr])
		if len(spec) > 0 && !immutable[gr] {
			c, err := pathClearer(d.inv, d.catalog, gr, spec, d.keeps[gr])
			if err != nil {
				return nil, err
			}
			clear = append(clear, c)
			cleared = append(cleared, fmt.Sprintf("%s of %s", describePaths(spec, d.keeps[gr]), gr.String()))
		}
		if len(status) > 0 {
			c, err := pathClearer(d.inv, d.catalog, gr, status, d.keeps[gr])
			if err != nil {
				return nil, err
			}
			c.Status = true
			clear = append(clear, c)
			cleared = append(cleared, fmt.Sprintf("%s of %s", describePaths(status, d.keeps[gr]), gr.String()))
		}
	}
	if len(clear) == 0 {
		return nil, nil
	}
	return []tasks.Task{tasks.ClearFieldsOf(DerivedClearFieldsTask,
		shorten(fmt.Sprintf("Clear what %s guards from every stored object: %s.", d.gate, strings.Join(cleared, "; "))), clear)}, nil
}

// templateTasks clears the gate's pod spec paths from the pod templates of
// workloads (opt-in), but those of ephemeral containers: upstream's
// validation refuses them in a pod template (ValidatePodTemplateSpec), so
// no template holds what a gate guards under them.
func (d *derivation) templateTasks() ([]tasks.Task, error) {
	inTemplates := slices.DeleteFunc(slices.Clone(d.rel), func(r gatedfield.Path) bool { return r[0].Field == "ephemeralContainers" })
	if len(inTemplates) == 0 {
		return nil, nil
	}
	var targets []tasks.FieldClearer
	for _, gr := range slices.SortedFunc(maps.Keys(d.templates), compareGR) {
		if immutable[gr] {
			continue
		}
		ps := make([]gatedfield.Path, len(inTemplates))
		for i, r := range inTemplates {
			ps[i] = d.templates[gr].Join(r)
		}
		if ps = allowed(ps, d.refused[gr]); len(ps) == 0 {
			continue
		}
		c, err := pathClearer(d.inv, d.catalog, gr, ps, d.keeps[gr])
		if err != nil {
			return nil, err
		}
		targets = append(targets, c)
	}
	if len(targets) == 0 {
		return nil, nil
	}
	specKeep := map[string][]string{}
	for i, p := range podSpecPaths(inTemplates) {
		specKeep[p.String()] = d.relKeep[inTemplates[i].String()]
	}
	return []tasks.Task{tasks.OptIn(tasks.ClearFieldsOf(DerivedClearTemplatesTask,
		shorten(fmt.Sprintf("Clear %s of pod specs from the pod template of every workload (but Jobs); this rolls out new pods.", describePaths(podSpecPaths(inTemplates), specKeep))), targets))}, nil
}

// waitTasks wait for the objects that cannot be rewritten and hold the
// gate's paths: Jobs and pods, then the other immutable resources the gate
// has paths in. Their status is cleared (clearTasks).
func (d *derivation) waitTasks() ([]tasks.Task, error) {
	type wait struct {
		gr   schema.GroupResource
		name string
	}
	waits := []wait{{jobResource, DerivedWaitForJobsTask}, {podResource, DerivedWaitForPodsTask}}
	for _, gr := range slices.SortedFunc(maps.Keys(immutable), compareGR) {
		if gr != jobResource && gr != podResource {
			waits = append(waits, wait{gr, taskName(derivedWaitForImmutablePrefix, gr)})
		}
	}
	var out []tasks.Task
	for _, w := range waits {
		ps, _ := splitStatus(d.catalog, w.gr, d.holds[w.gr])
		if len(ps) == 0 {
			continue
		}
		uses, err := pathHolder(d.inv, d.catalog, w.gr, ps, d.keeps[w.gr])
		if err != nil {
			return nil, err
		}
		out = append(out, tasks.WaitForAbsence(w.name,
			shorten(fmt.Sprintf("Wait until no %s sets %s; delete those %s to go on.", singular(w.gr), describePaths(ps, d.keeps[w.gr]), w.gr.Resource)),
			w.gr, shorten(describePaths(ps, d.keeps[w.gr])), uses))
	}
	return out, nil
}

// refusedTasks wait for the objects that set a path upstream refuses to
// store them without (but those of pod templates, which only the opt-in
// task clears).
func (d *derivation) refusedTasks() ([]tasks.Task, error) {
	var out []tasks.Task
	for _, gr := range slices.SortedFunc(maps.Keys(d.refused), compareGR) {
		var ps []gatedfield.Path
		var whys []string
		for _, p := range d.own[gr] {
			if why, ok := d.refused[gr][p.String()]; ok {
				ps = append(ps, p)
				if !slices.Contains(whys, why) {
					whys = append(whys, why)
				}
			}
		}
		if len(ps) == 0 || immutable[gr] {
			continue
		}
		uses, err := pathHolder(d.inv, d.catalog, gr, ps, d.keeps[gr])
		if err != nil {
			return nil, err
		}
		why := strings.Join(whys, "; ")
		if len(why) > maxRefusalQuote {
			why = why[:maxRefusalQuote] + "..."
		}
		out = append(out, tasks.WaitForAbsence(taskName(derivedWaitForImmutablePrefix, gr),
			shorten(fmt.Sprintf("Wait until no %s sets %s: %s refuses to store one without them (%s). Delete those %s to go on.",
				singular(gr), describePaths(ps, d.keeps[gr]), gr.String(), why, gr.Resource)),
			gr, shorten(describePaths(ps, d.keeps[gr])), uses))
	}
	return out, nil
}

// servedTasks delete (opt-in) and wait for the objects of the resources
// served only with the gate.
func (d *derivation) servedTasks() ([]tasks.Task, error) {
	var out []tasks.Task
	for _, gr := range d.inv.ServedOnlyWith(d.gate) {
		if example, err := d.catalog.NewObject(gr); err == nil {
			out = append(out, servedOnlyWithTasks(d.gate, gr, example)...)
		}
	}
	return out, nil
}

// ClearedThroughStatus reports whether a derived task clears path p of gr
// through gr's status subresource (catalog.HasStatus): p is under status.
func ClearedThroughStatus(catalog *storecatalog.Catalog, gr schema.GroupResource, p gatedfield.Path) bool {
	return len(p) > 0 && p[0].Field == "status" && catalog.HasStatus(gr)
}

// splitStatus splits ps, paths of gr, into those under status that gr's
// status subresource writes (cleared through it: gr's own strategy keeps
// the stored status) and the others.
func splitStatus(catalog *storecatalog.Catalog, gr schema.GroupResource, ps []gatedfield.Path) (others, status []gatedfield.Path) {
	for _, p := range ps {
		if ClearedThroughStatus(catalog, gr, p) {
			status = append(status, p)
		} else {
			others = append(others, p)
		}
	}
	return others, status
}

// allowed returns the paths of ps whose clearing is not refused.
func allowed(ps []gatedfield.Path, refused map[string]string) []gatedfield.Path {
	var out []gatedfield.Path
	for _, p := range ps {
		if _, no := refused[p.String()]; !no {
			out = append(out, p)
		}
	}
	return out
}

// PathClearer returns a FieldClearer that clears paths, written as the
// gate inventory writes them for gr, from internal objects of gr: what a
// derived clear-fields task does to gr, for the generator that finds the
// paths whose clearing is refused.
func PathClearer(catalog *storecatalog.Catalog, gr schema.GroupResource, paths ...string) (tasks.FieldClearer, error) {
	inv, err := inventory.Load()
	if err != nil {
		return tasks.FieldClearer{}, err
	}
	ps := make([]gatedfield.Path, len(paths))
	for i, p := range paths {
		if ps[i], err = gatedfield.Parse(p); err != nil {
			return tasks.FieldClearer{}, err
		}
	}
	return pathClearer(inv, catalog, gr, ps, nil)
}

// leaves returns paths without those another of them extends: when a drop
// rule empties the struct that held the field it dropped, the fuzzers show
// the struct as dropped too (ContainerStopSignals' ephemeral containers'
// lifecycle); clearing the struct would also clear fields of other gates,
// so only the field goes.
func leaves(paths []gatedfield.Path) []gatedfield.Path {
	var out []gatedfield.Path
	for _, p := range paths {
		parent := false
		for _, q := range paths {
			if _, ok := q.TrimPrefix(p); ok {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, p)
		}
	}
	return out
}

// pathClearer returns a FieldClearer that clears paths (written in the
// version the inventory compared gr in) from internal objects of gr, but
// where a path holds one of its values in keep (by path).
// When the paths compile for gr's internal type, it also says, without a
// copy, which objects the clear would change (FieldClearer.Holds).
func pathClearer(inv *inventory.Inventory, catalog *storecatalog.Catalog, gr schema.GroupResource, paths []gatedfield.Path, keep map[string][]string) (tasks.FieldClearer, error) {
	example, err := catalog.NewObject(gr)
	if err != nil {
		return tasks.FieldClearer{}, err
	}
	clear, holds, err := clearFunc(inv, catalog, gr, paths, keepFuncs(paths, keep), true)
	if err != nil {
		return tasks.FieldClearer{}, err
	}
	return tasks.FieldClearer{Resource: gr, Type: reflect.TypeOf(example), Clear: clear, Holds: holds}, nil
}

// clearFunc returns the function clearing paths from internal objects of gr
// but where keeps[i] accepts the value of paths[i]. With typed, paths that
// compile for gr's internal type (gatedfield.Compile) are cleared in the
// object directly; otherwise, and always without typed, the object is
// converted to the inventory's version of gr, cleared in its unstructured
// form and converted back. With typed paths it also returns the function
// saying, without changing them, which objects the clear would change (nil
// otherwise).
func clearFunc(inv *inventory.Inventory, catalog *storecatalog.Catalog, gr schema.GroupResource, paths []gatedfield.Path,
	keeps []func(interface{}) bool, typed bool) (clear, holds func(runtime.Object) bool, err error) {
	gv, err := inv.Version(gr)
	if err != nil {
		return nil, nil, err
	}
	unstructuredClear := func(obj runtime.Object) bool {
		u, err := toUnstructured(obj, gv)
		if err != nil {
			klog.ErrorS(err, "Reading an object to clear fields", "resource", gr.String())
			return false
		}
		changed := false
		for i, p := range paths {
			if p.ClearUnless(u, keeps[i]) {
				changed = true
			}
		}
		if !changed {
			return false
		}
		if err := fromUnstructured(u, gv, obj); err != nil {
			klog.ErrorS(err, "Writing back an object with fields cleared", "resource", gr.String())
			return false
		}
		return true
	}
	if !typed {
		return unstructuredClear, nil, nil
	}
	kind, compiled := compileTyped(catalog, gv, gr, paths, keeps)
	if compiled == nil {
		return unstructuredClear, nil, nil
	}
	clear = func(obj runtime.Object) bool {
		if reflect.TypeOf(obj) != kind {
			return unstructuredClear(obj)
		}
		changed := false
		for i, t := range compiled {
			if t.ClearUnless(obj, keeps[i]) {
				changed = true
			}
		}
		return changed
	}
	holds = func(obj runtime.Object) bool {
		if reflect.TypeOf(obj) != kind {
			return false
		}
		for i, t := range compiled {
			if t.HasUnless(obj, keeps[i]) {
				return true
			}
		}
		return false
	}
	return clear, holds, nil
}

// compileTyped compiles paths, written in gv, for the internal objects of
// gr, whose type it returns. It returns nil paths when one of them does not
// compile, or has a keep function (keeps[i]) but no scalar value: the
// caller then reads the unstructured form of the objects.
func compileTyped(catalog *storecatalog.Catalog, gv schema.GroupVersion, gr schema.GroupResource, paths []gatedfield.Path, keeps []func(interface{}) bool) (reflect.Type, []*gatedfield.Typed) {
	example, err := catalog.NewObject(gr)
	if err != nil {
		return nil, nil
	}
	kinds, _, err := legacyscheme.Scheme.ObjectKinds(example)
	if err != nil || len(kinds) == 0 {
		return nil, nil
	}
	versioned, err := legacyscheme.Scheme.New(gv.WithKind(kinds[0].Kind))
	if err != nil {
		return nil, nil
	}
	kind := reflect.TypeOf(example)
	out := make([]*gatedfield.Typed, len(paths))
	for i, p := range paths {
		t, err := gatedfield.Compile(p, reflect.TypeOf(versioned), kind)
		if err != nil || (keeps[i] != nil && !t.ScalarLeaf()) {
			klog.V(4).InfoS("Fields of a gate are read through the unstructured form", "resource", gr.String(), "path", p.String(), "err", err)
			return nil, nil
		}
		out[i] = t
	}
	return kind, out
}

// pathHolder returns whether an object of gr (internal, or versioned and
// then converted) sets any of paths to a value not in keep (by path); an
// object of another kind sets none.
func pathHolder(inv *inventory.Inventory, catalog *storecatalog.Catalog, gr schema.GroupResource, paths []gatedfield.Path, keep map[string][]string) (func(runtime.Object) bool, error) {
	return holder(inv, catalog, gr, paths, keepFuncs(paths, keep), true)
}

// holder returns whether an object of gr (internal, or versioned and then
// converted) sets any of paths to a value the keep function of the path
// (keeps[i], nil for none) does not accept; an object of another kind sets
// none. With typed, it reads the paths that compile (compileTyped) in the
// internal object directly.
func holder(inv *inventory.Inventory, catalog *storecatalog.Catalog, gr schema.GroupResource, paths []gatedfield.Path,
	keeps []func(interface{}) bool, typed bool) (func(runtime.Object) bool, error) {
	gv, err := inv.Version(gr)
	if err != nil {
		return nil, err
	}
	example, err := catalog.NewObject(gr)
	if err != nil {
		return nil, err
	}
	kind := reflect.TypeOf(example)
	var compiled []*gatedfield.Typed
	if typed {
		_, compiled = compileTyped(catalog, gv, gr, paths, keeps)
	}
	internal := schema.GroupVersion{Group: gr.Group, Version: runtime.APIVersionInternal}
	return func(obj runtime.Object) bool {
		if obj == nil {
			return false
		}
		if reflect.TypeOf(obj) != kind {
			// A versioned object of gr's kind is read in its internal
			// version; an object of any other kind holds nothing.
			converted, err := legacyscheme.Scheme.ConvertToVersion(obj.DeepCopyObject(), internal)
			if err != nil || reflect.TypeOf(converted) != kind {
				return false
			}
			obj = converted
		}
		if compiled != nil {
			for i, t := range compiled {
				if t.HasUnless(obj, keeps[i]) {
					return true
				}
			}
			return false
		}
		u, err := toUnstructured(obj, gv)
		if err != nil {
			// Counted as a use: the transition must not end on an object
			// it could not read.
			klog.ErrorS(err, "Reading an object for the fields of a gate", "resource", gr.String())
			return true
		}
		for i, p := range paths {
			if p.HasUnless(u, keeps[i]) {
				return true
			}
		}
		return false
	}, nil
}

// keepFuncs returns, for each of paths, the function accepting its values
// in keep (nil, accepting none, for a path without kept values).
func keepFuncs(paths []gatedfield.Path, keep map[string][]string) []func(interface{}) bool {
	out := make([]func(interface{}) bool, len(paths))
	for i, p := range paths {
		out[i] = gatedfield.KeepStrings(keep[p.String()])
	}
	return out
}

// toUnstructured converts an internal object to gv, as a map.
func toUnstructured(obj runtime.Object, gv schema.GroupVersion) (map[string]interface{}, error) {
	versioned, err := legacyscheme.Scheme.ConvertToVersion(obj.DeepCopyObject(), gv)
	if err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(versioned)
}

// fromUnstructured converts u, an object of gv, to obj's internal type and
// replaces *obj with it.
func fromUnstructured(u map[string]interface{}, gv schema.GroupVersion, obj runtime.Object) error {
	kinds, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	versioned, err := legacyscheme.Scheme.New(gv.WithKind(kinds[0].Kind))
	if err != nil {
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, versioned); err != nil {
		return err
	}
	internal := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
		return err
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(internal).Elem())
	return nil
}
