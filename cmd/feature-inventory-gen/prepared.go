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
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// preparedTrial is a sample whose object, prepared with every gate on,
// validation with every gate off refuses at fields where it accepts the
// same object prepared with every gate off.
type preparedTrial struct {
	s    *sample
	on   map[string]bool
	cand map[string]bool
}

// findPrepared returns the footprints of the prepared probe: for every
// sample, the object PrepareForCreate made with every gate on (what
// kube-apiserver stores) is validated with every gate on, and with every
// changeable gate off beside the object PrepareForCreate makes with every
// gate off (what the user's object becomes with the gates off); a field
// refused only in the first, with a gate PrepareForCreate read off, is
// content the strategy wrote with the gate on that validation with it off
// refuses. Each is then judged (judgePrepared) and tried in pod templates
// (copiedIntoTemplates).
func findPrepared(inv *inventory, gs *gateSet, samples []*sample, note func(string, ...interface{})) (findings, error) {
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	trials := make([]*preparedTrial, len(samples))
	parallel(len(samples), func(i int) {
		errs, err := validate(samples[i].res, samples[i].onInt)
		if err == nil {
			trials[i] = &preparedTrial{s: samples[i], on: errorFields(errs)}
		}
	})
	if err := gs.setAllOff(); err != nil {
		return nil, err
	}
	parallel(len(trials), func(i int) {
		t := trials[i]
		if t == nil {
			return
		}
		if cand, err := preparedRefusals(t.s, t.on, nil); err == nil {
			t.cand = cand
		}
	})
	var cands []*preparedTrial
	for _, t := range trials {
		if t != nil && len(t.cand) > 0 {
			cands = append(cands, t)
		}
	}
	progress("%d of %d objects prepared with every gate on are refused with every gate off where the same objects prepared with every gate off are not", len(cands), len(samples))
	out := findings{}
	for _, g := range gs.changeable {
		var mine []*preparedTrial
		for _, t := range cands {
			if t.s.reads[g] {
				mine = append(mine, t)
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
			found[i], _ = preparedRefusals(mine[i].s, mine[i].on, mine[i].cand)
		})
		for i, t := range mine {
			for _, f := range slices.Sorted(maps.Keys(found[i])) {
				gr := t.s.res.GroupResource
				fd := &relFinding{class: classPrepared, probe: []string{"PrepareForCreate with the gate on, " + t.s.trial}}
				fd.none = judgePrepared(inv, t.s, f)
				first := len(out[g][gr][f]) == 0
				out.add(g, gr, f, fd)
				if !first {
					continue
				}
				copies, err := copiedIntoTemplates(inv, gs, g, t.s, f, samples, note)
				if err != nil {
					return nil, err
				}
				for _, tgr := range sortedGRs(copies) {
					out.add(g, tgr, copies[tgr], &relFinding{class: classCopied, probe: []string{fmt.Sprintf("the pod spec PrepareForCreate of %s wrote with the gate on (%s), copied into the template", gr, t.s.trial)}})
				}
			}
		}
	}
	return out, gs.setAllOn()
}

// preparedRefusals returns, with the gates as they are, the fields
// (among only, when not nil) at which validation refuses s.onInt but not
// the object PrepareForCreate makes of s.obj now, nor s.onInt with every
// gate on (on).
func preparedRefusals(s *sample, on, only map[string]bool) (map[string]bool, error) {
	now, err := prepare(s.res, s.obj)
	if err != nil {
		return nil, err
	}
	stored, err := validate(s.res, s.onInt)
	if err != nil {
		return nil, err
	}
	fresh, err := validate(s.res, now)
	if err != nil {
		return nil, err
	}
	ef := errorFields(fresh)
	out := map[string]bool{}
	for f := range errorFields(stored) {
		if !on[f] && !ef[f] && (only == nil || only[f]) {
			out[f] = true
		}
	}
	return out, nil
}

// noneNeededPrepared is why content PrepareForCreate wrote with a gate on
// needs no task when turning the gate off (judgePrepared).
const noneNeededPrepared = "written by kube-apiserver (PrepareForCreate with the gate on), not by the user; with the gate off the stored object is still accepted on update (upstream's update validation ratchets it), and no object is created from it (it is no pod template): nothing refuses it, and it stays what the apiserver meant when it wrote it"

