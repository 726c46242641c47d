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
	"maps"
	"slices"
	"strings"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// apiserverComponent is the component name under which kube-apiserver
// reports its configured value of every gate it knows, with its identity
// lease name among the reporters.
const apiserverComponent = featuresv1alpha1.APIServerComponent

// maxListedNames bounds how many names a message lists before "+N more".
const maxListedNames = 5

// Configuration is what the live apiservers configure for one gate.
type Configuration struct {
	// On and Disabled are the identities of the live apiservers reporting each
	// value, sorted and deduplicated. An identity may transiently be in both
	// lists: after a restart with a different value and before its reporter
	// has removed itself from the entry of the old value. It then counts as a
	// disagreement, so the desired state is held until the stale entry goes.
	Enabled, Disabled []string
	// Modes are the identities of the apiservers by the management their
	// flags opt the gate into (CommandLine, Central, Dynamic), sorted. More
	// than one mode is a disagreement: management and desired state hold.
	Modes map[featuresv1alpha1.FeatureManagement][]string
	// Versions are the emulation versions ("major.minor") of the
	// apiservers by identity, as far as they state them. When they differ,
	// a disagreement message names each apiserver's version: an
	// emulation-version change also changes the values of the gates whose
	// default differs.
	Versions map[string]string
}

// Management returns the management every apiserver that states one opts
// the gate into ("" when none states one), and false when they disagree.
func (c Configuration) Management() (featuresv1alpha1.FeatureManagement, bool) {
	if len(c.Modes) > 1 {
		return "", false
	}
	for mode := range c.Modes {
		return mode, true
	}
	return "", true
}

// ConfigurationOf returns what the given apiservers configure for the gate of
// f, from the uses of component kube-apiserver in f's status. live lists the
// identity lease names of the apiservers whose configuration counts (the
// controller passes those seen within its forget window, so an apiserver
// that crashed a moment ago still holds its value); reporters not in it
// (apiservers gone for longer, whose entries linger until uses is reset) are
// ignored. A nil f gives the empty Configuration.
func ConfigurationOf(f *featuresv1alpha1.Feature, live []string) Configuration {
	var c Configuration
	if f == nil || len(live) == 0 {
		return c
	}
	isLive := make(map[string]bool, len(live))
	for _, id := range live {
		isLive[id] = true
	}
	for _, u := range f.Status.Uses {
		if u.Component != apiserverComponent {
			continue
		}
		for _, id := range u.Reporters {
			if !isLive[id] {
				continue
			}
			if u.Enabled {
				c.Enabled = append(c.Enabled, id)
			} else {
				c.Disabled = append(c.Disabled, id)
			}
		}
	}
	c.Enabled = sortedUnique(c.Enabled)
	c.Disabled = sortedUnique(c.Disabled)
	return c
}

// Agreed reports whether no two live apiservers configure different values
// or managements. A Configuration nobody reports is agreed.
func (c Configuration) Agreed() bool {
	return (len(c.Enabled) == 0 || len(c.Disabled) == 0) && len(c.Modes) <= 1
}

// Desired returns the desired state: the value all live apiservers that
// report the gate agree on; when they disagree, or none reports, the
// previous desired state (agreed=false when they disagree) — so nothing
// flaps while an admin rolls a flag change through the apiservers.
//
// When previous is empty (the Feature has no desired state yet) and the
// apiservers disagree, the result stays empty: there is no value to hold and
// picking either side could be wrong, so the Feature waits, with
// agreed=false, until they agree. When none reports, agreed is true.
func Desired(c Configuration, previous featuresv1alpha1.FeatureDesiredState) (desired featuresv1alpha1.FeatureDesiredState, agreed bool) {
	switch {
	case len(c.Enabled) > 0 && len(c.Disabled) > 0:
		return previous, false
	case len(c.Enabled) > 0:
		return featuresv1alpha1.FeatureDesiredStateEnabled, true
	case len(c.Disabled) > 0:
		return featuresv1alpha1.FeatureDesiredStateDisabled, true
	default:
		return previous, true
	}
}

// DisagreementMessage names which apiservers configure what, e.g.
// "apiservers disagree: Enabled on apiserver-a, apiserver-b; Disabled on apiserver-c".
// Each list shows at most its first 5 names followed by "+N more". It is
// meant for a Configuration that is not Agreed; for one that is, it returns
// the empty string.
func (c Configuration) DisagreementMessage() string {
	if c.Agreed() {
		return ""
	}
	var parts []string
	if len(c.Enabled) > 0 && len(c.Disabled) > 0 {
		parts = append(parts, fmt.Sprintf("Enabled on %s; Disabled on %s", listNames(c.withVersions(c.Enabled)), listNames(c.withVersions(c.Disabled))))
	}
	if len(c.Modes) > 1 {
		var modes []string
		for _, mode := range slices.Sorted(maps.Keys(c.Modes)) {
			modes = append(modes, fmt.Sprintf("%s on %s", mode, listNames(c.Modes[mode])))
		}
		parts = append(parts, "management "+strings.Join(modes, "; "))
	}
	return "apiservers disagree: " + strings.Join(parts, "; ")
}

// withVersions returns ids, each followed by " (emulating <version>)" when
// c.Versions states its version and the apiservers of c state different
// versions (a rolling change of --emulated-version); when they all emulate
// the same version, the disagreement is in their flags and ids are
// returned as they are.
func (c Configuration) withVersions(ids []string) []string {
	seen := map[string]bool{}
	for _, id := range append(slices.Clone(c.Enabled), c.Disabled...) {
		if v := c.Versions[id]; v != "" {
			seen[v] = true
		}
	}
	if len(seen) < 2 {
		return ids
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if v := c.Versions[id]; v != "" {
			out[i] += " (emulating " + v + ")"
		}
	}
	return out
}

// listNames joins names with ", ", listing at most maxListedNames of them and
// then "+N more".
func listNames(names []string) string {
	if len(names) <= maxListedNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, +%d more", strings.Join(names[:maxListedNames], ", "), len(names)-maxListedNames)
}

// sortedUnique sorts s in place and removes duplicates; nil stays nil.
func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
