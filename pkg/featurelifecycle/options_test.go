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
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestControllerOptionsValidate(t *testing.T) {
	cases := []struct {
		args []string
		want []string // one error per entry, naming the flag
	}{
		{args: nil},
		{args: []string{"--feature-lifecycle-residue-scan-interval=0", "--feature-lifecycle-residue-scan-page-interval=0"}},
		{args: []string{"--feature-lifecycle-liveness-window=0"}, want: []string{"--feature-lifecycle-liveness-window must be positive, got 0s"}},
		{args: []string{"--feature-lifecycle-forget-window=-1s", "--feature-lifecycle-report-retention=0s"},
			want: []string{"--feature-lifecycle-report-retention must be positive", "--feature-lifecycle-forget-window must be positive, got -1s"}},
		{args: []string{"--feature-lifecycle-residue-scan-page-interval=-2s", "--feature-lifecycle-retain-minor-versions=-1"},
			want: []string{"--feature-lifecycle-residue-scan-page-interval must not be negative, got -2s", "--feature-lifecycle-retain-minor-versions must not be negative, got -1"}},
		{args: []string{"--feature-lifecycle-wait-for-uses-period=-3m"}, want: []string{"--feature-lifecycle-wait-for-uses-period must be positive"}},
	}
	for _, tc := range cases {
		o := DefaultControllerOptions()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		errs := o.Validate()
		if len(errs) != len(tc.want) {
			t.Errorf("%v: got errors %v, want %d", tc.args, errs, len(tc.want))
			continue
		}
		for i, want := range tc.want {
			if !strings.Contains(errs[i].Error(), want) {
				t.Errorf("%v: error %d is %q, want it to contain %q", tc.args, i, errs[i], want)
			}
		}
	}
}

func TestResidueScanPageIntervalFlag(t *testing.T) {
	o := DefaultControllerOptions()
	if o.ResidueScanPageInterval != 2*time.Second {
		t.Errorf("default page interval %v, want 2s", o.ResidueScanPageInterval)
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--feature-lifecycle-residue-scan-page-interval=250ms"}); err != nil {
		t.Fatal(err)
	}
	if o.ResidueScanPageInterval != 250*time.Millisecond {
		t.Errorf("page interval %v after the flag, want 250ms", o.ResidueScanPageInterval)
	}
}
