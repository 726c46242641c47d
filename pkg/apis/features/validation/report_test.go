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

package validation

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/apis/features"
)

func validReport() *features.FeatureReport {
	seconds := int32(40)
	return &features.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler.host-1", Namespace: "kube-system"},
		Spec: features.FeatureReportSpec{
			Component: "kube-scheduler", Identity: "host-1", LeaseDurationSeconds: &seconds,
			Gates: []features.FeatureReportGate{{Name: "A", Enabled: true}, {Name: "B"}},
		},
	}
}

func TestValidateFeatureReport(t *testing.T) {
	if errs := ValidateFeatureReport(validReport()); len(errs) != 0 {
		t.Fatalf("valid report: %v", errs)
	}
	for _, tc := range []struct {
		name   string
		mutate func(r *features.FeatureReport)
		want   string // field path and message part
	}{
		{"name is not component.identity", func(r *features.FeatureReport) { r.Name = "host-1" }, `metadata.name: Invalid value: "host-1": must be "kube-scheduler.host-1"`},
		{"no component", func(r *features.FeatureReport) { r.Spec.Component = "" }, "spec.component: Required value"},
		{"component not a label", func(r *features.FeatureReport) { r.Spec.Component = "Kube.Scheduler" }, "spec.component: Invalid value"},
		{"no identity", func(r *features.FeatureReport) { r.Spec.Identity = "" }, "spec.identity: Required value"},
		{"identity not a subdomain", func(r *features.FeatureReport) { r.Spec.Identity = "host_1" }, "spec.identity: Invalid value"},
		{"bad gate name", func(r *features.FeatureReport) { r.Spec.Gates[1].Name = "not-a-gate" }, "spec.gates[1].name: Invalid value"},
		{"duplicate gate", func(r *features.FeatureReport) { r.Spec.Gates[1].Name = "A" }, `spec.gates[1].name: Duplicate value: "A"`},
		{"too many gates", func(r *features.FeatureReport) {
			r.Spec.Gates = make([]features.FeatureReportGate, MaxReportedGates+1)
			for i := range r.Spec.Gates {
				r.Spec.Gates[i].Name = "G" + strings.Repeat("x", i%100) + string(rune('A'+i%26))
			}
		}, "spec.gates: Too many"},
		{"zero lease", func(r *features.FeatureReport) { zero := int32(0); r.Spec.LeaseDurationSeconds = &zero }, "spec.leaseDurationSeconds: Invalid value: 0"},
		{"holder lease without name", func(r *features.FeatureReport) {
			r.Spec.HolderLease = &features.FeatureReportLease{Namespace: "kube-node-lease"}
		}, "spec.holderLease.name: Required value"},
		{"holder lease in a bad namespace", func(r *features.FeatureReport) {
			r.Spec.HolderLease = &features.FeatureReportLease{Namespace: "Kube", Name: "n"}
		}, "spec.holderLease.namespace: Invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := validReport()
			tc.mutate(r)
			errs := ValidateFeatureReport(r)
			if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Fatalf("errors %v, want one containing %q", errs, tc.want)
			}
		})
	}
}

func TestValidateFeatureReportUpdate(t *testing.T) {
	old := validReport()
	old.ResourceVersion = "1"
	r := old.DeepCopy()
	r.Spec.Gates = r.Spec.Gates[:1]
	if errs := ValidateFeatureReportUpdate(r, old); len(errs) != 0 {
		t.Fatalf("new values are a valid update: %v", errs)
	}
	r.Spec.Identity = "host-2"
	if errs := ValidateFeatureReportUpdate(r, old); !strings.Contains(errs.ToAggregate().Error(), "spec.identity: Invalid value: \"host-2\": field is immutable") {
		t.Fatalf("identity is immutable: %v", errs)
	}
}
