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

package cohort

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

func nodeRanks(seed string, n int) []uint64 {
	ranks := make([]uint64, n)
	for i := range ranks {
		ranks[i] = Rank(seed, fmt.Sprintf("0b6c6a2e-7f1d-4c1a-9a5e-%012d", i))
	}
	return ranks
}

// The default steps of a rollout over 20 and 200 nodes: each step holds
// exactly the count it asks for, and every member of a step stays in the
// next.
func TestWidenKeepsEveryMember(t *testing.T) {
	steps := []Size{{Count: 1}, {Percent: 10}, {Percent: 25}, {Percent: 50}, {Percent: 100}}
	for _, n := range []int{1, 3, 20, 200} {
		ranks := nodeRanks("feature-uid", n)
		var c Cohort
		if got := len(c.Members(ranks, nil)); got != 0 {
			t.Fatalf("n=%d: the zero cohort holds %d", n, got)
		}
		previous := map[int]bool{}
		for _, step := range steps {
			c = Widen(c, ranks, step)
			members := c.Members(ranks, nil)
			want := step.count(n)
			if len(members) != max(want, len(previous)) {
				t.Errorf("n=%d, step %+v: %d members, want %d", n, step, len(members), max(want, len(previous)))
			}
			now := map[int]bool{}
			for _, i := range members {
				now[i] = true
			}
			for i := range previous {
				if !now[i] {
					t.Errorf("n=%d, step %+v: node %d left the cohort", n, step, i)
				}
			}
			previous = now
		}
		if !c.All {
			t.Errorf("n=%d: after 100 %%, the cohort is %+v, want All", n, c)
		}
	}
}

// A node that joins after the first steps is a member exactly when its rank
// is below the threshold; nodes that leave do not change anyone's
// membership.
func TestMembershipDependsOnlyOnTheNode(t *testing.T) {
	ranks := nodeRanks("seed", 200)
	c := Widen(Widen(Cohort{}, ranks, Size{Count: 1}), ranks, Size{Percent: 25})
	before := c.Members(ranks, nil)
	// Half the nodes leave: the others keep their membership.
	kept := ranks[:100]
	after := c.Members(kept, nil)
	inKept := 0
	for _, i := range before {
		if i < 100 {
			inKept++
		}
	}
	if len(after) != inKept {
		t.Errorf("after half the nodes left, %d members, want the %d that were members", len(after), inKept)
	}
	// Different seeds pick different first canaries.
	first := func(seed string) int {
		r := nodeRanks(seed, 20)
		return Widen(Cohort{}, r, Size{Count: 1}).Members(r, nil)[0]
	}
	seen := map[int]bool{}
	for i := range 10 {
		seen[first(fmt.Sprintf("feature-%d", i))] = true
	}
	if len(seen) < 4 {
		t.Errorf("10 features picked %d distinct first nodes out of 20, want them spread", len(seen))
	}
}

func TestSelectorSteps(t *testing.T) {
	ranks := nodeRanks("seed", 4)
	sets := []labels.Labels{
		labels.Set{"zone": "a"}, labels.Set{"zone": "b"}, labels.Set{"zone": "a"}, labels.Set{},
	}
	zoneA, err := labels.Parse("zone=a")
	if err != nil {
		t.Fatal(err)
	}
	c := Widen(Cohort{}, ranks, Size{Selector: zoneA})
	got := c.Members(ranks, sets)
	if fmt.Sprint(got) != "[0 2]" {
		t.Errorf("zone=a: members %v, want [0 2]", got)
	}
	// A component without labels (an apiserver) is not picked by a selector.
	for _, r := range ranks {
		if c.Member(r, nil) {
			t.Errorf("rank %d without labels is a member of a selector-only cohort", r)
		}
	}
	c = Widen(c, ranks, Size{Percent: 50})
	if got := len(c.Members(ranks, sets)); got < 2 {
		t.Errorf("after 50 %%: %d members, want at least the two of zone a", got)
	}
	if !Widen(c, ranks, Size{Percent: 100}).All {
		t.Error("100 % is not every node")
	}
}

func TestRankSpread(t *testing.T) {
	// 1,000 nodes: about a tenth rank below a tenth of the range.
	ranks := nodeRanks("spread", 1000)
	below := 0
	for _, r := range ranks {
		if r < ^uint64(0)/10 {
			below++
		}
	}
	if below < 60 || below > 140 {
		t.Errorf("%d of 1000 ranks in the lowest tenth of the range, want about 100", below)
	}
}

func TestJitter(t *testing.T) {
	if Jitter(12345, 0) != 0 {
		t.Error("no spread, yet a wait")
	}
	for _, r := range nodeRanks("jitter", 100) {
		if j := Jitter(r, 30*time.Second); j < 0 || j >= 30*time.Second {
			t.Fatalf("jitter %v out of [0, 30s)", j)
		}
	}
}
