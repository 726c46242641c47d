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
	d := newDerivation(inv, catalog, templates, refused, gate)
	var lc Lifecycle
	// A transition runs a gate's tasks in this order.
	for _, step := range []func() ([]tasks.Task, error){
		d.clearTasks,    // 1. fields of objects that may be rewritten
		d.templateTasks, // 2. pod templates (opt-in)
		d.waitTasks,     // 3. objects that cannot be rewritten
		d.refusedTasks,  //    and those upstream refuses to store without a path
		func() ([]tasks.Task, error) { // 4. values validation refuses with the gate off
			return valueTasks(inv, catalog, templates, gate)
		},
		func() ([]tasks.Task, error) { // ... and only in relation to other values
			return relationalTasks(inv, catalog, templates, gate)
		},
		d.servedTasks, // 5. resources served only with the gate
	} {
		ts, err := step()
		if err != nil {
			return lc, err
		}
		lc.OnDisable = append(lc.OnDisable, ts...)
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

// union returns the values of a and b, sorted, without repeats.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
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
