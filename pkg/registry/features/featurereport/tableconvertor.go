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

package featurereport

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/kubernetes/pkg/printers"

	"k8s.io/featureflags/pkg/apis/features"
)

// columns are the printer columns of `kubectl get featurereports`.
var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "<component>.<identity>."},
	{Name: "Component", Type: "string", Description: "The reporting component (spec.component)."},
	{Name: "Identity", Type: "string", Description: "The reporting process (spec.identity)."},
	{Name: "Gates", Type: "string", Description: "How many gates are reported, and how many of them are enabled."},
	{Name: "Renewed", Type: "string", Description: "Time since the report was last written or renewed (spec.renewTime)."},
	{Name: "Age", Type: "string", Description: "Time since the report was created."},
	{Name: "Liveness", Type: "string", Priority: 1, Description: "What says the reporter is alive: its holder lease, or its own lease duration."},
}

// AddHandlers registers the table printers of FeatureReports.
func AddHandlers(h printers.PrintHandler) {
	_ = h.TableHandler(columns, printReport)
	_ = h.TableHandler(columns, printReportList)
}

func printReport(r *features.FeatureReport, _ printers.GenerateOptions) ([]metav1.TableRow, error) {
	enabled := 0
	for _, g := range r.Spec.Gates {
		if g.Enabled {
			enabled++
		}
	}
	renewed := "<unknown>"
	if r.Spec.RenewTime != nil {
		renewed = duration.HumanDuration(time.Since(r.Spec.RenewTime.Time))
	}
	liveness := "<unknown>"
	switch {
	case r.Spec.HolderLease != nil:
		liveness = "lease " + r.Spec.HolderLease.Namespace + "/" + r.Spec.HolderLease.Name
	case r.Spec.LeaseDurationSeconds != nil:
		liveness = fmt.Sprintf("%ds", *r.Spec.LeaseDurationSeconds)
	}
	age := "<unknown>"
	if !r.CreationTimestamp.IsZero() {
		age = duration.HumanDuration(time.Since(r.CreationTimestamp.Time))
	}
	row := metav1.TableRow{Object: runtime.RawExtension{Object: r}}
	row.Cells = append(row.Cells, r.Name, r.Spec.Component, r.Spec.Identity,
		fmt.Sprintf("%d (%d enabled)", len(r.Spec.Gates), enabled), renewed, age, liveness)
	return []metav1.TableRow{row}, nil
}

func printReportList(list *features.FeatureReportList, opts printers.GenerateOptions) ([]metav1.TableRow, error) {
	rows := make([]metav1.TableRow, 0, len(list.Items))
	for i := range list.Items {
		r, err := printReport(&list.Items[i], opts)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
