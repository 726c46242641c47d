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
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/pkg/features/lifecycle"
	lifecyclefixtures "k8s.io/kubernetes/test/integration/features/lifecycle"
)

// maxCauses bounds the validation causes recorded for a refused rewrite.
const maxCauses = 3

// refusedRewrites finds the paths of f's objects whose clearing upstream
// refuses to store, among the resources the gate's ClearFields tasks (as
// derived with no refused rewrite known: lc) clear: each object is stored with the gate on, then, for
// each path it sets, cleared of that path as the gate's derived
// clear-fields task would (lifecycle.PathClearer) and run through the
// resource's update strategy and validation with the gate off; a path is
// refused if clearing it along with the paths accepted so far is. It
// returns, per resource and path, what validation said, without the
// object's name.
func (g *generator) refusedRewrites(f *fixture, lc lifecycle.Lifecycle) (map[schema.GroupResource]map[string]string, error) {
	defer func() { _ = g.reset() }()
	// Only resources a clear-fields task clears: the others (pods, Jobs,
	// ...) are waited for anyway.
	cleared := map[schema.GroupResource]bool{}
	for _, task := range lc.OnDisable {
		// Opt-in tasks (pod templates) too: an admin who opts in must not
		// meet a rewrite upstream refuses.
		if o, ok := task.(interface{ Unwrap() tasks.Task }); ok {
			task = o.Unwrap()
		}
		if c, ok := task.(*tasks.ClearFieldsTask); ok {
			for _, gr := range c.Resources() {
				cleared[gr] = true
			}
		}
	}
	out := map[schema.GroupResource]map[string]string{}
	for _, o := range f.objects {
		if !cleared[o.resource] {
			continue
		}
		if err := g.setGate(f.gate, true); err != nil {
			return nil, err
		}
		stored, gr, err := lifecyclefixtures.Prepare(&unstructured.Unstructured{Object: deepCopy(o.obj)})
		if err != nil {
			continue // refused with the gate on: the fixture check says why
		}
		// As read from storage: an update carries the resourceVersion.
		if m, err := meta.Accessor(stored); err == nil {
			m.SetResourceVersion("1")
		}
		if err := g.setGate(f.gate, false); err != nil {
			return nil, err
		}
		// The paths cleared together that upstream accepts, grown one
		// path at a time in sorted order: a path refused alone may be
		// accepted along with another (a field that requires it), and a
		// path refused whatever else is cleared is refused.
		all := slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(o.paths), func(p string) bool {
			// Written through the status subresource, whose strategy, not
			// gr's, decides what it accepts: not tried here.
			parsed, err := gatedfield.Parse(p)
			return err == nil && lifecycle.ClearedThroughStatus(g.catalog, gr, parsed)
		})))
		if len(all) == 0 {
			continue
		}
		if err := g.clearAndUpdate(gr, stored, all); err == nil {
			continue // all of them at once (fields that require each other)
		}
		var accepted []string
		refusal := map[string]string{}
		for _, p := range all {
			try := append(slices.Clone(accepted), p)
			if err := g.clearAndUpdate(gr, stored, try); err != nil {
				var refused *refusedError
				if !errors.As(err, &refused) {
					return nil, err
				}
				refusal[p] = refused.causes
				continue
			}
			accepted = try
		}
		for p, why := range refusal {
			if out[gr] == nil {
				out[gr] = map[string]string{}
			}
			if _, seen := out[gr][p]; !seen {
				out[gr][p] = why
			}
		}
	}
	// Paths of a resource with refusals that no object could set (the
	// fixture's gates do not allow it): untested, waited for rather than
	// cleared.
	inventoried := g.inv.Gates[string(f.gate)].FieldPaths()
	for gr, refusals := range out {
		tested := map[string]bool{}
		for _, o := range f.objects {
			if o.resource == gr {
				for _, p := range o.paths {
					tested[p] = true
				}
			}
		}
		for _, p := range leaves(inventoried[gr]) {
			if lifecycle.ClearedThroughStatus(g.catalog, gr, p) {
				continue
			}
			if prefix, ok := g.prefixes[gr]; ok {
				if _, under := p.TrimPrefix(prefix); under {
					continue // a pod template path: only the opt-in task clears it
				}
			}
			if !tested[p.String()] {
				refusals[p.String()] = untested
			}
		}
	}
	return out, nil
}

