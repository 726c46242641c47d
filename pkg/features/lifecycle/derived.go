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
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// Names of the tasks derived from the gate inventory. They are unique
// within a transition.
const (
	// DerivedClearFieldsTask clears the fields a gate guards from every
	// object that may be rewritten.
	DerivedClearFieldsTask = "clear-fields"
	// DerivedClearTemplatesTask (opt-in) clears them from the pod
	// templates of workloads, which rolls out new pods.
	DerivedClearTemplatesTask = "clear-pod-template-fields"
	// DerivedWaitForJobsTask waits for Jobs that use them (a Job's
	// template cannot be rewritten).
	DerivedWaitForJobsTask = "wait-for-no-jobs"
	// DerivedWaitForPodsTask waits for pods that use them (a pod's spec
	// cannot be rewritten).
	DerivedWaitForPodsTask = "wait-for-no-pods"
	// derivedWaitForResourcePrefix starts the name of the task that waits
	// for the objects of a resource served only with the gate.
	derivedWaitForResourcePrefix = "wait-for-no-"
	// derivedDeleteResourcePrefix starts the name of the opt-in task that
	// deletes them.
	derivedDeleteResourcePrefix = "delete-"
	// derivedWaitForImmutablePrefix starts the name of the task that waits
	// for the objects of an immutable resource (other than Jobs and pods)
	// that use what a gate guards.
	derivedWaitForImmutablePrefix = "wait-for-unused-"
	// derivedWaitForValuesSuffix ends the name of the task that waits for
	// the objects of a resource that set a field to a value validation
	// refuses with the gate off (wait-for-no-<resource>-values).
	derivedWaitForValuesSuffix = "-values"
)

// maxRefusalQuote bounds how much of validation's answer a derived task's
// description quotes.
const maxRefusalQuote = 240

// maxDerivedDescription bounds a derived task's description: the API's
// limit is 1024 bytes, and OptIn adds a sentence.
const maxDerivedDescription = 850

var (
	// immutable are the resources whose objects cannot lose what a gate
	// guards by a rewrite: a pod's spec and a Job's spec (its pod template
	// above all) are immutable, and so are the specs of ResourceClaims,
	// ResourceClaimTemplates and ResourcePoolStatusRequests (validation
	// refuses any change: the on → use → off harness saw clear-fields
	// retry them forever). Their derived tasks wait for the objects to go.
	immutable = map[schema.GroupResource]bool{
		api.Resource("pods"):   true,
		batch.Resource("jobs"): true,
		{Group: "resource.k8s.io", Resource: "resourceclaims"}:             true,
		{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}:     true,
		{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}: true,
	}
	podResource = api.Resource("pods")
	jobResource = batch.Resource("jobs")
)

// Registry returns the lifecycle registry transitions are planned from:
// the lifecycles Derived from the gate inventory for the resources of
// catalog (the stores of the apiserver that runs the tasks; nil: no
// lifecycle is derived), with every explicit entry of Lifecycles in place
// of the derived one of its gate, and the built-in version-keyed tasks
// (StorageVersionMigrations) added to the lifecycle of their gate.
func Registry(catalog *storecatalog.Catalog) map[featuregate.Feature]Lifecycle {
	var derived map[featuregate.Feature]Lifecycle
	err := errors.New("no store catalog to derive lifecycles for")
	if catalog != nil {
		derived, err = Derived(catalog)
	}
	if err != nil {
		// The inventory is checked by unit tests and make verify; a
		// binary built from a tree that passes them cannot get here.
		klog.ErrorS(err, "Deriving lifecycles from the gate inventory; using the explicit registrations only")
	}
	out := make(map[featuregate.Feature]Lifecycle, len(derived)+len(Lifecycles))
	maps.Copy(out, derived)
	maps.Copy(out, Lifecycles)
	// The built-in version-keyed tasks: storage version migrations.
	vc, err := inventory.LoadVersionChanges()
	if err == nil {
		var migrations map[featuregate.Feature]Lifecycle
		if migrations, err = StorageVersionMigrations(vc); err == nil {
			withVersionTasks(out, migrations)
		}
	}
	if err != nil {
		// Checked by unit tests and make verify, as above.
		klog.ErrorS(err, "Building the storage version migrations; none will run")
	}
	return out
}

