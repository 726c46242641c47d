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
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate returns an error for each field of a defaulted c whose value
// cannot work, with the field's path.
func Validate(c *FeatureLifecycleConfiguration) field.ErrorList {
	var errs field.ErrorList
	positive := func(path *field.Path, d *metav1.Duration) {
		if d != nil && d.Duration <= 0 {
			errs = append(errs, field.Invalid(path, d.Duration.String(), "must be positive"))
		}
	}
	nonNegative := func(path *field.Path, d *metav1.Duration) {
		if d != nil && d.Duration < 0 {
			errs = append(errs, field.Invalid(path, d.Duration.String(), "must not be negative"))
		}
	}
	positive(field.NewPath("livenessWindow"), c.LivenessWindow)
	positive(field.NewPath("forgetWindow"), c.ForgetWindow)
	positive(field.NewPath("waitForUsesPeriod"), c.WaitForUsesPeriod)
	positive(field.NewPath("reportRetention"), c.ReportRetention)
	scan := field.NewPath("residueScan")
	nonNegative(scan.Child("interval"), c.ResidueScan.Interval)
	nonNegative(scan.Child("pageInterval"), c.ResidueScan.PageInterval)
	migration := field.NewPath("migration")
	if p := c.Migration.PageSize; p != nil && *p <= 0 {
		errs = append(errs, field.Invalid(migration.Child("pageSize"), *p, "must be positive"))
	}
	if w := c.Migration.Workers; w != nil && *w <= 0 {
		errs = append(errs, field.Invalid(migration.Child("workers"), *w, "must be positive"))
	}
	if q := c.Migration.QPS; q != nil && (*q == 0 || *q < -1) {
		errs = append(errs, field.Invalid(migration.Child("qps"), *q, "must be positive, or -1 for no limit"))
	}
	if b := c.Migration.Burst; b != nil && *b <= 0 {
		errs = append(errs, field.Invalid(migration.Child("burst"), *b, "must be positive"))
	}
	return errs
}

// Duration returns d's duration, or 0 when d is nil.
func Duration(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}
