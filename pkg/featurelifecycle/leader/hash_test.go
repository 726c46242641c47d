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
	"fmt"
	"math/rand"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// featureNames returns the kebab object names of n generated gates
// "Gate0".."Gate<n-1>".
func featureNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = featuresv1alpha1.FeatureName(fmt.Sprintf("Gate%d", i))
	}
	return names
}

func apiservers(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("apiserver-%d", i)
	}
	return s
}

func TestScoreStable(t *testing.T) {
	// Golden values: Score must never change between releases, since
	// kube-apiservers of different versions must agree on leaders.
	for _, tc := range []struct {
		feature, apiserver string
		want               uint64
	}{
		// SHA-256("kube-system/max-unavailable-stateful-set\x00apiserver-abc")
		{"kube-system/max-unavailable-stateful-set", "apiserver-abc", 0x73ddf220c6c08399},
		// SHA-256("a\x00b")
		{"a", "b", 0x59b271ae1bbcb1d3},
		// SHA-256("\x00")
		{"", "", 0x6e340b9cffb37a98},
	} {
		if got := Score(tc.feature, tc.apiserver); got != tc.want {
			t.Errorf("Score(%q, %q) = %#x, want %#x", tc.feature, tc.apiserver, got, tc.want)
		}
	}
	// The separator keeps the pair unambiguous.
	if Score("ab", "c") == Score("a", "bc") {
		t.Errorf("Score(ab, c) == Score(a, bc)")
	}
}

func TestLeaderEmpty(t *testing.T) {
	if l, ok := Leader("f", nil); ok || l != "" {
		t.Errorf("Leader with no candidates = %q, %v; want \"\", false", l, ok)
	}
	if l, ok := Leader("f", []string{"only"}); !ok || l != "only" {
		t.Errorf("Leader with one candidate = %q, %v; want only, true", l, ok)
	}
}

func TestLeaderDeterministic(t *testing.T) {
	servers := apiservers(7)
	r := rand.New(rand.NewSource(1))
	for _, f := range featureNames(200) {
		want, ok := Leader(f, servers)
		if !ok {
			t.Fatalf("no leader for %s", f)
		}
		for i := 0; i < 5; i++ {
			shuffled := append([]string(nil), servers...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			// Duplicates do not change the answer either.
			shuffled = append(shuffled, shuffled[0])
			if got, _ := Leader(f, shuffled); got != want {
				t.Fatalf("Leader(%s, %v) = %s, want %s", f, shuffled, got, want)
			}
		}
	}
}

func TestLeaderBalanced(t *testing.T) {
	// Plain kebab names (as in the brief) and the namespaced keys the Elector
	// hashes (Key: "kube-system/<name>").
	for _, prefix := range []string{"", "kube-system/"} {
		t.Run("prefix="+prefix, func(t *testing.T) { testLeaderBalanced(t, prefix) })
	}
}

func testLeaderBalanced(t *testing.T, prefix string) {
	features := featureNames(2000)
	for i := range features {
		features[i] = prefix + features[i]
	}
	for _, n := range []int{2, 3, 5, 10} {
		servers := apiservers(n)
		counts := map[string]int{}
		for _, f := range features {
			l, _ := Leader(f, servers)
			counts[l]++
		}
		ideal := float64(len(features)) / float64(n)
		minC, maxC := len(features), 0
		for _, s := range servers {
			c := counts[s]
			minC, maxC = min(minC, c), max(maxC, c)
			if float64(c) < 0.75*ideal || float64(c) > 1.25*ideal {
				t.Errorf("N=%d: %s leads %d features, want %.0f ±25%%", n, s, c, ideal)
			}
		}
		t.Logf("N=%d: ideal %.0f, min %d (%.1f%%), max %d (%.1f%%)", n, ideal,
			minC, 100*float64(minC)/ideal, maxC, 100*float64(maxC)/ideal)
	}
}

func TestLeaderMinimalMovement(t *testing.T) {
	features := featureNames(2000)
	for _, n := range []int{2, 3, 5, 10} {
		servers := apiservers(n)
		before := map[string]string{}
		for _, f := range features {
			before[f], _ = Leader(f, servers)
		}

		// Removing one apiserver moves exactly the features it led.
		for removed := range servers {
			rest := append(append([]string(nil), servers[:removed]...), servers[removed+1:]...)
			for _, f := range features {
				after, _ := Leader(f, rest)
				if before[f] == servers[removed] {
					if after == servers[removed] {
						t.Fatalf("N=%d: %s still led by removed %s", n, f, after)
					}
				} else if after != before[f] {
					t.Errorf("N=%d, removed %s: %s moved from %s to %s", n, servers[removed], f, before[f], after)
				}
			}
		}

		// Adding one apiserver moves features only to the new one.
		added := append(append([]string(nil), servers...), "apiserver-new")
		moved := 0
		for _, f := range features {
			after, _ := Leader(f, added)
			if after != before[f] {
				moved++
				if after != "apiserver-new" {
					t.Errorf("N=%d, added: %s moved from %s to %s", n, f, before[f], after)
				}
			}
		}
		if moved == 0 {
			t.Errorf("N=%d: adding an apiserver moved no feature", n)
		}
	}
}
