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

package reports

import (
	"cmp"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Liveness returns until when a report counts as live: the report does not
// count once that time has passed (a zero time: it does not count at all).
// Unbounded says it counts until an event says otherwise.
type Liveness func(r *Report) time.Time

// Unbounded is the liveness of a report that counts until an event (not
// the passing of time) says otherwise, such as a kube-apiserver's while it
// votes on desired state.
var Unbounded = time.Unix(1<<40, 0)

// maxReporters is how many reporters a use of component lists: every
// kube-apiserver, a sample of the others.
func maxReporters(component string) int {
	if component == featuresv1alpha1.APIServerComponent {
		return featuresv1alpha1.MaxAPIServerReporters
	}
	return featuresv1alpha1.MaxSampledReporters
}

// Aggregate returns the uses of gate in namespace that the live reports of
// x make, given the current uses: one entry per (component, value) pair
// that some live report has, listing every live kube-apiserver, or for
// other components a sample that keeps the reporters current lists for as
// long as they stay live with that value and fills up with others, so the
// sample changes only when one of its reporters goes. firstReportTime is
// kept for a pair already in current, now for a new one. The work is
// bounded by the samples, not by the number of reports, while the samples
// are full and live.
//
// It also returns the earliest time a listed reporter stops being live: the
// uses may change then without any event.
func Aggregate(x *Index, namespace, gate string, current []featuresv1alpha1.FeatureUse, live Liveness, now time.Time) ([]featuresv1alpha1.FeatureUse, time.Time) {
	pairs := x.Pairs(namespace, gate)
	slices.SortFunc(pairs, func(a, b Pair) int {
		if c := cmp.Compare(a.Component, b.Component); c != 0 {
			return c
		}
		return cmp.Compare(boolOrder(a.Enabled), boolOrder(b.Enabled))
	})
	var (
		uses []featuresv1alpha1.FeatureUse
		next time.Time
	)
	listed := func(until time.Time) {
		if until.Equal(Unbounded) {
			return
		}
		if next.IsZero() || until.Before(next) {
			next = until
		}
	}
	for _, p := range pairs {
		limit := maxReporters(p.Component)
		var cur *featuresv1alpha1.FeatureUse
		for i := range current {
			if current[i].Component == p.Component && current[i].Enabled == p.Enabled {
				cur = &current[i]
				break
			}
		}
		sample := sets.New[string]()
		if cur != nil {
			for _, id := range cur.Reporters {
				r := x.In(namespace+"/"+featuresv1alpha1.FeatureReportName(p.Component, id), gate, p)
				if r == nil || sample.Len() >= limit {
					continue
				}
				if until := live(r); until.After(now) {
					sample.Insert(id)
					listed(until)
				}
			}
		}
		if sample.Len() < limit {
			x.Each(namespace, gate, p, func(r *Report) bool {
				if sample.Has(r.Identity) {
					return true
				}
				if until := live(r); until.After(now) {
					sample.Insert(r.Identity)
					listed(until)
				}
				return sample.Len() < limit
			})
		}
		if sample.Len() == 0 {
			continue
		}
		first := metav1.NewTime(now)
		if cur != nil && !cur.FirstReportTime.IsZero() {
			first = cur.FirstReportTime
		}
		uses = append(uses, featuresv1alpha1.FeatureUse{
			Component:       p.Component,
			Enabled:         p.Enabled,
			Reporters:       sets.List(sample),
			FirstReportTime: first,
		})
	}
	return uses, next
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SamePairs reports whether two uses have the same (component, value) pairs
// and the same kube-apiserver reporters: they differ at most in the samples
// of other components.
func SamePairs(a, b []featuresv1alpha1.FeatureUse) bool {
	if len(a) != len(b) {
		return false
	}
	for _, u := range a {
		i := slices.IndexFunc(b, func(v featuresv1alpha1.FeatureUse) bool {
			return v.Component == u.Component && v.Enabled == u.Enabled
		})
		if i < 0 {
			return false
		}
		if u.Component == featuresv1alpha1.APIServerComponent && !sets.New(u.Reporters...).Equal(sets.New(b[i].Reporters...)) {
			return false
		}
	}
	return true
}
