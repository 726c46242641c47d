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
	"slices"
	"sync"

	"github.com/go-logr/logr"

	"k8s.io/component-base/featuregate"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// gateSet is the changeable gates of a feature gate and what they depend on.
type gateSet struct {
	gate featuregate.MutableVersionedFeatureGate
	// changeable are the gates that can be turned on and off at the gate's
	// emulation version, sorted.
	changeable []featuregate.Feature
	// locked are the gates locked to their default, with it.
	locked map[featuregate.Feature]bool
	// dependents maps a gate to the gates that depend on it directly.
	dependents map[featuregate.Feature][]featuregate.Feature
	// dependencies maps a gate to the gates it depends on directly.
	dependencies map[featuregate.Feature][]featuregate.Feature
}

// special gates set others; they are no feature of their own.
var special = map[featuregate.Feature]bool{"AllAlpha": true, "AllBeta": true}

// newGateSet reads the gates of gate at its emulation version: every gate
// but AllAlpha, AllBeta, gates locked to their default and gates not
// available yet (pre-alpha) can be turned on and off. FeatureLifecycle is
// not examined and stays off: the inventory is of what upstream's code does,
// and with it on a resource served only with its gate is also served, read
// and delete only, while its gate is off.
func newGateSet(gate featuregate.MutableVersionedFeatureGate) *gateSet {
	s := &gateSet{
		gate:         gate,
		locked:       map[featuregate.Feature]bool{},
		dependents:   map[featuregate.Feature][]featuregate.Feature{},
		dependencies: gate.Dependencies(),
	}
	for name, spec := range gate.GetAll() {
		switch {
		case special[name], spec.PreRelease == featuregate.PreAlpha, name == kubefeatures.FeatureLifecycle:
		case spec.LockToDefault:
			s.locked[name] = spec.Default
		default:
			s.changeable = append(s.changeable, name)
		}
	}
	slices.Sort(s.changeable)
	for g, deps := range s.dependencies {
		for _, d := range deps {
			s.dependents[d] = append(s.dependents[d], g)
		}
	}
	for d := range s.dependents {
		slices.Sort(s.dependents[d])
	}
	return s
}

// closure returns g and every changeable gate that depends on it, directly
// or not, sorted: what has to be off for g to be off.
func (s *gateSet) closure(g featuregate.Feature) []featuregate.Feature {
	seen := map[featuregate.Feature]bool{g: true}
	queue := []featuregate.Feature{g}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range s.dependents[cur] {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	out := make([]featuregate.Feature, 0, len(seen))
	for f := range seen {
		if _, locked := s.locked[f]; !locked {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// enableable reports whether g can be on: all it depends on, directly or
// not, is changeable or locked on.
func (s *gateSet) enableable(g featuregate.Feature, seen map[featuregate.Feature]bool) bool {
	if seen[g] {
		return true
	}
	seen[g] = true
	if v, locked := s.locked[g]; locked {
		return v
	}
	for _, d := range s.dependencies[g] {
		if !s.enableable(d, seen) {
			return false
		}
	}
	return true
}

// allOn returns the value of every changeable gate with all of them on,
// except those that depend on a gate locked off, which stay off.
func (s *gateSet) allOn() map[string]bool {
	m := map[string]bool{}
	for _, g := range s.changeable {
		m[string(g)] = s.enableable(g, map[featuregate.Feature]bool{})
	}
	return m
}

// apply sets the changeable gates to m (quietly: setting a GA or deprecated
// gate logs a warning each time).
func (s *gateSet) apply(m map[string]bool) error {
	var err error
	if quiet, ok := s.gate.(interface {
		SetFromMapWithLogger(logr.Logger, map[string]bool) error
	}); ok {
		err = quiet.SetFromMapWithLogger(logr.Discard(), m)
	} else {
		err = s.gate.SetFromMap(m)
	}
	if err != nil {
		return fmt.Errorf("setting feature gates: %w", err)
	}
	return nil
}

// setAllOn turns every changeable gate on (see allOn).
func (s *gateSet) setAllOn() error {
	return s.apply(s.allOn())
}

// setAllOff turns every changeable gate off.
func (s *gateSet) setAllOff() error {
	m := s.allOn()
	for g := range m {
		m[g] = false
	}
	return s.apply(m)
}

// setOff turns every changeable gate on but g and the gates that depend on
// it, which it turns off. It returns those it turned off.
func (s *gateSet) setOff(g featuregate.Feature) ([]featuregate.Feature, error) {
	m := s.allOn()
	off := s.closure(g)
	for _, f := range off {
		m[string(f)] = false
	}
	return off, s.apply(m)
}

// recordingGate is a feature gate that records which gates are read. The
// generator installs it as utilfeature.DefaultFeatureGate, which upstream's
// strategies read: a gate that PrepareForCreate does not read with every
// gate on cannot change its result when it alone is turned off (the run is
// the same up to the first read of it), so it need not be tried.
type recordingGate struct {
	featuregate.FeatureGate

	mu   sync.Mutex
	read map[featuregate.Feature]bool
}

// Enabled records that key was read and returns the wrapped gate's value.
func (r *recordingGate) Enabled(key featuregate.Feature) bool {
	r.mu.Lock()
	if r.read != nil {
		r.read[key] = true
	}
	r.mu.Unlock()
	return r.FeatureGate.Enabled(key)
}

// recordDuring returns the gates read while f runs.
func (r *recordingGate) recordDuring(f func()) map[featuregate.Feature]bool {
	r.mu.Lock()
	r.read = map[featuregate.Feature]bool{}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.read = nil
		r.mu.Unlock()
	}()
	f()
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.read)
}
