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

package ellipsis

import (
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		cut  Cut
		want string
	}{
		{"short", 5, AtEnd, "short"},
		{"short", 5, InMiddle, "short"},
		{"abcdefghij", 8, AtEnd, "abcde..."},
		{"aéééé", 5, AtEnd, "a..."},
		{"abcdefghijklmnop", 11, InMiddle, "abc ... nop"},
		{"abcdefghijklmnop", 12, InMiddle, "abc ... mnop"},
		{"ééééééé", 11, InMiddle, "é ... é"},
		{"abcdef", 2, AtEnd, "ab"},
		{"éé", 3, InMiddle, "é"},
		{"abcdef", 0, InMiddle, ""},
	} {
		got := Shorten(tc.s, tc.n, tc.cut)
		if got != tc.want {
			t.Errorf("Shorten(%q, %d, %d) = %q, want %q", tc.s, tc.n, tc.cut, got, tc.want)
		}
		if len(got) > tc.n || !utf8.ValidString(got) {
			t.Errorf("Shorten(%q, %d, %d) = %q: longer than %d bytes or not valid UTF-8", tc.s, tc.n, tc.cut, got, tc.n)
		}
	}
}
