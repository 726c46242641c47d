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

// Package cohort says which components of a canary rollout have the new
// value of a feature: the cohort. A component's membership depends only on
// its own identity (a node's UID, an apiserver's identity) and on a small
// Cohort value that the rollout publishes, so that a component decides for
// itself, a rollout widens by publishing a larger Cohort, and widening never
// takes the new value from a component that had it: every candidate has a
// rank, a hash of the rollout's seed and its identity, and the cohort is
// the candidates ranked below a threshold that only grows.
package cohort

import (
	"hash/fnv"
	"math"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// Rank returns the rank of the candidate with identity id in the rollout
// seeded with seed (the Feature's UID, so that each feature's canaries are
// different components). It is stable: it depends on nothing else.
func Rank(seed, id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(id))
	// FNV's low bits mix poorly for inputs that differ only at the end;
	// a final avalanche (SplitMix64's) spreads them over the whole range.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Cohort is who has the new value. The zero value is nobody.
type Cohort struct {
	// All: every candidate, including those that join later.
	All bool
	// Below: the candidates ranked below it.
	Below uint64
	// Selectors: also the candidates, nodes, whose labels one of them
	// matches.
	Selectors []labels.Selector
}

// Empty says whether the cohort is nobody.
func (c Cohort) Empty() bool {
	return !c.All && c.Below == 0 && len(c.Selectors) == 0
}

// Member says whether the candidate of rank rank, with labels set (nil
// for components without labels), is in the cohort.
func (c Cohort) Member(rank uint64, set labels.Labels) bool {
	if c.All || rank < c.Below {
		return true
	}
	if set == nil {
		return false
	}
	for _, s := range c.Selectors {
		if s.Matches(set) {
			return true
		}
	}
	return false
}

// Size is the size of a step of a rollout: a number of candidates, or a
// percentage of them, or the candidates a label selector matches.
type Size struct {
	// Count is a number of candidates (0: unset).
	Count int32
	// Percent is a percentage of the candidates, 1 to 100 (0: unset).
	Percent int32
	// Selector picks nodes by label (nil: unset).
	Selector labels.Selector
}

// count returns how many of total candidates the size asks for: Count, or
// Percent of total rounded up (so at least one of a non-empty set), never
// more than total. A selector's size is not a count: it returns 0.
func (s Size) count(total int) int {
	switch {
	case s.Percent > 0:
		return min(total, int(math.Ceil(float64(s.Percent)*float64(total)/100)))
	case s.Count > 0:
		return min(total, int(s.Count))
	}
	return 0
}

// Widen returns the cohort of the next step of size: previous, plus the
// lowest ranked of ranks (the current candidates' ranks) until the cohort
// holds as many as size asks for, or plus size's selector. It never drops
// a member of previous. 100 percent is every candidate, including those
// that join later.
func Widen(previous Cohort, ranks []uint64, size Size) Cohort {
	next := Cohort{All: previous.All, Below: previous.Below, Selectors: slices.Clone(previous.Selectors)}
	if next.All {
		return next
	}
	if size.Selector != nil {
		next.Selectors = append(next.Selectors, size.Selector)
		return next
	}
	if size.Percent >= 100 {
		return Cohort{All: true}
	}
	want := size.count(len(ranks))
	if want == 0 {
		return next
	}
	sorted := slices.Clone(ranks)
	slices.Sort(sorted)
	last := sorted[want-1]
	if last == math.MaxUint64 {
		return Cohort{All: true}
	}
	next.Below = max(next.Below, last+1)
	return next
}

// Members returns the indexes of ranks (and of sets, the candidates'
// labels, or nil) that the cohort holds.
func (c Cohort) Members(ranks []uint64, sets []labels.Labels) []int {
	var out []int
	for i, r := range ranks {
		var set labels.Labels
		if sets != nil {
			set = sets[i]
		}
		if c.Member(r, set) {
			out = append(out, i)
		}
	}
	return out
}

// Jitter returns how long the candidate of rank rank waits, at most
// spread, before it applies a change of the cohort that restarts it, so
// that the candidates do not restart in one herd.
func Jitter(rank uint64, spread time.Duration) time.Duration {
	if spread <= 0 {
		return 0
	}
	return time.Duration(rank % uint64(spread))
}
