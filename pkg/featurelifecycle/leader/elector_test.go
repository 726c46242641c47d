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
package leader

import (
	"errors"
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

func leaseLister(t *testing.T, leases ...*coordinationv1.Lease) coordinationlisters.LeaseLister {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, l := range leases {
		if err := indexer.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	return coordinationlisters.NewLeaseLister(indexer)
}

func feature(name string, uses ...featuresv1alpha1.FeatureUse) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: name},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: name},
		Status:     featuresv1alpha1.FeatureStatus{Uses: uses},
	}
}

func use(component string, enabled bool, reporters ...string) featuresv1alpha1.FeatureUse {
	return featuresv1alpha1.FeatureUse{Component: component, Enabled: enabled, Reporters: reporters}
}

func fixedClock() time.Time { return testNow }

// threeLive returns leases for live apiservers a, b, c and a stale one, d.
func threeLive() []*coordinationv1.Lease {
	return []*coordinationv1.Lease{
		identityLease("a", renewedAgo(time.Second)),
		identityLease("b", renewedAgo(2*time.Second)),
		identityLease("c", renewedAgo(3*time.Second)),
		identityLease("d", renewedAgo(10*time.Minute)),
		// Not an identity lease, and an identity-labelled lease outside kube-system.
		identityLease("x", renewedAgo(time.Second), withLabels(map[string]string{"other": "lease"})),
		identityLease("y", renewedAgo(time.Second), inNamespace("default")),
	}
}

