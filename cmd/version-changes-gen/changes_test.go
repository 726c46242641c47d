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

package main

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

func TestSpecAt(t *testing.T) {
	specs := featuregate.VersionedSpecs{
		{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.38"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	}
	for v, want := range map[string]*stageAt{
		"1.34": nil,
		"1.35": {Default: false, PreRelease: "Alpha"},
		"1.36": {Default: true, PreRelease: "Beta"},
		"1.37": {Default: true, PreRelease: "Beta"},
		"1.38": {Default: true, PreRelease: "GA"},
	} {
		got, ok := specAt(specs, version.MustParse(v))
		if want == nil {
			if ok {
				t.Errorf("at %s: %+v, want none", v, got)
			}
			continue
		}
		if !ok || got != *want {
			t.Errorf("at %s: %+v %v, want %+v", v, got, ok, *want)
		}
	}
}
