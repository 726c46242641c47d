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

// Package gatename maps feature gate names to Feature object names.
//
// A Feature is named after its gate in lower-case kebab form:
// MaxUnavailableStatefulSet is max-unavailable-stateful-set. A run of capitals
// is one word whose last capital starts the next word when a lower-case letter
// follows it (CSIMigrationPortworx is csi-migration-portworx, HPAScaleToZero is
// hpa-scale-to-zero), except before a version suffix such as "v2" (KMSv2 is
// kmsv2, IPv6DualStack is ipv6-dual-stack) and before a plural "s" that ends
// the word (AllowServiceExternalIPs is allow-service-external-ips). Digits
// stay with the word before them.
package gatename

import (
	"fmt"
	"sort"
	"strings"
)

// ObjectName returns the Feature object name for a gate name.
func ObjectName(gate string) string {
	var b strings.Builder
	b.Grow(len(gate) + 8)
	for i := 0; i < len(gate); i++ {
		c := gate[i]
		if i > 0 && isUpper(c) && wordStartsAt(gate, i) {
			b.WriteByte('-')
		}
		if isUpper(c) {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// wordStartsAt reports whether the upper-case letter at i starts a new word.
func wordStartsAt(s string, i int) bool {
	prev := s[i-1]
	if isLower(prev) || isDigit(prev) {
		return true
	}
	if !isUpper(prev) || i+1 >= len(s) || !isLower(s[i+1]) {
		return false
	}
	// A capital between capitals and a lower-case letter starts a word
	// (the "S" of "HPAScale"), unless the lower-case letter begins a version
	// suffix (the "v2" of "KMSv2") or is the "s" of a plural that ends the
	// word (the "IPs" of "AllowServiceExternalIPs").
	versionSuffix := s[i+1] == 'v' && i+2 < len(s) && isDigit(s[i+2])
	plural := s[i+1] == 's' && (i+2 == len(s) || !isLower(s[i+2]))
	return !versionSuffix && !plural
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Collision is a set of distinct gates that map to the same object name.
type Collision struct {
	// Name is the object name the gates share.
	Name string
	// Gates are the gate names, sorted.
	Gates []string
}

func (c Collision) Error() string {
	return fmt.Sprintf("feature gates %s all map to the Feature name %q", strings.Join(c.Gates, ", "), c.Name)
}

// Collisions returns, sorted by name, every object name that more than one of
// the distinct gates maps to. Callers must refuse to announce those gates:
// two gates cannot share one Feature.
func Collisions(gates []string) []Collision {
	byName := map[string]map[string]struct{}{}
	for _, g := range gates {
		n := ObjectName(g)
		if byName[n] == nil {
			byName[n] = map[string]struct{}{}
		}
		byName[n][g] = struct{}{}
	}
	var out []Collision
	for name, set := range byName {
		if len(set) < 2 {
			continue
		}
		c := Collision{Name: name}
		for g := range set {
			c.Gates = append(c.Gates, g)
		}
		sort.Strings(c.Gates)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
