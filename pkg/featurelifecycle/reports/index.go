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

// Package reports indexes the FeatureReports of the components' processes by
// gate and aggregates the live ones into the uses of a Feature: one entry
// per (component, value) pair with a sample of its reporters, so that a
// Feature is written when a pair appears or goes, not when a reporter does.
package reports

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Report is what the index keeps of one FeatureReport. It is never changed
// once indexed: a new version of the report replaces it.
type Report struct {
	// Namespace and Name of the FeatureReport.
	Namespace, Name string
	// Component and Identity of the reporting process.
	Component, Identity string
	// Gates are the reported values by gate.
	Gates map[string]bool
	// Modes are the managements the report states, by gate (gates it
	// states none for are not listed).
	Modes map[string]featuresv1alpha1.FeatureManagement
	// RenewTime is when the report was last written or renewed.
	RenewTime time.Time
	// LeaseDuration is how long after RenewTime the report counts as
	// live without a HolderLease; 0 when the report does not say.
	LeaseDuration time.Duration
	// HolderLease is the Lease whose renewal says the reporter is alive,
	// if any.
	HolderLease *featuresv1alpha1.FeatureReportLease
	// EmulationVersion is the emulation version ("major.minor") a
	// kube-apiserver's values hold for, from the report's
	// featuresv1alpha1.EmulationVersionAnnotation; empty when it is not
	// stated.
	EmulationVersion string
	// StartTime is when the reporting process started; zero when the
	// report does not say.
	StartTime time.Time
	// Created is when the FeatureReport was created: when the component
	// first reported.
	Created time.Time
}

// NewReport returns what the index keeps of r.
func NewReport(r *featuresv1alpha1.FeatureReport) *Report {
	out := &Report{
		Namespace: r.Namespace, Name: r.Name,
		Component: r.Spec.Component, Identity: r.Spec.Identity,
		Gates:       make(map[string]bool, len(r.Spec.Gates)),
		HolderLease: r.Spec.HolderLease,

		EmulationVersion: r.Annotations[featuresv1alpha1.EmulationVersionAnnotation],
	}
	for _, g := range r.Spec.Gates {
		out.Gates[g.Name] = g.Enabled
		if g.Management != "" {
			if out.Modes == nil {
				out.Modes = map[string]featuresv1alpha1.FeatureManagement{}
			}
			out.Modes[g.Name] = g.Management
		}
	}
	if r.Spec.RenewTime != nil {
		out.RenewTime = r.Spec.RenewTime.Time
	}
	if r.Spec.LeaseDurationSeconds != nil {
		out.LeaseDuration = time.Duration(*r.Spec.LeaseDurationSeconds) * time.Second
	}
	out.Created = r.CreationTimestamp.Time
	if r.Spec.StartTime != nil {
		out.StartTime = r.Spec.StartTime.Time
	}
	return out
}

// Key returns the report's namespace/name.
func (r *Report) Key() string { return r.Namespace + "/" + r.Name }

// Pair is a (component, value) pair of a gate's uses.
type Pair struct {
	Component string
	Enabled   bool
}

type gateKey struct{ namespace, gate string }

// Index holds the reports of a cluster by gate and by (component, value)
// pair. It is safe for concurrent use.
type Index struct {
	mu      sync.RWMutex
	reports map[string]*Report
	// pairs holds, per gate of a namespace, the keys of the reports of
	// each pair.
	pairs map[gateKey]map[Pair]map[string]struct{}
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{reports: map[string]*Report{}, pairs: map[gateKey]map[Pair]map[string]struct{}{}}
}

// Set indexes r in place of an earlier version of it, and returns the
// gates whose uses it changes: those it reports newly, no longer, or with
// another value.
func (x *Index) Set(r *Report) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.reports[r.Key()]
	x.reports[r.Key()] = r
	changed := sets.New[string]()
	if old != nil {
		for gate, enabled := range old.Gates {
			if now, ok := r.Gates[gate]; !ok || now != enabled {
				x.remove(old, gate, enabled)
				changed.Insert(gate)
			}
		}
	}
	for gate, enabled := range r.Gates {
		if old != nil {
			if was, ok := old.Gates[gate]; ok && was == enabled {
				continue
			}
		}
		x.add(r, gate, enabled)
		changed.Insert(gate)
	}
	if old != nil {
		// A new management alone changes nothing in the index, but the
		// Feature's decision on its management.
		for gate := range r.Gates {
			if old.Modes[gate] != r.Modes[gate] || old.EmulationVersion != r.EmulationVersion {
				// A new emulation version changes the description of
				// every Feature (the lowest version among the
				// apiservers), and whether its version-keyed tasks run.
				changed.Insert(gate)
			}
		}
	}
	return changed.UnsortedList()
}

// Delete removes the report with key namespace/name and returns the gates
// it reported.
func (x *Index) Delete(key string) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.reports[key]
	if old == nil {
		return nil
	}
	delete(x.reports, key)
	changed := make([]string, 0, len(old.Gates))
	for gate, enabled := range old.Gates {
		x.remove(old, gate, enabled)
		changed = append(changed, gate)
	}
	return changed
}

func (x *Index) add(r *Report, gate string, enabled bool) {
	g := gateKey{r.Namespace, gate}
	byPair := x.pairs[g]
	if byPair == nil {
		byPair = map[Pair]map[string]struct{}{}
		x.pairs[g] = byPair
	}
	p := Pair{r.Component, enabled}
	keys := byPair[p]
	if keys == nil {
		keys = map[string]struct{}{}
		byPair[p] = keys
	}
	keys[r.Key()] = struct{}{}
}

func (x *Index) remove(r *Report, gate string, enabled bool) {
	g := gateKey{r.Namespace, gate}
	p := Pair{r.Component, enabled}
	delete(x.pairs[g][p], r.Key())
	if len(x.pairs[g][p]) == 0 {
		delete(x.pairs[g], p)
	}
	if len(x.pairs[g]) == 0 {
		delete(x.pairs, g)
	}
}

// Get returns the report with key namespace/name, or nil.
func (x *Index) Get(key string) *Report {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.reports[key]
}

// Len returns the number of reports.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.reports)
}

// Reports returns every report.
func (x *Index) Reports() []*Report {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]*Report, 0, len(x.reports))
	for _, r := range x.reports {
		out = append(out, r)
	}
	return out
}

// Pairs returns the pairs some report of a namespace has for gate.
func (x *Index) Pairs(namespace, gate string) []Pair {
	x.mu.RLock()
	defer x.mu.RUnlock()
	byPair := x.pairs[gateKey{namespace, gate}]
	out := make([]Pair, 0, len(byPair))
	for p := range byPair {
		out = append(out, p)
	}
	return out
}

// Each calls visit with the reports of a pair of gate in a namespace, in no
// particular order, until visit returns false. visit must not change the
// index.
func (x *Index) Each(namespace, gate string, p Pair, visit func(*Report) bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for k := range x.pairs[gateKey{namespace, gate}][p] {
		if !visit(x.reports[k]) {
			return
		}
	}
}

// In returns the report with key namespace/name if it reports pair p for
// gate, else nil.
func (x *Index) In(key, gate string, p Pair) *Report {
	x.mu.RLock()
	defer x.mu.RUnlock()
	r := x.reports[key]
	if r == nil || r.Component != p.Component {
		return nil
	}
	if enabled, ok := r.Gates[gate]; !ok || enabled != p.Enabled {
		return nil
	}
	return r
}
