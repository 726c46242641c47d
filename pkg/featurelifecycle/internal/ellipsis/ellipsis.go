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

// Package ellipsis shortens the human messages of the lifecycle controller,
// its tasks and the migrator to a size limit.
package ellipsis

import "unicode/utf8"

// Cut says where Shorten cuts a string that is too long.
type Cut int

const (
	// AtEnd keeps the head of the string and marks the cut with "..." at
	// its end: "pass 3: 5 pods use the field: a, b, c...".
	AtEnd Cut = iota
	// InMiddle keeps the head and the tail of the string and marks the cut
	// with " ... " between them, which keeps both the name of a validation
	// error's field and its reason when its value is long.
	InMiddle
)

// Shorten returns s if it has at most n bytes; otherwise it cuts s down to at
// most n bytes, on rune boundaries, where cut says. When n is too small for
// the marker of the cut, it returns the first at most n bytes of s, cut on a
// rune boundary and without a marker.
func Shorten(s string, n int, cut Cut) string {
	if len(s) <= n {
		return s
	}
	marker := "..."
	if cut == InMiddle {
		marker = " ... "
	}
	if n < len(marker) {
		return s[:runeStartAtOrBefore(s, max(n, 0))]
	}
	if cut != InMiddle {
		return s[:runeStartAtOrBefore(s, n-len(marker))] + marker
	}
	head := (n - len(marker)) / 2
	tail := n - len(marker) - head
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:runeStartAtOrBefore(s, head)] + marker + s[start:]
}

// runeStartAtOrBefore returns the greatest i <= n (n < len(s)) at which a rune
// of s starts, or 0.
func runeStartAtOrBefore(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
