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

package v1alpha1

import (
	"strings"
)

// FeatureName returns the Feature object name for a gate name.
//
// A Feature is named after its gate in lower-case kebab form:
// MaxUnavailableStatefulSet is max-unavailable-stateful-set. A run of capitals
// is one word whose last capital starts the next word when a lower-case letter
// follows it (CSIMigrationPortworx is csi-migration-portworx, HPAScaleToZero is
// hpa-scale-to-zero), except before a version suffix such as "v2" (KMSv2 is
// kmsv2, IPv6DualStack is ipv6-dual-stack) and before a plural "s" that ends
// the word (AllowServiceExternalIPs is allow-service-external-ips). Digits
// stay with the word before them.
func FeatureName(gate string) string {
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
