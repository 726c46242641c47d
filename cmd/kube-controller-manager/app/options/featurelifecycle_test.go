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

package options

import (
	"testing"

	"github.com/spf13/pflag"

	featuresoptions "k8s.io/features/options"
)

// TestFeatureLifecycleFlags checks the flags of the feature lifecycle client
// (KEP-3920), which exist whether the FeatureLifecycle gate is on or not.
func TestFeatureLifecycleFlags(t *testing.T) {
	s, err := NewKubeControllerManagerOptions()
	if err != nil {
		t.Fatal(err)
	}
	fss := s.Flags([]string{""}, []string{""}, nil)
	fs, ok := fss.FlagSets["feature lifecycle"]
	if !ok {
		t.Fatal("no feature lifecycle flag set")
	}
	// The one flag kube-controller-manager needs: where it caches what it
	// follows.
	if n := countFlags(fs); n != 1 || fs.Lookup(featuresoptions.DesiredStateCacheFileFlag) == nil {
		t.Errorf("%d flags, want --%s alone", n, featuresoptions.DesiredStateCacheFileFlag)
	}
	if err := fs.Parse([]string{"--feature-desired-state-cache-file=/tmp/cache.json"}); err != nil {
		t.Fatal(err)
	}
	want := featuresoptions.Options{DesiredStateCacheFile: "/tmp/cache.json"}
	if *s.FeatureLifecycle != want {
		t.Errorf("parsed %+v, want %+v", *s.FeatureLifecycle, want)
	}
}

// countFlags returns how many flags fs has.
func countFlags(fs *pflag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*pflag.Flag) { n++ })
	return n
}