// Derived returns the lifecycle of every gate the inventory
// (pkg/features/inventory) lists with a footprint, for the resources of
// catalog, with no per-gate code:
//
//  1. clear-fields: ClearFields of exactly the paths the inventory records
//     for the gate, on every resource whose objects may be rewritten;
//  2. clear-pod-template-fields (opt-in: it rolls out new pods): the pod
//     spec paths, cleared from the pod template of every workload but
//     Jobs;
//  3. wait-for-no-jobs and wait-for-no-pods: WaitForAbsence of Jobs and
//     pods that use the paths (their specs are immutable), naming them;
//     wait-for-unused-<resource> likewise for the other immutable
//     resources (ResourceClaims, ResourceClaimTemplates,
//     ResourcePoolStatusRequests);
//  4. wait-for-no-<resource>-values: WaitForAbsence of the objects of a
//     resource that set a field to a value upstream's validation refuses
//     with the gate off (the inventory's refusedValues), naming the field
//     and the values; wait-for-writable-<resource>: of the objects the
//     resource's validation refuses with the gate off at a field where it
//     refuses values only in relation to others (the inventory's
//     relationalValues, but those it says need no task);
//  5. delete-<resource> (opt-in) and wait-for-no-<resource>: deleting and
//     waiting for the objects of every resource served only while the
//     gate is on (nobody can reach them through the API once it is off).
//
// A pod spec path the inventory found under one workload (or pods) is
// applied to all of them: upstream drops pod spec fields with one function
// for pods and every template, and the fuzzers do not pick every one-of
// choice for every resource. Paths the strategy only changes (derived
// values) are never cleared. A path the strategy drops only for some of
// its values (the inventory's keeps: an init container's restartPolicy but
// Always) is neither cleared nor waited for where it holds a kept value;
// a pod spec path keeps the values any resource keeps (one function drops
// them for all).
//
// A path whose clearing upstream refuses to store (inventory.RefusedRewrites:
// an immutable field, a one-of left with no choice) is not cleared: objects
// that set it are waited for (wait-for-unused-<resource>), the message
// saying why; such a path of a pod template is left out of
// clear-pod-template-fields.
//
// A resource catalog has no store of (kube-apiserver does not serve it:
// its API version is not enabled, say) gets no task: nothing can reach
// its stored objects.
func Derived(catalog *storecatalog.Catalog) (map[featuregate.Feature]Lifecycle, error) {
	inv, err := inventory.Load()
	if err != nil {
		return nil, err
	}
	refused, err := inventory.LoadRefusedRewrites()
	if err != nil {
		return nil, err
	}
	return DeriveFrom(inv, refused, catalog)
}

// DeriveFrom derives the lifecycles of inv's gates for the resources of
// catalog (see Derived), with the rewrites refused tells (nil: none known,
// as the generator that finds them starts).
func DeriveFrom(inv *inventory.Inventory, refused *inventory.RefusedRewrites, catalog *storecatalog.Catalog) (map[featuregate.Feature]Lifecycle, error) {
	if refused == nil {
		refused = &inventory.RefusedRewrites{}
	}
	for _, r := range slices.Sorted(maps.Keys(inv.Resources)) {
		if _, ok := catalog.Lookup(schema.ParseGroupResource(r)); !ok {
			klog.V(2).InfoS("Deriving no lifecycle task for a resource without a registry store in this apiserver", "resource", r)
		}
	}
	templates, err := podTemplatePrefixes(inv, catalog.NewObject)
	if err != nil {
		return nil, err
	}
	out := map[featuregate.Feature]Lifecycle{}
	gates := slices.Sorted(maps.Keys(inv.Gates))
	for _, g := range slices.Sorted(maps.Keys(inv.ResourcesServedOnlyWith)) {
		if _, ok := inv.Gates[g]; !ok {
			gates = append(gates, g)
		}
	}
	for _, g := range slices.Sorted(slices.Values(slices.Concat(slices.Collect(maps.Keys(inv.RefusedValues)), slices.Collect(maps.Keys(inv.StricterValues)), slices.Collect(maps.Keys(inv.RelationalValues))))) {
		if !slices.Contains(gates, g) {
			gates = append(gates, g)
		}
	}
	for _, g := range gates {
		lc, err := derive(inv, catalog, templates, refused.Refused(g), g)
		if err != nil {
			return nil, fmt.Errorf("deriving the lifecycle of %s from the gate inventory: %w", g, err)
		}
		out[featuregate.Feature(g)] = lc
	}
	return out, nil
}

