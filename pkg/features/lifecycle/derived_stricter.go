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
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// derivedWaitForValidPrefix starts the name of the Enabling task that
// waits until no stored object of a resource holds a value validation
// refuses once the gate is on (wait-for-valid-<resource>).
const derivedWaitForValidPrefix = "wait-for-valid-"

// stricterTasks are the Enabling tasks of a gate whose validation is
// stricter when it is on (the inventory's stricterValues,
// StrictIPCIDRValidation): one per resource that can be read, waiting
// until no stored object gets an error from the resource's own create
// validation, as this apiserver runs it with the gate on, at one of the
// fields (or an element of it). Upstream ratchets these fields on update,
// so such an object keeps working; the task names it so that an admin
// changes it before relying on the new rules. As for the other
// directions, a pod spec path found under one resource holding a pod spec
// is applied to all of them. A resource catalog has no store of is not
// waited for; the inventory still lists it.
func stricterTasks(inv *inventory.Inventory, catalog *storecatalog.Catalog, templates map[schema.GroupResource]gatedfield.Path, gate string) ([]tasks.Task, error) {
	stricter := inv.Stricter(gate)
	if len(stricter) == 0 {
		return nil, nil
	}
	var out []tasks.Task
	byRes := throughTemplates(templates, stricter)
	for _, gr := range slices.SortedFunc(maps.Keys(byRes), compareGR) {
		if _, err := catalog.NewObject(gr); err != nil {
			klog.V(4).InfoS("Not waiting for objects validation refuses once the gate is on: the resource cannot be read", "gate", gate, "resource", gr.String())
			continue
		}
		paths := slices.Sorted(maps.Keys(byRes[gr]))
		var probes []string
		for _, p := range paths {
			probes = union(probes, byRes[gr][p])
		}
		refused, err := refusedAt(catalog, gr, paths)
		if err != nil {
			return nil, err
		}
		fields := strings.Join(paths, ", ")
		out = append(out, tasks.WaitForAbsence(taskName(derivedWaitForValidPrefix, gr),
			shorten(fmt.Sprintf("Wait until no %s sets %s to a value %s's validation refuses once %s is Enabled (such as %s). Upstream keeps accepting the stored value on update; change those %s to go on.",
				singular(gr), fields, gr.String(), gate, strings.Join(probes, " or "), gr.Resource)),
			gr, shorten(fmt.Sprintf("values of %s refused once %s is Enabled", fields, gate)), refused))
	}
	return out, nil
}

// errorIndices are the list indices and map keys of a validation error's
// field path.
var errorIndices = regexp.MustCompile(`\[[^]]*\]`)

// refusedAt returns a predicate for stored objects of gr (internal
// version) that the resource's create validation, as this binary runs it,
// refuses at one of paths or at an element of it (indices collapsed to
// [*]).
func refusedAt(catalog *storecatalog.Catalog, gr schema.GroupResource, paths []string) (func(runtime.Object) bool, error) {
	validate, err := catalog.CreateValidation(gr)
	if err != nil {
		return nil, err
	}
	example, err := catalog.NewObject(gr)
	if err != nil {
		return nil, err
	}
	kind := reflect.TypeOf(example)
	at := map[string]bool{}
	for _, p := range paths {
		at[p], at[p+"[*]"] = true, true
	}
	return func(obj runtime.Object) (refused bool) {
		if obj == nil || reflect.TypeOf(obj) != kind {
			return false
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return false
		}
		defer func() {
			if r := recover(); r != nil {
				// Counted as refused: the transition must not end on an
				// object it could not check.
				klog.ErrorS(nil, "Validating a stored object panicked", "resource", gr.String(), "object", klog.KObj(m), "panic", r)
				refused = true
			}
		}()
		ctx := genericapirequest.WithNamespace(context.Background(), m.GetNamespace())
		for _, e := range validate(ctx, obj.DeepCopyObject()) {
			if at[errorIndices.ReplaceAllString(e.Field, "[*]")] {
				return true
			}
		}
		return false
	}, nil
}
