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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const header = "apiVersion: featurelifecycle.config.k8s.io/v1alpha1\nkind: FeatureLifecycleConfiguration\n"

// TestDecode: a file is decoded strictly, defaulted and validated, each
// error naming its field.
func TestDecode(t *testing.T) {
	for name, c := range map[string]struct {
		yaml string
		// want are substrings of the error, one per error; none: valid.
		want  []string
		check func(t *testing.T, c *FeatureLifecycleConfiguration)
	}{
		"empty: the defaults": {
			yaml: header,
			check: func(t *testing.T, c *FeatureLifecycleConfiguration) {
				if c.LivenessWindow.Duration != DefaultLivenessWindow || c.ForgetWindow.Duration != DefaultForgetWindow ||
					c.WaitForUsesPeriod.Duration != DefaultWaitForUsesPeriod || c.ReportRetention.Duration != DefaultReportRetention ||
					c.ResidueScan.Interval.Duration != DefaultResidueScanInterval || c.ResidueScan.PageInterval.Duration != DefaultResidueScanPageInterval ||
					*c.Migration.PageSize != DefaultMigrationPageSize || *c.Migration.Workers != DefaultMigrationWorkers ||
					*c.Migration.QPS != DefaultMigrationQPS || *c.Migration.Burst != DefaultMigrationBurst || !*c.OpenAPIByState {
					t.Errorf("defaults: %+v", c)
				}
			},
		},
		"set fields are kept, 0 turns the scan off": {
			yaml: header + "livenessWindow: 15s\nresidueScan:\n  interval: 0s\n  pageInterval: 250ms\nmigration:\n  qps: -1\nopenAPIByState: false\n",
			check: func(t *testing.T, c *FeatureLifecycleConfiguration) {
				if c.LivenessWindow.Duration != 15*time.Second || c.ResidueScan.Interval.Duration != 0 ||
					c.ResidueScan.PageInterval.Duration != 250*time.Millisecond || *c.Migration.QPS != -1 || *c.OpenAPIByState ||
					c.ForgetWindow.Duration != DefaultForgetWindow {
					t.Errorf("decoded %+v", c)
				}
			},
		},
		"unknown field":   {yaml: header + "livenesWindow: 15s\n", want: []string{`unknown field "livenesWindow"`}},
		"duplicate field": {yaml: header + "livenessWindow: 15s\nlivenessWindow: 20s\n", want: []string{`livenessWindow`}},
		"other kind":      {yaml: "apiVersion: featurelifecycle.config.k8s.io/v1alpha1\nkind: Other\n", want: []string{"Other"}},
		"bad values": {
			yaml: header + "livenessWindow: 0s\nforgetWindow: -1s\nresidueScan:\n  pageInterval: -2s\nmigration:\n  qps: 0\n  workers: 0\n",
			want: []string{"livenessWindow: Invalid value: \"0s\": must be positive", "forgetWindow: Invalid value: \"-1s\": must be positive",
				"residueScan.pageInterval: Invalid value: \"-2s\": must not be negative", "migration.workers: Invalid value: 0: must be positive",
				"migration.qps: Invalid value: 0: must be positive, or -1 for no limit"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Decode([]byte(c.yaml))
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				c.check(t, got)
				return
			}
			if err == nil {
				t.Fatalf("decoded %+v, want an error", got)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestLoad: no file is the defaults; a file written by Encode reads back
// the same; a file that does not exist is an error naming it.
func TestLoad(t *testing.T) {
	c, err := Load("")
	if err != nil || c.LivenessWindow.Duration != DefaultLivenessWindow {
		t.Fatalf("no file: %+v, %v", c, err)
	}
	want := &FeatureLifecycleConfiguration{LivenessWindow: &metav1.Duration{Duration: 15 * time.Second}, Migration: MigrationConfiguration{QPS: ptr.To[int32](-1)}}
	data, err := Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lifecycle.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if got.LivenessWindow.Duration != 15*time.Second || *got.Migration.QPS != -1 || got.WaitForUsesPeriod.Duration != DefaultWaitForUsesPeriod {
		t.Errorf("read back %+v from\n%s", got, data)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}