// derive builds one gate's lifecycle (see Derived); refused are, per
// resource, the paths whose clearing is refused, with why.
func derive(inv *inventory.Inventory, catalog *storecatalog.Catalog, templates map[schema.GroupResource]gatedfield.Path,
	refused map[schema.GroupResource]map[string]string, gate string) (Lifecycle, error) {
	var (
		fp       = inv.Gates[gate]
		podSpec  = map[string]gatedfield.Path{}                 // relative to a pod spec
		own      = map[schema.GroupResource][]gatedfield.Path{} // other paths
		lc       Lifecycle
		paths    = fp.FieldPaths()
		resource = slices.SortedFunc(maps.Keys(paths), compareGR)
		// keeps are the kept values of a path, by resource and path.
		keeps   = map[schema.GroupResource]map[string][]string{}
		relKeep = map[string][]string{} // of pod spec paths
	)
	for _, gr := range resource {
		if _, ok := catalog.Lookup(gr); !ok {
			continue
		}
		keeps[gr] = map[string][]string{}
		for _, p := range leaves(paths[gr]) {
			kept := fp.KeptValues(gr, p.String())
			if prefix, ok := templates[gr]; ok {
				if rel, ok := p.TrimPrefix(prefix); ok {
					podSpec[rel.String()] = rel
					relKeep[rel.String()] = union(relKeep[rel.String()], kept)
					continue
				}
			}
			own[gr] = append(own[gr], p)
			keeps[gr][p.String()] = kept
		}
	}
	rel := make([]gatedfield.Path, 0, len(podSpec))
	for _, k := range slices.Sorted(maps.Keys(podSpec)) {
		rel = append(rel, podSpec[k])
	}
	rel = leaves(rel)
	// What each resource holds: its own paths, and the pod spec paths
	// under its template.
	holds := map[schema.GroupResource][]gatedfield.Path{}
	for gr, ps := range own {
		holds[gr] = append(holds[gr], ps...)
	}
	if len(rel) > 0 {
		for gr, prefix := range templates {
			if keeps[gr] == nil {
				keeps[gr] = map[string][]string{}
			}
			for _, r := range rel {
				p := prefix.Join(r)
				holds[gr] = append(holds[gr], p)
				keeps[gr][p.String()] = relKeep[r.String()]
			}
		}
	}

	// 1. Fields of objects that may be rewritten.
	var clear []tasks.FieldClearer
	var cleared []string
	for _, gr := range slices.SortedFunc(maps.Keys(own), compareGR) {
		// Refusals are of rewrites through gr's own strategy: not of status
		// written through its status subresource.
		spec, status := splitStatus(catalog, gr, own[gr])
		spec = allowed(spec, refused[gr])
		if len(spec) > 0 && !immutable[gr] {
			c, err := pathClearer(inv, catalog, gr, spec, keeps[gr])
			if err != nil {
				return lc, err
			}
			clear = append(clear, c)
			cleared = append(cleared, fmt.Sprintf("%s of %s", describePaths(spec, keeps[gr]), gr.String()))
		}
		// Status, through the status subresource: also of the resources
		// whose spec is immutable (pods, Jobs).
		if len(status) > 0 {
			c, err := pathClearer(inv, catalog, gr, status, keeps[gr])
			if err != nil {
				return lc, err
			}
			c.Status = true
			clear = append(clear, c)
			cleared = append(cleared, fmt.Sprintf("%s of %s", describePaths(status, keeps[gr]), gr.String()))
		}
	}
	if len(clear) > 0 {
		lc.OnDisable = append(lc.OnDisable, tasks.ClearFieldsOf(DerivedClearFieldsTask,
			shorten(fmt.Sprintf("Clear what %s guards from every stored object: %s.", gate, strings.Join(cleared, "; "))), clear))
	}

	// 2. Pod templates (opt-in), but of ephemeral containers: upstream's
	// validation refuses them in a pod template (ValidatePodTemplateSpec),
	// so no template holds what a gate guards under them.
	inTemplates := slices.DeleteFunc(slices.Clone(rel), func(r gatedfield.Path) bool { return r[0].Field == "ephemeralContainers" })
	if len(inTemplates) > 0 {
		var targets []tasks.FieldClearer
		for _, gr := range slices.SortedFunc(maps.Keys(templates), compareGR) {
			if immutable[gr] {
				continue
			}
			ps := make([]gatedfield.Path, len(inTemplates))
			for i, r := range inTemplates {
				ps[i] = templates[gr].Join(r)
			}
			if ps = allowed(ps, refused[gr]); len(ps) == 0 {
				continue
			}
			c, err := pathClearer(inv, catalog, gr, ps, keeps[gr])
			if err != nil {
				return lc, err
			}
			targets = append(targets, c)
		}
		if len(targets) > 0 {
			specKeep := map[string][]string{}
			for i, p := range podSpecPaths(inTemplates) {
				specKeep[p.String()] = relKeep[inTemplates[i].String()]
			}
			lc.OnDisable = append(lc.OnDisable, tasks.OptIn(tasks.ClearFieldsOf(DerivedClearTemplatesTask,
				shorten(fmt.Sprintf("Clear %s of pod specs from the pod template of every workload (but Jobs); this rolls out new pods.", describePaths(podSpecPaths(inTemplates), specKeep))), targets)))
		}
	}

	// 3. Objects that cannot be rewritten: Jobs and pods, then the other
	// immutable resources the gate has paths in.
	waits := []struct {
		gr   schema.GroupResource
		name string
	}{{jobResource, DerivedWaitForJobsTask}, {podResource, DerivedWaitForPodsTask}}
	for _, gr := range slices.SortedFunc(maps.Keys(immutable), compareGR) {
		if gr != jobResource && gr != podResource {
			waits = append(waits, struct {
				gr   schema.GroupResource
				name string
			}{gr, taskName(derivedWaitForImmutablePrefix, gr)})
		}
	}
	for _, w := range waits {
		ps, _ := splitStatus(catalog, w.gr, holds[w.gr]) // status is cleared above
		if len(ps) == 0 {
			continue
		}
		uses, err := pathHolder(inv, catalog, w.gr, ps, keeps[w.gr])
		if err != nil {
			return lc, err
		}
		lc.OnDisable = append(lc.OnDisable, tasks.WaitForAbsence(w.name,
			shorten(fmt.Sprintf("Wait until no %s sets %s; delete those %s to go on.", singular(w.gr), describePaths(ps, keeps[w.gr]), w.gr.Resource)),
			w.gr, shorten(describePaths(ps, keeps[w.gr])), uses))
	}
	// Paths upstream refuses to store objects without (but those of pod
	// templates, which only the opt-in task clears).
	for _, gr := range slices.SortedFunc(maps.Keys(refused), compareGR) {
		var ps []gatedfield.Path
		var whys []string
		for _, p := range own[gr] {
			if why, ok := refused[gr][p.String()]; ok {
				ps = append(ps, p)
				if !slices.Contains(whys, why) {
					whys = append(whys, why)
				}
			}
		}
		if len(ps) == 0 || immutable[gr] {
			continue
		}
		uses, err := pathHolder(inv, catalog, gr, ps, keeps[gr])
		if err != nil {
			return lc, err
		}
		why := strings.Join(whys, "; ")
		if len(why) > maxRefusalQuote {
			why = why[:maxRefusalQuote] + "..."
		}
		lc.OnDisable = append(lc.OnDisable, tasks.WaitForAbsence(taskName(derivedWaitForImmutablePrefix, gr),
			shorten(fmt.Sprintf("Wait until no %s sets %s: %s refuses to store one without them (%s). Delete those %s to go on.",
				singular(gr), describePaths(ps, keeps[gr]), gr.String(), why, gr.Resource)),
			gr, shorten(describePaths(ps, keeps[gr])), uses))
	}

	// 4. Values validation refuses with the gate off.
	values, err := valueTasks(inv, catalog, templates, gate)
	if err != nil {
		return lc, err
	}
	lc.OnDisable = append(lc.OnDisable, values...)
	// ... and only in relation to other values (derived_relational.go).
	related, err := relationalTasks(inv, catalog, templates, gate)
	if err != nil {
		return lc, err
	}
	lc.OnDisable = append(lc.OnDisable, related...)

	// 5. Resources served only with the gate.
	for _, gr := range inv.ServedOnlyWith(gate) {
		if example, err := catalog.NewObject(gr); err == nil {
			lc.OnDisable = append(lc.OnDisable, servedOnlyWithTasks(gate, gr, example)...)
		}
	}

	// 6. The other direction: values validation refuses once the gate is
	// on.
	stricter, err := stricterTasks(inv, catalog, templates, gate)
	if err != nil {
		return lc, err
	}
	lc.OnEnable = append(lc.OnEnable, stricter...)
	return lc, nil
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

// valueTasks are the tasks waiting for the objects that set a field to a
// value validation refuses once gate is off, one per resource. As for
// fields, a pod spec path found under one resource holding a pod spec is
// applied to all of them, with the values found under any.
func valueTasks(inv *inventory.Inventory, catalog *storecatalog.Catalog, templates map[schema.GroupResource]gatedfield.Path, gate string) ([]tasks.Task, error) {
	refused := inv.Refused(gate)
	if len(refused) == 0 {
		return nil, nil
	}
	byRes := throughTemplates(templates, refused)
	var out []tasks.Task
	for _, gr := range slices.SortedFunc(maps.Keys(byRes), compareGR) {
		if _, ok := catalog.Lookup(gr); !ok {
			continue
		}
		var (
			paths []gatedfield.Path
			keeps []func(interface{}) bool
			what  []string // "path V1 or V2", for the message
			sets  []string // "path to V1 or V2", for the description
		)
		for _, p := range slices.Sorted(maps.Keys(byRes[gr])) {
			values := byRes[gr][p]
			paths = append(paths, gatedfield.MustParse(p)) // checked by inventory.Parse
			keeps = append(keeps, allBut(values))
			what = append(what, fmt.Sprintf("%s %s", p, strings.Join(values, " or ")))
			sets = append(sets, fmt.Sprintf("%s to %s", p, strings.Join(values, " or ")))
		}
		uses, err := holder(inv, catalog, gr, paths, keeps, true)
		if err != nil {
			return nil, err
		}
		out = append(out, tasks.WaitForAbsence(valuesTaskName(gr),
			shorten(fmt.Sprintf("Wait until no %s sets %s: validation refuses these values once %s is Disabled. Change or delete those %s to go on.",
				singular(gr), strings.Join(sets, "; "), gate, gr.Resource)),
			gr, shorten(strings.Join(what, "; ")), uses))
	}
	return out, nil
}

// throughTemplates returns values (by resource and path) with a pod spec
// path found under one resource holding a pod spec applied to all of them,
// with the values found under any.
func throughTemplates(templates map[schema.GroupResource]gatedfield.Path, values map[schema.GroupResource]map[string][]string) map[schema.GroupResource]map[string][]string {
	byRes := map[schema.GroupResource]map[string][]string{}
	add := func(gr schema.GroupResource, p string, values []string) {
		if byRes[gr] == nil {
			byRes[gr] = map[string][]string{}
		}
		byRes[gr][p] = union(byRes[gr][p], values)
	}
	rel := map[string][]string{}
	for gr, paths := range values {
		for p, vs := range paths {
			if prefix, ok := templates[gr]; ok {
				if r, ok := gatedfield.MustParse(p).TrimPrefix(prefix); ok { // checked by inventory.Parse
					rel[r.String()] = union(rel[r.String()], vs)
					continue
				}
			}
			add(gr, p, vs)
		}
	}
	for gr, prefix := range templates {
		for r, vs := range rel {
			add(gr, prefix.Join(gatedfield.MustParse(r)).String(), vs)
		}
	}
	return byRes
}

// allBut returns a keep function accepting every value but the strings
// values.
func allBut(values []string) func(interface{}) bool {
	refused := gatedfield.KeepStrings(values)
	return func(v interface{}) bool { return !refused(v) }
}

// valuesTaskName names the task waiting for the objects of gr that set
// refused values, a DNS label of at most 63 characters.
func valuesTaskName(gr schema.GroupResource) string {
	name := derivedWaitForResourcePrefix + strings.ReplaceAll(gr.String(), ".", "-")
	if limit := 63 - len(derivedWaitForValuesSuffix); len(name) > limit {
		name = strings.TrimRight(name[:limit], "-")
	}
	return name + derivedWaitForValuesSuffix
}

// servedOnlyWithTasks are the tasks of a resource served only while gate is
// on: deleting its stored objects (opt-in), then waiting until none is
// stored. While the Feature is Disabling kube-apiserver serves the
// resource to read and delete (pkg/featurelifecycle/servewhiledisabling), so an
// admin can also delete them by hand; once it is Disabled nobody can.
func servedOnlyWithTasks(gate string, gr schema.GroupResource, example runtime.Object) []tasks.Task {
	return []tasks.Task{
		tasks.OptIn(tasks.DeleteObjects(taskName(derivedDeleteResourcePrefix, gr),
			shorten(fmt.Sprintf("Delete every stored %s: they are not served once %s is Disabled.", gr.String(), gate)), gr, example)),
		tasks.WaitForAbsence(taskName(derivedWaitForResourcePrefix, gr),
			shorten(fmt.Sprintf("Wait until no %s is stored: they are not served once %s is Disabled. Delete them (served to read and delete while the Feature is Disabling), or opt in to %s, to go on.",
				gr.String(), gate, taskName(derivedDeleteResourcePrefix, gr))),
			gr, "a resource served only with "+gate, func(runtime.Object) bool { return true }),
	}
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

// union returns the values of a and b, sorted, without repeats.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
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

var podSpecType = reflect.TypeFor[corev1.PodSpec]()

// podTemplatePrefixes finds, for every resource of the inventory whose
// objects hold a pod spec (pods and every workload), the path of that pod
// spec in the version the inventory compared it in, by walking the Go type
// of the objects newObject returns (a resource it has none of is left
// out).
func podTemplatePrefixes(inv *inventory.Inventory, newObject func(schema.GroupResource) (runtime.Object, error)) (map[schema.GroupResource]gatedfield.Path, error) {
	out := map[schema.GroupResource]gatedfield.Path{}
	for r := range inv.Resources {
		gr := schema.ParseGroupResource(r)
		obj, err := newObject(gr)
		if err != nil {
			continue // served without a store we can open: nothing to clear
		}
		gv, err := inv.Version(gr)
		if err != nil {
			return nil, err
		}
		kinds, _, err := legacyscheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return nil, err
		}
		versioned, err := legacyscheme.Scheme.New(gv.WithKind(kinds[0].Kind))
		if err != nil {
			return nil, err
		}
		if p := findPodSpec(reflect.TypeOf(versioned).Elem(), nil, 0); p != nil {
			out[gr] = p
		}
	}
	return out, nil
}

// findPodSpec returns the JSON path of the first corev1.PodSpec field in t,
// depth first, or nil.
func findPodSpec(t reflect.Type, prefix gatedfield.Path, depth int) gatedfield.Path {
	if depth > 6 || t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous || name == "" || name == "-" || name == "metadata" || name == "status" {
			continue
		}
		path := append(slices.Clone(prefix), gatedfield.Segment{Field: name})
		if ft == podSpecType {
			return path
		}
		if p := findPodSpec(ft, path, depth+1); p != nil {
			return p
		}
	}
	return nil
}

