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
	"testing"
)

func TestLowestVersion(t *testing.T) {
	cases := []struct {
		own      string
		versions map[string]string
		want     string
	}{
		{"1.37", nil, "1.37"},
		{"1.37", map[string]string{"a": "1.37", "b": "1.36"}, "1.36"},
		{"1.36", map[string]string{"a": "1.37"}, "1.36"},
		{"1.37", map[string]string{"a": "1.35", "b": "1.36", "c": "garbage"}, "1.35"},
		{"1.37", map[string]string{"a": "1.9"}, "1.9"},
	}
	for _, tc := range cases {
		if got := LowestVersion(tc.own, tc.versions); got != tc.want {
			t.Errorf("LowestVersion(%s, %v) = %s, want %s", tc.own, tc.versions, got, tc.want)
		}
	}
}
