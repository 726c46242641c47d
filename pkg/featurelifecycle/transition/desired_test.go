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

package transition

import (
	"fmt"
	"reflect"
	"testing"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

func use(component string, enabled bool, reporters ...string) featuresv1alpha1.FeatureUse {
	return featuresv1alpha1.FeatureUse{Component: component, Enabled: enabled, Reporters: reporters}
}

func feature(uses ...featuresv1alpha1.FeatureUse) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{Status: featuresv1alpha1.FeatureStatus{Uses: uses}}
}

func TestConfigurationOf(t *testing.T) {
	cases := []struct {
		name string
		f    *featuresv1alpha1.Feature
		live []string
		want Configuration
	}{
		{"nil feature", nil, []string{"a"}, Configuration{}},
		{"no uses", feature(), []string{"a"}, Configuration{}},
		{"no live apiserver", feature(use("kube-apiserver", true, "a")), nil, Configuration{}},
		{
			name: "all on, sorted",
			f:    feature(use("kube-apiserver", true, "c", "a", "b")),
			live: []string{"a", "b", "c"},
			want: Configuration{Enabled: []string{"a", "b", "c"}},
		},
		{
			name: "split",
			f:    feature(use("kube-apiserver", false, "c"), use("kube-apiserver", true, "b", "a")),
			live: []string{"a", "b", "c"},
			want: Configuration{Enabled: []string{"a", "b"}, Disabled: []string{"c"}},
		},
		{
			name: "identities not live are ignored",
			f:    feature(use("kube-apiserver", true, "a", "gone-1"), use("kube-apiserver", false, "gone-2")),
			live: []string{"a", "b"},
			want: Configuration{Enabled: []string{"a"}},
		},
		{
			name: "other components are ignored",
			f:    feature(use("kubelet", false, "a"), use("kube-controller-manager", false, "b"), use("kube-apiserver", true, "a", "b")),
			live: []string{"a", "b"},
			want: Configuration{Enabled: []string{"a", "b"}},
		},
		{
			name: "duplicates are removed",
			f:    feature(use("kube-apiserver", true, "a", "a"), use("kube-apiserver", true, "a", "b")),
			live: []string{"a", "b", "a"},
			want: Configuration{Enabled: []string{"a", "b"}},
		},
		{
			name: "stale entry of a restarted apiserver counts on both sides",
			f:    feature(use("kube-apiserver", true, "a", "b"), use("kube-apiserver", false, "a")),
			live: []string{"a", "b"},
			want: Configuration{Enabled: []string{"a", "b"}, Disabled: []string{"a"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ConfigurationOf(tc.f, tc.live)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ConfigurationOf() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDesired(t *testing.T) {
	on, off := []string{"a", "b"}, []string{"c"}
	cases := []struct {
		name       string
		c          Configuration
		previous   featuresv1alpha1.FeatureDesiredState
		want       featuresv1alpha1.FeatureDesiredState
		wantAgreed bool
	}{
		{"all on", Configuration{Enabled: on}, dOff, dOn, true},
		{"all on, no previous", Configuration{Enabled: on}, dNone, dOn, true},
		{"all off", Configuration{Disabled: off}, dOn, dOff, true},
		{"all off, no previous", Configuration{Disabled: off}, dNone, dOff, true},
		{"disagree keeps on", Configuration{Enabled: on, Disabled: off}, dOn, dOn, false},
		{"disagree keeps off", Configuration{Enabled: on, Disabled: off}, dOff, dOff, false},
		{"disagree without previous stays empty", Configuration{Enabled: on, Disabled: off}, dNone, dNone, false},
		{"no reports keeps on", Configuration{}, dOn, dOn, true},
		{"no reports keeps off", Configuration{}, dOff, dOff, true},
		{"no reports, no previous", Configuration{}, dNone, dNone, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, agreed := Desired(tc.c, tc.previous)
			if got != tc.want || agreed != tc.wantAgreed {
				t.Errorf("Desired() = %q, %v; want %q, %v", got, agreed, tc.want, tc.wantAgreed)
			}
			if tc.c.Agreed() != tc.wantAgreed {
				t.Errorf("Agreed() = %v, want %v", tc.c.Agreed(), tc.wantAgreed)
			}
		})
	}
}

// TestDesiredRollingRestart simulates an admin turning a gate off by
// restarting three apiservers one at a time. Each restart stops the
// apiserver, brings it back with the new value while its stale Enabled entry
// lingers, and then its reporter removes the stale entry. Desired must change
// exactly once, to Disabled.
//
// When the restart is shorter than the liveness window, the stopped
// apiserver stays live with its old value, and Disabled is reached exactly when
// the last apiserver reports Disabled. When its lease expires during the restart,
// the stopped apiserver drops out of the live set, so the change happens as
// soon as the last apiserver still configured Enabled goes down: from then on all
// live apiservers configure Disabled.
func TestDesiredRollingRestart(t *testing.T) {
	for _, leaseExpires := range []bool{false, true} {
		t.Run(fmt.Sprintf("leaseExpires=%v", leaseExpires), func(t *testing.T) {
			ids := []string{"apiserver-a", "apiserver-b", "apiserver-c"}
			value := map[string]bool{"apiserver-a": true, "apiserver-b": true, "apiserver-c": true}

			type snapshot struct {
				label string
				live  []string
				uses  []featuresv1alpha1.FeatureUse
			}
			build := func(label, down, stale string) snapshot {
				var live, on, off []string
				for _, id := range ids {
					if id != down || !leaseExpires {
						live = append(live, id)
					}
					if value[id] {
						on = append(on, id)
					} else {
						off = append(off, id)
					}
				}
				if stale != "" {
					on = append(on, stale) // the old Enabled entry, not yet removed
				}
				var uses []featuresv1alpha1.FeatureUse
				if len(on) > 0 {
					uses = append(uses, use("kube-apiserver", true, on...))
				}
				if len(off) > 0 {
					uses = append(uses, use("kube-apiserver", false, off...))
				}
				uses = append(uses, use("kubelet", true, "node-1")) // other components never matter
				return snapshot{label: label, live: live, uses: uses}
			}

			steps := []snapshot{build("all on", "", "")}
			for _, id := range ids {
				steps = append(steps, build(id+" down", id, ""))
				value[id] = false
				steps = append(steps, build(id+" back with Disabled, stale Enabled entry", "", id))
				steps = append(steps, build(id+" back with Disabled", "", ""))
			}
			last := len(steps) - 1
			changeAt := last
			if leaseExpires {
				changeAt = last - 2 // apiserver-c down
			}

			desired := dOn
			var changes []int
			for i, s := range steps {
				next, agreed := Desired(ConfigurationOf(feature(s.uses...), s.live), desired)
				if next != desired {
					changes = append(changes, i)
				}
				desired = next
				c := ConfigurationOf(feature(s.uses...), s.live)
				if agreed != c.Agreed() {
					t.Errorf("step %d (%s): agreed = %v, but Agreed() = %v", i, s.label, agreed, c.Agreed())
				}
				if i == 0 || i == last {
					if !agreed {
						t.Errorf("step %d (%s): not agreed: %s", i, s.label, c.DisagreementMessage())
					}
				}
				if i > 0 && i < changeAt && desired != dOn {
					t.Errorf("step %d (%s): desired %q, want Enabled", i, s.label, desired)
				}
			}
			if !reflect.DeepEqual(changes, []int{changeAt}) || desired != dOff {
				t.Errorf("desired changed at steps %v and ended %q; want exactly one change, at step %d (%s), ending Disabled",
					changes, desired, changeAt, steps[changeAt].label)
			}
		})
	}
}

func TestDisagreementMessage(t *testing.T) {
	names := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s-%d", prefix, i))
		}
		return out
	}
	cases := []struct {
		name string
		c    Configuration
		want string
	}{
		{
			name: "example",
			c:    Configuration{Enabled: []string{"apiserver-a", "apiserver-b"}, Disabled: []string{"apiserver-c"}},
			want: "apiservers disagree: Enabled on apiserver-a, apiserver-b; Disabled on apiserver-c",
		},
		{
			name: "five names are not truncated",
			c:    Configuration{Enabled: names("on", 5), Disabled: []string{"x"}},
			want: "apiservers disagree: Enabled on on-0, on-1, on-2, on-3, on-4; Disabled on x",
		},
		{
			name: "six names are",
			c:    Configuration{Enabled: names("on", 6), Disabled: names("off", 12)},
			want: "apiservers disagree: Enabled on on-0, on-1, on-2, on-3, on-4, +1 more; Disabled on off-0, off-1, off-10, off-11, off-2, +7 more",
		},
		{
			name: "emulation versions are named",
			c: Configuration{Enabled: []string{"apiserver-a", "apiserver-b"}, Disabled: []string{"apiserver-c"},
				Versions: map[string]string{"apiserver-a": "1.37", "apiserver-c": "1.36"}},
			want: "apiservers disagree: Enabled on apiserver-a (emulating 1.37), apiserver-b; Disabled on apiserver-c (emulating 1.36)",
		},
		{
			name: "one emulation version is not named",
			c: Configuration{Enabled: []string{"apiserver-a"}, Disabled: []string{"apiserver-c"},
				Versions: map[string]string{"apiserver-a": "1.37", "apiserver-c": "1.37"}},
			want: "apiservers disagree: Enabled on apiserver-a; Disabled on apiserver-c",
		},
		{"agreed", Configuration{Enabled: []string{"a"}}, ""},
		{"empty", Configuration{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.Enabled, c.Disabled = sortedUnique(c.Enabled), sortedUnique(c.Disabled)
			if got := c.DisagreementMessage(); got != tc.want {
				t.Errorf("DisagreementMessage() =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}