// untested is the reason recorded for a path of a resource that refuses
// the clearing of other paths of the gate, when no fixture object could
// set the path to try it.
const untested = "not tried (no fixture object could set it), and clearing other paths of the gate from this resource is refused"

// refusedError is upstream's refusal of an update, summed up.
type refusedError struct{ causes string }

func (e *refusedError) Error() string { return e.causes }

// clearAndUpdate clears paths from a copy of stored, an object of gr, and
// runs the update of stored to the copy through upstream's strategy: a
// *refusedError if validation refuses it, another error if paths cannot
// be cleared.
func (g *generator) clearAndUpdate(gr schema.GroupResource, stored runtime.Object, paths []string) error {
	c, err := lifecycle.PathClearer(g.catalog, gr, paths...)
	if err != nil {
		return err
	}
	cleared := stored.DeepCopyObject()
	if !c.Clear(cleared) {
		return nil
	}
	if err := lifecyclefixtures.PrepareUpdate(stored, cleared); err != nil {
		return &refusedError{causes: causes(err)}
	}
	return nil
}

// causes says what a refusal holds: the field and message of its first
// causes in sorted order (an invalid object's name is left out), or its
// message.
func causes(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return err.Error()
	}
	// Sorted: validation walks maps in random order.
	var parts []string
	for _, c := range status.Status().Details.Causes {
		parts = append(parts, c.Field+": "+causeMessage(c))
	}
	slices.Sort(parts)
	parts = slices.Compact(parts)
	if n := len(parts); n > maxCauses {
		parts = append(parts[:maxCauses], fmt.Sprintf("%d more", n-maxCauses))
	}
	return strings.Join(parts, "; ")
}

// maxCauseMessage bounds the message of one cause.
const maxCauseMessage = 160

// causeMessage is a cause's message without the value it quotes (an
// invalid value may be a whole pod template) and only its first line.
func causeMessage(c metav1.StatusCause) string {
	msg, _, _ := strings.Cut(c.Message, "\n")
	if rest, ok := strings.CutPrefix(msg, "Invalid value: "); ok && c.Type == metav1.CauseType(field.ErrorTypeInvalid) {
		if i := strings.LastIndex(rest, ": "); i >= 0 {
			msg = "Invalid value: " + rest[i+2:]
		}
	}
	if len(msg) > maxCauseMessage {
		msg = msg[:maxCauseMessage] + "..."
	}
	return strings.TrimSpace(msg)
}

// renderRefused writes the refused rewrites file.
func renderRefused(refused map[featuregate.Feature]map[schema.GroupResource]map[string]string) ([]byte, error) {
	file := inventory.RefusedRewrites{Gates: map[string]map[string]map[string]string{}}
	paths := 0
	for gate, m := range refused {
		if len(m) == 0 {
			continue
		}
		file.Gates[string(gate)] = map[string]map[string]string{}
		for gr, ps := range m {
			file.Gates[string(gate)][gr.String()] = ps
			paths += len(ps)
		}
	}
	data, err := yaml.Marshal(file)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `# Code generated by cmd/lifecycle-fixtures-gen. DO NOT EDIT.
# Regenerate with hack/update-lifecycle-data.sh;
# hack/update-lifecycle-data.sh --check fails when this file is stale.
#
# For each gate whose lifecycle is derived from the gate inventory, the
# field paths of each resource whose clearing upstream refuses to store
# (an immutable field, a one-of left with no choice), with what validation
# said: the generator clears each path the gate's generated fixture sets,
# as the gate's clear-fields task would, and runs the resource's update
# strategy and validation with the gate off. pkg/features/lifecycle/derived.go waits
# for objects that set such a path to go (wait-for-unused-<resource>)
# instead of clearing it, and leaves such paths of pod templates out of
# the opt-in clearing of templates.
#
# Gates with a generated fixture examined: %d; gates with a refused path: %d; paths: %d.
`, len(refused), len(file.Gates), paths)
	b.Write(data)
	return b.Bytes(), nil
}
