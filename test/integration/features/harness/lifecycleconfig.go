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

package harness

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "k8s.io/kubernetes/pkg/featurelifecycle/apis/config/v1alpha1"
)

// Lifecycle is the configuration of the feature lifecycle of a test's
// apiservers (a FeatureLifecycleConfiguration, passed with
// --feature-lifecycle-config-file). A zero field takes its default.
type Lifecycle struct {
	LivenessWindow          time.Duration
	ForgetWindow            time.Duration
	WaitForUsesPeriod       time.Duration
	ResidueScanInterval     time.Duration
	ResidueScanPageInterval time.Duration
	// MigrationQPS is the migrations' writes per second; -1: no limit.
	MigrationQPS      int32
	MigrationBurst    int32
	MigrationPageSize int64
}

// Flag writes c into a file of a temporary directory of t and returns the
// flag that passes it to kube-apiserver.
func (c Lifecycle) Flag(t testing.TB) string {
	t.Helper()
	data, err := configv1alpha1.Encode(c.configuration())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "feature-lifecycle.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return "--feature-lifecycle-config-file=" + path
}

// configuration returns c as the configuration file's type.
func (c Lifecycle) configuration() *configv1alpha1.FeatureLifecycleConfiguration {
	duration := func(d time.Duration) *metav1.Duration {
		if d == 0 {
			return nil
		}
		return &metav1.Duration{Duration: d}
	}
	out := &configv1alpha1.FeatureLifecycleConfiguration{
		LivenessWindow:    duration(c.LivenessWindow),
		ForgetWindow:      duration(c.ForgetWindow),
		WaitForUsesPeriod: duration(c.WaitForUsesPeriod),
		ResidueScan: configv1alpha1.ResidueScanConfiguration{
			Interval:     duration(c.ResidueScanInterval),
			PageInterval: duration(c.ResidueScanPageInterval),
		},
	}
	if c.MigrationQPS != 0 {
		out.Migration.QPS = ptr.To(c.MigrationQPS)
	}
	if c.MigrationBurst != 0 {
		out.Migration.Burst = ptr.To(c.MigrationBurst)
	}
	if c.MigrationPageSize != 0 {
		out.Migration.PageSize = ptr.To(c.MigrationPageSize)
	}
	return out
}
