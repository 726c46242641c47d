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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The defaults of the configuration's fields.
const (
	DefaultLivenessWindow          = 30 * time.Second
	DefaultForgetWindow            = 5 * time.Minute
	DefaultWaitForUsesPeriod       = 3 * time.Minute
	DefaultReportRetention         = time.Hour
	DefaultResidueScanInterval     = 30 * time.Minute
	DefaultResidueScanPageInterval = 2 * time.Second
	DefaultMigrationPageSize       = 500
	DefaultMigrationWorkers        = 16
	DefaultMigrationQPS            = 2000
	DefaultMigrationBurst          = 200
)

// SetDefaults sets every unset field of c to its default.
func SetDefaults(c *FeatureLifecycleConfiguration) {
	duration := func(d **metav1.Duration, def time.Duration) {
		if *d == nil {
			*d = &metav1.Duration{Duration: def}
		}
	}
	duration(&c.LivenessWindow, DefaultLivenessWindow)
	duration(&c.ForgetWindow, DefaultForgetWindow)
	duration(&c.WaitForUsesPeriod, DefaultWaitForUsesPeriod)
	duration(&c.ReportRetention, DefaultReportRetention)
	duration(&c.ResidueScan.Interval, DefaultResidueScanInterval)
	duration(&c.ResidueScan.PageInterval, DefaultResidueScanPageInterval)
	if c.Migration.PageSize == nil {
		c.Migration.PageSize = ptr.To[int64](DefaultMigrationPageSize)
	}
	if c.Migration.Workers == nil {
		c.Migration.Workers = ptr.To[int32](DefaultMigrationWorkers)
	}
	if c.Migration.QPS == nil {
		c.Migration.QPS = ptr.To[int32](DefaultMigrationQPS)
	}
	if c.Migration.Burst == nil {
		c.Migration.Burst = ptr.To[int32](DefaultMigrationBurst)
	}
	if c.OpenAPIByState == nil {
		c.OpenAPIByState = ptr.To(true)
	}
}
