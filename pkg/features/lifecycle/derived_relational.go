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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// derivedWaitForWritablePrefix starts the name of the Disabling task that
// waits until no stored object of a resource is one validation refuses
// once the gate is off in relation to other values
// (wait-for-writable-<resource>).
const derivedWaitForWritablePrefix = "wait-for-writable-"

// ValidatesWithGateOff reports whether the task named task (of a derived
// lifecycle) finds
// the objects it holds by running the resource's own create validation as
// the process's feature gate has it: it holds them only while the gate is
// off, as it is in kube-apiserver while its Feature is Disabling (the
// apiservers were restarted with it off). A test or generator that
// inspects objects outside a transition turns the gate off around Holds.
func ValidatesWithGateOff(task string) bool {
	return strings.HasPrefix(task, derivedWaitForWritablePrefix)
}

// relationalTasks are the Disabling tasks of the inventory's
// relationalValues of gate: one WaitForAbsence per resource, holding the
// stored objects the resource's own create validation, as this apiserver
// runs it (with the gate off), refuses at one of the fields. Nothing is
// cleared: which of the related values to drop is the user's choice, and
// an immutable object (a pod) cannot be changed. Fields with noneNeeded
// (what kube-apiserver wrote itself into objects that stay writable and
// are no template) get no task. As for the other directions, a pod spec
// field found under one resource holding a pod spec is applied to all of
// them, but content kube-apiserver wrote (prepared) only to pod
// templates, and not where the inventory says no task is needed.
func relationalTasks(inv *inventory.Inventory, catalog *storecatalog.Catalog, templates map[schema.GroupResource]gatedfield.Path, gate string) ([]tasks.Task, error) {
	held := heldRelational(inv, templates, gate)
	var out []tasks.Task
	for _, gr := range slices.SortedFunc(maps.Keys(held), compareGR) {
		if _, err := catalog.NewObject(gr); err != nil {
			klog.V(4).InfoS("Not holding objects validation refuses once the gate is off: the resource cannot be read", "gate", gate, "resource", gr.String())
			continue
		}
		paths := slices.Sorted(maps.Keys(held[gr]))
		refused, err := refusedAt(catalog, gr, paths)
		if err != nil {
			return nil, err
		}
		fields := strings.Join(paths, ", ")
		out = append(out, tasks.WaitForAbsence(taskName(derivedWaitForWritablePrefix, gr),
			shorten(fmt.Sprintf("Wait until no %s is one %s's validation refuses at %s once %s is Disabled (such as %s): values accepted only together with the gate. Change or delete those %s to go on.",
				singular(gr), gr.String(), fields, gate, strings.Join(held[gr][paths[0]], " with "), gr.Resource)),
			gr, shorten(fmt.Sprintf("values of %s refused once %s is Disabled", fields, gate)), refused))
	}
	return out, nil
}

// HeldRelational returns, by resource, the fields (as the inventory writes
// them) at which the derived tasks of gate hold the objects validation
// refuses once it is off in relation to other values (relationalTasks),
// each with the probe that found it: what a fixture of the gate sets.
func HeldRelational(inv *inventory.Inventory, catalog *storecatalog.Catalog, gate string) (map[schema.GroupResource]map[string][]string, error) {
	templates, err := podTemplatePrefixes(inv, catalog.NewObject)
	if err != nil {
		return nil, err
	}
	return heldRelational(inv, templates, gate), nil
}

// heldRelational is HeldRelational with the pod spec prefixes known.
func heldRelational(inv *inventory.Inventory, templates map[schema.GroupResource]gatedfield.Path, gate string) map[schema.GroupResource]map[string][]string {
	rel := inv.Relational(gate)
	held := map[schema.GroupResource]map[string][]string{} // field -> probe
	none := map[string]bool{}                              // "<resource> <pod spec relative field>"
	hold := func(gr schema.GroupResource, p string, probe []string) {
		if held[gr] == nil {
			held[gr] = map[string][]string{}
		}
		if _, ok := held[gr][p]; !ok {
			held[gr][p] = probe
		}
	}
	relative := func(gr schema.GroupResource, p string) (gatedfield.Path, bool) {
		prefix, ok := templates[gr]
		if !ok {
			return nil, false
		}
		return gatedfield.MustParse(p).TrimPrefix(prefix) // checked by inventory.Parse
	}
	for gr, fields := range rel {
		for p, r := range fields {
			if r.NoneNeeded == "" {
				continue
			}
			if rp, ok := relative(gr, p); ok {
				none[gr.String()+" "+rp.String()] = true
			}
		}
	}
	for _, gr := range slices.SortedFunc(maps.Keys(rel), compareGR) {
		for _, p := range slices.Sorted(maps.Keys(rel[gr])) {
			r := rel[gr][p]
			if r.NoneNeeded != "" {
				continue
			}
			hold(gr, p, r.Probe)
			rp, ok := relative(gr, p)
			if !ok {
				continue
			}
			prepared := r.Class == inventory.ClassPrepared || r.Class == inventory.ClassCopied
			for _, other := range slices.SortedFunc(maps.Keys(templates), compareGR) {
				if none[other.String()+" "+rp.String()] || (prepared && !isTemplate(templates[other])) {
					continue
				}
				hold(other, templates[other].Join(rp).String(), r.Probe)
			}
		}
	}
	return held
}

// isTemplate reports whether a pod spec at prefix is a pod template's
// (spec.template.spec, template.spec), not a pod's own.
func isTemplate(prefix gatedfield.Path) bool {
	return strings.Contains(prefix.String(), "template")
}
