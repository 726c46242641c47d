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

package rollout

import (
	"fmt"
	"strings"
	"testing"
)

func TestAnalyze(t *testing.T) {
	ok := func(name string) Member { return Member{Name: name, Reports: true} }
	many := func(n int, m func(i int) Member) []Member {
		var out []Member
		for i := range n {
			out = append(out, m(i))
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		health  Health
		t       Thresholds
		result  Result
		reason  string
		message string
	}{
		{name: "healthy", health: Health{Members: []Member{ok("a"), ok("b")}}, t: DefaultThresholds(),
			result: Pass, reason: ReasonHealthy, message: "all 2 components"},
		{name: "not reported yet", health: Health{Members: []Member{ok("a"), {Name: "b"}}}, t: DefaultThresholds(),
			result: Wait, reason: ReasonNotReported, message: "1 of the cohort's 2 components do not report the new value yet: b"},
		{name: "NotReady wins over a wait", health: Health{Members: []Member{{Name: "a", NotReady: true}, {Name: "b"}}}, t: DefaultThresholds(),
			result: Fail, reason: ReasonNodeNotReady, message: "1 of the cohort's 2 components NotReady (at most 0): a"},
		{name: "apiserver not live", health: Health{APIServers: true, Members: []Member{{Name: "apiserver-x", Reports: true, NotReady: true}}}, t: DefaultThresholds(),
			result: Fail, reason: ReasonAPIServerNotLive, message: "1 of the cohort's 1 apiservers stopped renewing their identity lease (at most 0): apiserver-x"},
		{name: "NotReady within the threshold", health: Health{Members: []Member{{Name: "a", Reports: true, NotReady: true}, ok("b")}},
			t: Thresholds{MaxNotReady: 1}, result: Pass, reason: ReasonHealthy},
		{name: "restarted", health: Health{Members: []Member{{Name: "a", Reports: true, Restarts: 2}}}, t: DefaultThresholds(),
			result: Fail, reason: ReasonRestarted, message: "restarted 2 times during the step, 0.0 as usual (the 0 outside it: 0 times; at most 0 more): a (2)"},
		{name: "restarted as often as the others", health: Health{Members: []Member{{Name: "a", Reports: true, Restarts: 1}, ok("b")}, Others: 10, OthersRestarts: 5},
			t: DefaultThresholds(), result: Pass, reason: ReasonHealthy},
		{name: "restarted more than the others", health: Health{Members: []Member{{Name: "a", Reports: true, Restarts: 1}, {Name: "b", Reports: true, Restarts: 1}}, Others: 10, OthersRestarts: 1},
			t: DefaultThresholds(), result: Fail, reason: ReasonRestarted, message: "restarted 2 times during the step, 0.2 as usual (the 10 outside it: 1 times; at most 0 more): a (1), b (1)"},
		{name: "restarts within the threshold", health: Health{Members: []Member{{Name: "a", Reports: true, Restarts: 1}}, Others: 19},
			t: Thresholds{MaxRestarts: 1}, result: Pass, reason: ReasonHealthy},
		{name: "error rate rose", health: Health{Members: []Member{ok("a")}, CohortRequests: 1000, CohortErrors: 50, OthersRequests: 10000, OthersErrors: 100},
			t: DefaultThresholds(), result: Fail, reason: ReasonErrorRateRose, message: "error rate was 5.00% (50 of 1000 requests) against 1.00% outside it"},
		{name: "error rate as outside", health: Health{Members: []Member{ok("a")}, CohortRequests: 1000, CohortErrors: 15, OthersRequests: 10000, OthersErrors: 100},
			t: DefaultThresholds(), result: Pass, reason: ReasonHealthy},
		{name: "too few requests to judge", health: Health{Members: []Member{ok("a")}, CohortRequests: 10, CohortErrors: 5},
			t: DefaultThresholds(), result: Pass, reason: ReasonHealthy},
		{name: "names at most five", health: Health{Members: many(8, func(i int) Member { return Member{Name: fmt.Sprintf("node-%d", i), NotReady: true} })},
			t: DefaultThresholds(), result: Fail, reason: ReasonNodeNotReady, message: "node-0, node-1, node-2, node-3, node-4 and 3 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Analyze(tc.health, tc.t)
			if v.Result != tc.result || v.Reason != tc.reason || !strings.Contains(v.Message, tc.message) {
				t.Errorf("got %+v, want result %d, reason %s, message containing %q", v, tc.result, tc.reason, tc.message)
			}
		})
	}
}
