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

package follow

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"

	"k8s.io/features/cohort"
)

// rolling returns the target of AlphaGate's Dynamic Feature rolling out
// from Disabled to Enabled, with cohort c.
func rolling(c featuresv1alpha1.FeatureCohort) *featuresv1alpha1.FeatureTarget {
	t := target("AlphaGate", dynamic, off, true)
	t.Spec.Rollout = &featuresv1alpha1.FeatureTargetRollout{Scope: featuresv1alpha1.FeatureRolloutScopeNodes, DesiredState: on, Cohort: c}
	return t
}

// TestFollowCohort: a kubelet takes the new value exactly when the cohort
// holds it; every other component keeps the old one until the rollout is
// complete.
func TestFollowCohort(t *testing.T) {
	const seed = "3c1e-uid"
	nodes := make([]string, 20)
	ranks := make([]uint64, len(nodes))
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%d", i)
		ranks[i] = cohort.Rank(seed, nodes[i])
	}
	c := cohort.Widen(cohort.Cohort{}, ranks, cohort.Size{Percent: 25})
	published := cohort.ToAPI(seed, c, nil)
	if _, err := strconv.ParseUint(published.Below, 10, 64); err != nil {
		t.Fatalf("below %q: %v", published.Below, err)
	}
	rack := metav1.LabelSelector{MatchLabels: map[string]string{"rack": "r1"}}
	withSelector := cohort.ToAPI(seed, cohort.Cohort{Selectors: []labels.Selector{labels.SelectorFromSet(labels.Set{"rack": "r1"})}}, []metav1.LabelSelector{rack})

	for _, tc := range []struct {
		name      string
		component string
		identity  string
		labels    labels.Set
		target    *featuresv1alpha1.FeatureTarget
		want      bool
	}{
		{"member", "kubelet", nodes[0], nil, rolling(published), c.Member(ranks[0], nil)},
		{"non-member kube-scheduler", "kube-scheduler", nodes[0], nil, rolling(published), false},
		{"all", "kube-scheduler", "", nil, rolling(featuresv1alpha1.FeatureCohort{Seed: seed, All: true}), true},
		{"nobody", "kubelet", nodes[0], nil, rolling(featuresv1alpha1.FeatureCohort{Seed: seed}), false},
		{"selected by label", "kubelet", "node-x", labels.Set{"rack": "r1"}, rolling(withSelector), true},
		{"not selected", "kubelet", "node-x", labels.Set{"rack": "r2"}, rolling(withSelector), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := newTestGate(t)
			opts := Options{Component: tc.component, Identity: tc.identity}
			if tc.labels != nil {
				opts.Labels = func() labels.Set { return tc.labels }
			}
			if err := NewFollower(g, fake.NewClientset(tc.target), opts).Start(ctx); err != nil {
				t.Fatal(err)
			}
			if got := g.Enabled("AlphaGate"); got != tc.want {
				t.Errorf("AlphaGate = %t, want %t", got, tc.want)
			}
		})
	}

	// Of the 20 nodes, exactly the cohort's members take the new value.
	members := 0
	for i, node := range nodes {
		ctx, cancel := context.WithCancel(context.Background())
		g := newTestGate(t)
		if err := NewFollower(g, fake.NewClientset(rolling(published)),
			Options{Component: "kubelet", Identity: node}).Start(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		if g.Enabled("AlphaGate") != c.Member(ranks[i], nil) {
			t.Errorf("%s: AlphaGate = %t, cohort membership %t", node, g.Enabled("AlphaGate"), c.Member(ranks[i], nil))
		}
		if g.Enabled("AlphaGate") {
			members++
		}
	}
	if members != 5 {
		t.Errorf("%d of 20 nodes took the new value at 25%%, want 5", members)
	}
}

// TestFollowCohortOfAPIServers: in a rollout on apiservers, exactly the
// kube-apiservers the cohort holds take the new value, and no kubelet does,
// whatever its name.
func TestFollowCohortOfAPIServers(t *testing.T) {
	const seed = "7f2a-uid"
	apiservers := []string{"apiserver-3kqzv", "apiserver-9xw2m", "apiserver-ab4cd"}
	ranks := make([]uint64, len(apiservers))
	for i, id := range apiservers {
		ranks[i] = cohort.Rank(seed, id)
	}
	c := cohort.Widen(cohort.Cohort{}, ranks, cohort.Size{Count: 1})
	target := rolling(cohort.ToAPI(seed, c, nil))
	target.Spec.Rollout.Scope = featuresv1alpha1.FeatureRolloutScopeAPIServers
	follows := func(component, identity string) bool {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		g := newTestGate(t)
		if err := NewFollower(g, fake.NewClientset(target.DeepCopy()), Options{Component: component, Identity: identity}).Start(ctx); err != nil {
			t.Fatal(err)
		}
		return g.Enabled("AlphaGate")
	}
	members := 0
	for i, id := range apiservers {
		got := follows(featuresv1alpha1.APIServerComponent, id)
		if got != c.Member(ranks[i], nil) {
			t.Errorf("%s: AlphaGate = %t, cohort membership %t", id, got, c.Member(ranks[i], nil))
		}
		if got {
			members++
			if follows("kubelet", id) {
				t.Errorf("a kubelet named %s took the new value of a rollout on apiservers", id)
			}
		}
	}
	if members != 1 {
		t.Errorf("%d of 3 apiservers took the new value at a count of 1, want 1", members)
	}
}