// judgePrepared returns why what PrepareForCreate wrote into s's object
// with a gate on (the gate now off), refused at field f by validation,
// needs no task, or "" when its objects must be held: it needs none when
// the resource's update validation, with the gate off, accepts the stored
// object unchanged (at f) and the object is no pod template (a controller
// creates objects from a template, and those creates are refused). The
// gates are as the caller set them.
func judgePrepared(inv *inventory, s *sample, f string) string {
	if p, ok := inv.podSpecs[s.res.GroupResource]; ok && strings.Contains(p, "template") {
		return ""
	}
	errs, err := validateUpdate(s.res, s.onInt, s.onInt)
	if err != nil || errorFields(errs)[f] {
		return ""
	}
	return noneNeededPrepared
}

// validateUpdate runs r's update validation (the strategy's
// ValidateUpdate) of old to obj, by a cluster admin.
func validateUpdate(r *resource, obj, old runtime.Object) (errs field.ErrorList, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ctx, err := requestContext(r, obj, "update", "")
	if err != nil {
		return nil, err
	}
	return r.Store.UpdateStrategy.ValidateUpdate(ctx, obj.DeepCopyObject(), old.DeepCopyObject()), nil
}

// copiedIntoTemplates tries the pod spec of s.onInt (PrepareForCreate's
// with every gate on), refused at f with gate g off, in the pod template
// of every resource holding one: a user who copies a stored pod's spec
// into a template (as kubectl get shows it) writes the apiserver's
// content there, and every object created from the template while the
// gate is off is refused. It returns, by template resource, the field of
// the copy that validation refuses with g off and accepts with every gate
// on. It leaves g off.
func copiedIntoTemplates(inv *inventory, gs *gateSet, g featuregate.Feature, s *sample, f string, samples []*sample, note func(string, ...interface{})) (map[schema.GroupResource]string, error) {
	from, ok := inv.podSpecs[s.res.GroupResource]
	if !ok || strings.Contains(from, "template") {
		return nil, nil
	}
	rel, ok := strings.CutPrefix(f, from+".")
	if !ok {
		return nil, nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.on)
	if err != nil {
		return nil, nil
	}
	specs := gatedfield.MustParse(from).Values(u)
	if len(specs) != 1 {
		return nil, nil
	}
	type copied struct {
		r     *resource
		obj   runtime.Object
		field string
	}
	var copies []copied
	for i := range inv.resources {
		r := &inv.resources[i]
		to, ok := inv.podSpecs[r.GroupResource]
		if !ok || !strings.Contains(to, "template") {
			continue
		}
		own := ownSamples(samples, r)
		if len(own) == 0 {
			continue
		}
		base := own[0]
		tu, err := runtime.DefaultUnstructuredConverter.ToUnstructured(base.on)
		if err != nil || gatedfield.MustParse(to).Replace(tu, runtime.DeepCopyJSONValue(specs[0])) == 0 {
			continue
		}
		versioned := reflect.New(reflect.TypeOf(base.on).Elem()).Interface().(runtime.Object)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tu, versioned); err != nil {
			note("%s: copying the pod spec of %s into its template: %v", r.GroupResource, s.res.GroupResource, err)
			continue
		}
		obj := r.Store.NewFunc()
		if err := legacyscheme.Scheme.Convert(versioned, obj, nil); err != nil {
			continue
		}
		ft := to + "." + rel
		if off, err := validate(r, obj); err == nil && errorFields(off)[ft] {
			copies = append(copies, copied{r, obj, ft})
		}
	}
	if len(copies) == 0 {
		return nil, nil
	}
	if err := gs.setAllOn(); err != nil {
		return nil, err
	}
	out := map[schema.GroupResource]string{}
	for _, c := range copies {
		if on, err := validate(c.r, c.obj); err == nil && !errorFields(on)[c.field] {
			out[c.r.GroupResource] = c.field
		}
	}
	_, err = gs.setOff(g)
	return out, err
}
