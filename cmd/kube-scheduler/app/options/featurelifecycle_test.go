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

	featuresoptions "k8s.io/features/options"
)

// TestFeatureLifecycleFlags checks the flags of the feature lifecycle client
// (KEP-3920), which exist whether the FeatureLifecycle gate is on or not.
func TestFeatureLifecycleFlags(t *testing.T) {
	o := NewOptions()
	fs, ok := o.Flags.FlagSets["feature lifecycle"]
	if !ok {
		t.Fatal("no feature lifecycle flag set")
	}
	if got, want := *o.FeatureLifecycle, (featuresoptions.Options{DesiredStateCacheFile: "/var/lib/kube-scheduler/feature-desired-state.json"}); got != want {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	if err := fs.Parse([]string{"--feature-desired-state-cache-file="}); err != nil {
		t.Fatal(err)
	}
	if got, want := *o.FeatureLifecycle, (featuresoptions.Options{}); got != want {
		t.Errorf("parsed %+v, want %+v", got, want)
	}
}