// taskName names a task on the objects of gr, a DNS label of at most 63
// characters.
func taskName(prefix string, gr schema.GroupResource) string {
	name := prefix + strings.ReplaceAll(gr.String(), ".", "-")
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	return name
}

// podSpecPaths returns paths relative to a pod spec as paths of a pod.
func podSpecPaths(rel []gatedfield.Path) []gatedfield.Path {
	spec := gatedfield.Path{{Field: "spec"}}
	out := make([]gatedfield.Path, len(rel))
	for i, r := range rel {
		out[i] = spec.Join(r)
	}
	return out
}

// describePaths is joinPaths saying, after a path with kept values, which
// values are left alone.
func describePaths(ps []gatedfield.Path, keep map[string][]string) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
		if k := keep[p.String()]; len(k) > 0 {
			s[i] += " (but " + strings.Join(k, ", ") + ")"
		}
	}
	return strings.Join(s, ", ")
}

func joinPaths(ps []gatedfield.Path) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

// shorten cuts s to maxDerivedDescription bytes, at a path boundary, and
// says how much it left out.
func shorten(s string) string {
	if len(s) <= maxDerivedDescription {
		return s
	}
	cut := strings.LastIndex(s[:maxDerivedDescription-32], ", ")
	if cut < 0 {
		cut = maxDerivedDescription - 32
	}
	return fmt.Sprintf("%s, ... (%d bytes more)", s[:cut], len(s)-cut)
}

func singular(gr schema.GroupResource) string {
	return strings.TrimSuffix(gr.Resource, "s")
}

func compareGR(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) }

// PodSpecPrefixes returns, for every resource of the gate inventory whose
// objects hold a pod spec (pods and every workload) and catalog has a
// store of, the path of that pod spec in the version the inventory
// compared it in (spec, template.spec, spec.template.spec, ...): where
// derived tasks look for pod spec paths.
func PodSpecPrefixes(catalog *storecatalog.Catalog) (map[schema.GroupResource]gatedfield.Path, error) {
	inv, err := inventory.Load()
	if err != nil {
		return nil, err
	}
	return podTemplatePrefixes(inv, catalog.NewObject)
}
