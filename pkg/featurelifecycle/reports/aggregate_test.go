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
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func report(component, identity string, gates map[string]bool) *Report {
	return &Report{Namespace: "kube-system", Name: featuresv1alpha1.FeatureReportName(component, identity),
		Component: component, Identity: identity, Gates: gates, RenewTime: t0, LeaseDuration: 40 * time.Second}
}

// byRenewal is the liveness of the reports' own leases.
func byRenewal(r *Report) time.Time { return r.RenewTime.Add(r.LeaseDuration) }

func TestIndexSetReturnsChangedGates(t *testing.T) {
	x := NewIndex()
	if got := sorted(x.Set(report("kubelet", "n1", map[string]bool{"A": true, "B": false}))); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("a new report changes all its gates, got %v", got)
	}
	if got := x.Set(report("kubelet", "n1", map[string]bool{"A": true, "B": false})); len(got) != 0 {
		t.Fatalf("a renewal with the same values changes nothing, got %v", got)
	}
	if got := sorted(x.Set(report("kubelet", "n1", map[string]bool{"A": false, "C": true}))); !slices.Equal(got, []string{"A", "B", "C"}) {
		t.Fatalf("a switched, a dropped and a new gate change, got %v", got)
	}
	moved := report("kubelet", "n1", map[string]bool{"A": false, "C": true})
	moved.EmulationVersion = "1.37"
	if got := sorted(x.Set(moved)); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("a new emulation version changes every gate of the report (their descriptions), got %v", got)
	}
	if got := x.Pairs("kube-system", "B"); len(got) != 0 {
		t.Fatalf("no report has B any more, got pairs %v", got)
	}
	if got := sorted(x.Delete("kube-system/kubelet.n1")); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("a deleted report changes its gates, got %v", got)
	}
	if x.Len() != 0 || len(x.Pairs("kube-system", "A")) != 0 {
		t.Fatalf("the index must be empty: %d reports, pairs %v", x.Len(), x.Pairs("kube-system", "A"))
	}
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

func TestAggregate(t *testing.T) {
	x := NewIndex()
	x.Set(report("kube-apiserver", "apiserver-a", map[string]bool{"A": true}))
	x.Set(report("kube-scheduler", "host-1", map[string]bool{"A": false}))
	for i := range 20 {
		x.Set(report("kubelet", fmt.Sprintf("n%02d", i), map[string]bool{"A": i%10 != 0}))
	}
	// Another namespace's reports do not count.
	other := report("kubelet", "elsewhere", map[string]bool{"A": false})
	other.Namespace = "other"
	x.Set(other)

	uses, next := Aggregate(x, "kube-system", "A", nil, byRenewal, t0.Add(time.Second))
	want := []struct {
		component string
		enabled   bool
		reporters int
	}{{"kube-apiserver", true, 1}, {"kube-scheduler", false, 1}, {"kubelet", false, 2}, {"kubelet", true, 8}}
	if len(uses) != len(want) {
		t.Fatalf("uses %+v", uses)
	}
	for i, w := range want {
		if u := uses[i]; u.Component != w.component || u.Enabled != w.enabled || len(u.Reporters) != w.reporters || !u.FirstReportTime.Time.Equal(t0.Add(time.Second)) {
			t.Errorf("use %d: %+v, want %+v", i, u, w)
		}
	}
	if !next.Equal(t0.Add(40 * time.Second)) {
		t.Errorf("next change %v, want when the listed reports expire", next)
	}

	// The sample stays while its reporters stay live with the value; one
	// that switches is replaced by another.
	sample := uses[3].Reporters
	x.Set(report("kubelet", sample[0], map[string]bool{"A": false}))
	again, _ := Aggregate(x, "kube-system", "A", uses, byRenewal, t0.Add(2*time.Second))
	kept := again[3].Reporters
	if len(kept) != 8 || slices.Contains(kept, sample[0]) {
		t.Fatalf("a switched reporter must leave the sample: %v", kept)
	}
	for _, id := range sample[1:] {
		if !slices.Contains(kept, id) {
			t.Fatalf("the sample must keep %s while it is live with the value: %v", id, kept)
		}
	}
	if !again[3].FirstReportTime.Time.Equal(t0.Add(time.Second)) {
		t.Errorf("firstReportTime of a kept pair must stay, got %v", again[3].FirstReportTime)
	}
}

func TestAggregateDropsExpiredReports(t *testing.T) {
	x := NewIndex()
	x.Set(report("kube-controller-manager", "host-1", map[string]bool{"A": true}))
	fresh := report("kube-controller-manager", "host-2", map[string]bool{"A": false})
	fresh.RenewTime = t0.Add(30 * time.Second)
	x.Set(fresh)
	current := []featuresv1alpha1.FeatureUse{{Component: "kube-controller-manager", Enabled: true, Reporters: []string{"host-1"}, FirstReportTime: metav1.NewTime(t0)}}

	uses, next := Aggregate(x, "kube-system", "A", current, byRenewal, t0.Add(39*time.Second))
	if len(uses) != 2 || !next.Equal(t0.Add(40*time.Second)) {
		t.Fatalf("both live before host-1's report expires: %+v, next %v", uses, next)
	}
	uses, next = Aggregate(x, "kube-system", "A", uses, byRenewal, t0.Add(40*time.Second))
	if len(uses) != 1 || uses[0].Enabled || !next.Equal(t0.Add(70*time.Second)) {
		t.Fatalf("host-1's expired report must leave the uses: %+v, next %v", uses, next)
	}
	if uses, _ = Aggregate(x, "kube-system", "A", uses, func(*Report) time.Time { return Unbounded }, t0.Add(time.Hour)); len(uses) != 2 {
		t.Fatalf("unbounded liveness keeps every report: %+v", uses)
	}
}

func TestAggregateListsEveryAPIServer(t *testing.T) {
	x := NewIndex()
	for i := range 12 {
		x.Set(report("kube-apiserver", fmt.Sprintf("apiserver-%02d", i), map[string]bool{"A": true}))
	}
	uses, _ := Aggregate(x, "kube-system", "A", nil, byRenewal, t0)
	if len(uses) != 1 || len(uses[0].Reporters) != 12 {
		t.Fatalf("every kube-apiserver is listed, not a sample: %+v", uses)
	}
}

func TestSamePairs(t *testing.T) {
	use := func(component string, enabled bool, reporters ...string) featuresv1alpha1.FeatureUse {
		return featuresv1alpha1.FeatureUse{Component: component, Enabled: enabled, Reporters: reporters}
	}
	a := []featuresv1alpha1.FeatureUse{use("kube-apiserver", true, "a"), use("kubelet", true, "n1", "n2")}
	for _, tc := range []struct {
		name string
		b    []featuresv1alpha1.FeatureUse
		same bool
	}{
		{"another kubelet sample", []featuresv1alpha1.FeatureUse{use("kube-apiserver", true, "a"), use("kubelet", true, "n3")}, true},
		{"another apiserver", []featuresv1alpha1.FeatureUse{use("kube-apiserver", true, "a", "b"), use("kubelet", true, "n1", "n2")}, false},
		{"a new pair", append(slices.Clone(a), use("kubelet", false, "n9")), false},
		{"a pair gone", a[:1], false},
	} {
		if got := SamePairs(a, tc.b); got != tc.same {
			t.Errorf("%s: SamePairs %t, want %t", tc.name, got, tc.same)
		}
	}
}