func TestElectorCandidates(t *testing.T) {
	lister := leaseLister(t, threeLive()...)
	e := NewElector("a", lister, DefaultLivenessWindow, fixedClock)
	for _, tc := range []struct {
		name string
		f    *featuresv1alpha1.Feature
		want []string
	}{
		{
			name: "no uses: every live apiserver",
			f:    feature("f"),
			want: []string{"a", "b", "c"},
		},
		{
			name: "only other components report: every live apiserver",
			f:    feature("f", use("kubelet", true, "a", "b")),
			want: []string{"a", "b", "c"},
		},
		{
			name: "kube-apiserver reporters, both values",
			f: feature("f",
				use(KubeAPIServer, true, "b"),
				use(KubeAPIServer, false, "c"),
				use("kube-controller-manager", true, "a")),
			want: []string{"b", "c"},
		},
		{
			name: "dead and unknown reporters are dropped",
			f:    feature("f", use(KubeAPIServer, true, "c", "d", "zz")),
			want: []string{"c"},
		},
		{
			name: "only dead reporters: every live apiserver",
			f:    feature("f", use(KubeAPIServer, true, "d")),
			want: []string{"a", "b", "c"},
		},
		{
			name: "nil feature",
			f:    nil,
			want: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.Candidates(tc.f); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Candidates() = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestElectorLeads(t *testing.T) {
	lister := leaseLister(t, threeLive()...)
	electors := map[string]*Elector{}
	for _, name := range []string{"a", "b", "c", "d", "unknown"} {
		electors[name] = NewElector(name, lister, DefaultLivenessWindow, fixedClock)
	}
	live := []string{"a", "b", "c"}

	for _, name := range featureNames(100) {
		f := feature(name)
		want, ok := Leader(Key(f), live)
		if !ok {
			t.Fatal("no leader")
		}
		leaders := 0
		for self, e := range electors {
			got, ok := e.Leader(f)
			if !ok || got != want {
				t.Errorf("%s: Leader() = %q, %v, want %q", name, got, ok, want)
			}
			if e.Leads(f, false) {
				t.Errorf("%s: %s leads a gate it does not know", name, self)
			}
			if e.Leads(f, true) {
				leaders++
				if self != want {
					t.Errorf("%s: %s leads, want %s", name, self, want)
				}
			}
		}
		if leaders != 1 {
			t.Errorf("%s: %d leaders, want 1", name, leaders)
		}
	}
}

func TestElectorLeadsAmongReporters(t *testing.T) {
	lister := leaseLister(t, threeLive()...)
	// Find a feature that a leads when every live apiserver is a candidate.
	var name string
	for _, n := range featureNames(100) {
		if l, _ := Leader(Key(feature(n)), []string{"a", "b", "c"}); l == "a" {
			name = n
			break
		}
	}
	if name == "" {
		t.Fatal("no feature led by a")
	}
	a := NewElector("a", lister, DefaultLivenessWindow, fixedClock)
	if !a.Leads(feature(name), true) {
		t.Fatalf("a does not lead %s with no uses", name)
	}
	// Once only b and c report the gate under kube-apiserver, a no longer
	// leads even if it claims to know it; the leader is among b and c.
	f := feature(name, use(KubeAPIServer, true, "b"), use(KubeAPIServer, false, "c"))
	if a.Leads(f, true) {
		t.Errorf("a leads %s though it does not report it", name)
	}
	want, _ := Leader(Key(f), []string{"b", "c"})
	if got, _ := a.Leader(f); got != want {
		t.Errorf("Leader() = %s, want %s", got, want)
	}
	if !NewElector(want, lister, DefaultLivenessWindow, fixedClock).Leads(f, true) {
		t.Errorf("%s does not lead %s", want, name)
	}
}

func TestElectorSelfNotLive(t *testing.T) {
	// Only self's lease, renewed too long ago (or not yet seen): no leader at
	// all, and self certainly does not lead.
	for _, tc := range []struct {
		name   string
		leases []*coordinationv1.Lease
	}{
		{"stale", []*coordinationv1.Lease{identityLease("self", renewedAgo(time.Minute))}},
		{"not seen", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewElector("self", leaseLister(t, tc.leases...), DefaultLivenessWindow, fixedClock)
			f := feature("some-feature", use(KubeAPIServer, true, "self"))
			if e.Leads(f, true) {
				t.Errorf("self leads though its lease is not live")
			}
			if l, ok := e.Leader(f); ok {
				t.Errorf("Leader() = %q, want none", l)
			}
		})
	}

	// With another live apiserver, that one leads every feature.
	lister := leaseLister(t,
		identityLease("self", renewedAgo(time.Minute)),
		identityLease("other", renewedAgo(time.Second)))
	e := NewElector("self", lister, DefaultLivenessWindow, fixedClock)
	for _, name := range featureNames(50) {
		f := feature(name, use(KubeAPIServer, true, "self", "other"))
		if e.Leads(f, true) {
			t.Errorf("%s: self leads though its lease is not live", name)
		}
		if l, _ := e.Leader(f); l != "other" {
			t.Errorf("%s: Leader() = %q, want other", name, l)
		}
	}
}

func TestElectorClockAndWindow(t *testing.T) {
	lister := leaseLister(t, identityLease("a", renewedAgo(20*time.Second)))
	now := testNow
	e := NewElector("a", lister, 0 /* default */, func() time.Time { return now })
	f := feature("f")
	if !e.Leads(f, true) {
		t.Fatal("a does not lead with a lease renewed 20s ago")
	}
	now = now.Add(15 * time.Second)
	if e.Leads(f, true) {
		t.Fatal("a still leads 35s after its last renewal")
	}
	narrow := NewElector("a", lister, 10*time.Second, fixedClock)
	if narrow.Leads(f, true) {
		t.Fatal("a leads with a 10s window and a lease renewed 20s ago")
	}
}

type failingLister struct{}

func (failingLister) List(labels.Selector) ([]*coordinationv1.Lease, error) {
	return nil, errors.New("boom")
}

func (f failingLister) Leases(string) coordinationlisters.LeaseNamespaceLister { return f }

func (failingLister) Get(string) (*coordinationv1.Lease, error) { return nil, errors.New("boom") }

func TestElectorListerError(t *testing.T) {
	e := NewElector("a", failingLister{}, DefaultLivenessWindow, fixedClock)
	f := feature("f")
	if e.Leads(f, true) {
		t.Error("leads though leases cannot be listed")
	}
	if l, ok := e.Leader(f); ok {
		t.Errorf("Leader() = %q, want none", l)
	}
	if c := e.Candidates(f); len(c) != 0 {
		t.Errorf("Candidates() = %v, want none", c)
	}
}

func TestKey(t *testing.T) {
	if got := Key(feature("max-unavailable-stateful-set")); got != "kube-system/max-unavailable-stateful-set" {
		t.Errorf("Key() = %q", got)
	}
	f := feature("x")
	f.Namespace = ""
	if got := Key(f); got != "x" {
		t.Errorf("Key() = %q", got)
	}
}
