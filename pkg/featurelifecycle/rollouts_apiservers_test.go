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

package featurelifecycle

import (
	"slices"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/featuregate"
	"k8s.io/features/cohort"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
)

// apiServerRollout is a leader's view of a rollout on three apiservers.
type apiServerRollout struct {
	*rolloutFixture
	apiservers []string
	live       sets.Set[string]
}

func newAPIServerRollout(t *testing.T) *apiServerRollout {
	x := &apiServerRollout{rolloutFixture: newRolloutFixture(t, 20),
		apiservers: []string{"apiserver-3kqzv", "apiserver-9xw2m", "apiserver-ab4cd"}}
	x.live = sets.New(x.apiservers...)
	x.feature.Spec.Gate = "TestCanaryOnAPIServers"
	x.feature.Spec.Rollout.Steps = []featuresv1alpha1.FeatureRolloutStep{{Count: 1, SoakSeconds: ptr.To(int32(60))},
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"rack": "r1"}}, SoakSeconds: ptr.To(int32(60))},
		{Percent: 100, SoakSeconds: ptr.To(int32(60))}}
	x.r.canaries = map[featuregate.Feature]rollout.Scope{"TestCanaryOnAPIServers": rollout.APIServers}
	x.r.apiservers = func(time.Time) ([]string, sets.Set[string], error) { return x.apiservers, x.live, nil }
	return x
}

// members returns the apiservers the published cohort holds.
func (x *apiServerRollout) members() []string {
	r := x.feature.Status.Rollout
	c, err := cohort.FromAPI(r.Cohort)
	if err != nil {
		x.t.Fatal(err)
	}
	var out []string
	for _, id := range x.apiservers {
		if c.Member(cohort.Rank(r.Cohort.Seed, id), nil) {
			out = append(out, id)
		}
	}
	return out
}

// report makes apiserver id report the gate enabled or not, started at
// started, in a report created at created.
func (x *apiServerRollout) report(id string, enabled bool, created, started time.Time) {
	x.index.Set(&reports.Report{Namespace: KubeNamespace, Name: featuresv1alpha1.FeatureReportName(featuresv1alpha1.APIServerComponent, id),
		Component: featuresv1alpha1.APIServerComponent, Identity: id, Gates: map[string]bool{x.feature.Spec.Gate: enabled},
		Created: created, StartTime: started})
}

// TestRolloutOnAPIServers: a gate that canaries on apiservers picks its
// cohort among the apiservers by identity, one first, and widens once the
// member reports the new value; the nodes are not candidates, and a step
// with a label selector adds no apiserver.
func TestRolloutOnAPIServers(t *testing.T) {
	x := newAPIServerRollout(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r, _ := x.sync(now)
	if r.Scope != featuresv1alpha1.FeatureRolloutScopeAPIServers || r.Step != 1 || r.Members != 1 || r.Candidates != 3 {
		t.Fatalf("first pass: %+v", r)
	}
	first := x.members()
	if len(first) != 1 {
		t.Fatalf("cohort %v, want one apiserver", first)
	}
	long := now.Add(-time.Hour)
	for _, id := range x.apiservers {
		x.report(id, id == first[0], long, long)
	}
	r, _ = x.sync(now.Add(2 * time.Minute))
	if r.Step != 2 || r.Members != 1 || len(r.Cohort.Selectors) != 0 {
		t.Fatalf("the label step on apiservers: %+v, want step 2 with the same single member and no selectors", r)
	}
	r, _ = x.sync(now.Add(4 * time.Minute))
	if r.Step != 3 || r.Members != 3 || !slices.Contains(x.members(), first[0]) {
		t.Fatalf("the last step: %+v, members %v", r, x.members())
	}
	for _, id := range x.apiservers {
		x.report(id, true, long, long)
	}
	if r, _ = x.sync(now.Add(6 * time.Minute)); r.Phase != featuresv1alpha1.FeatureRolloutComplete {
		t.Fatalf("after every apiserver reported the new value: %+v", r)
	}
}

// TestRolloutOnAPIServersRollsBack: a member that stops renewing its
// identity lease, or restarts, fails the step; an apiserver that joins
// during the step is no restart.
func TestRolloutOnAPIServersRollsBack(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	long := now.Add(-time.Hour)
	for _, tc := range []struct {
		name   string
		fault  func(x *apiServerRollout, member string)
		reason string
	}{
		{"lease not renewed", func(x *apiServerRollout, member string) { x.live.Delete(member) }, rollout.ReasonAPIServerNotLive},
		{"restarted", func(x *apiServerRollout, member string) { x.report(member, true, long, now.Add(5*time.Second)) }, rollout.ReasonRestarted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newAPIServerRollout(t)
			x.sync(now)
			member := x.members()[0]
			for _, id := range x.apiservers {
				x.report(id, id == member, long, long)
			}
			// A fourth apiserver joins and starts after the step began.
			x.apiservers = append(x.apiservers, "apiserver-zz9yx")
			x.live.Insert("apiserver-zz9yx")
			x.report("apiserver-zz9yx", false, now.Add(2*time.Second), now.Add(2*time.Second))
			if r, _ := x.sync(now.Add(3 * time.Second)); r.Phase != featuresv1alpha1.FeatureRolloutProgressing {
				t.Fatalf("before the fault: %+v", r)
			}
			tc.fault(x, member)
			r, ev := x.sync(now.Add(10 * time.Second))
			if r.Phase != featuresv1alpha1.FeatureRolloutRolledBack || r.Reason != tc.reason || !strings.Contains(r.Message, member) || r.Members != 0 {
				t.Fatalf("after the fault: %+v, want RolledBack for %s naming %s", r, tc.reason, member)
			}
			if ev == nil || ev.reason != "Rollout"+tc.reason {
				t.Errorf("event %+v", ev)
			}
		})
	}
}
