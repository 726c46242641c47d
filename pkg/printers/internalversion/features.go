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

package internalversion

import (
	"fmt"
	"math"
	"strconv"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/features"
	"k8s.io/kubernetes/pkg/printers"
)

// addFeaturesHandlers adds the table printers of features.k8s.io
// (KEP-3920): `kubectl get features` and `kubectl get featurereports`.
func addFeaturesHandlers(h printers.PrintHandler) {
	_ = h.TableHandler(featureColumnDefinitions, printFeature)
	_ = h.TableHandler(featureColumnDefinitions, printFeatureList)
	_ = h.TableHandler(featureReportColumnDefinitions, printFeatureReport)
	_ = h.TableHandler(featureReportColumnDefinitions, printFeatureReportList)
	_ = h.TableHandler(featureTargetColumnDefinitions, printFeatureTarget)
	_ = h.TableHandler(featureTargetColumnDefinitions, printFeatureTargetList)
}

// featureColumnDefinitions are the printer columns of `kubectl get features`.
var featureColumnDefinitions = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name is the gate name in kebab case."},
	{Name: "Desired", Type: "string", Description: "The state the feature should reach (spec.desiredState)."},
	{Name: "State", Type: "string", Description: "The observed state (status.state)."},
	{Name: "Stage", Type: "string", Description: "The gate's maturity: Alpha, Beta, GA or Deprecated (status.preRelease)."},
	{Name: "Default", Type: "string", Description: "The gate's default value (status.default)."},
	{Name: "Tasks", Type: "string", Description: "The active task and the number of tasks left (status.tasks)."},
	{Name: "Age", Type: "string", Description: "Time since the Feature was created."},
	{Name: "Gate", Type: "string", Priority: 1, Description: "The exact gate name (spec.gate)."},
	{Name: "Version", Type: "string", Priority: 1, Description: "The emulation version the status holds for (status.version)."},
	{Name: "Upgrade", Type: "string", Priority: 1, Description: "Whether the feature allows raising the emulation version by one: Safe, the reason it blocks it, or <unknown> (the UpgradeSafe condition)."},
	{Name: "Downgrade", Type: "string", Priority: 1, Description: "Whether the feature allows lowering the emulation version by one: Safe, the reason it blocks it, or <unknown> (the DowngradeSafe condition)."},
	{Name: "Rollout", Type: "string", Priority: 1, Description: "Where a rollout in steps stands: its phase, step and cohort of nodes or apiservers, e.g. Progressing 2/5 (2 of 20 nodes) (status.rollout)."},
}

func printFeature(f *features.Feature, _ printers.GenerateOptions) ([]metav1.TableRow, error) {
	row := metav1.TableRow{Object: runtime.RawExtension{Object: f}}
	row.Cells = append(row.Cells,
		f.Name,
		featureOrNone(string(f.Spec.DesiredState)),
		featureOrNone(string(f.Status.State)),
		featureOrNone(string(f.Status.PreRelease)),
		featureDefaultCell(f.Status.Default),
		featureTasksCell(f.Status.Tasks),
		translateTimestampSince(f.CreationTimestamp),
		f.Spec.Gate,
		featureOrNone(f.Status.Version),
		featureSafetyCell(f.Status.Conditions, featuresv1alpha1.FeatureConditionUpgradeSafe),
		featureSafetyCell(f.Status.Conditions, featuresv1alpha1.FeatureConditionDowngradeSafe),
		featureRolloutCell(f),
	)
	return []metav1.TableRow{row}, nil
}

func printFeatureList(list *features.FeatureList, opts printers.GenerateOptions) ([]metav1.TableRow, error) {
	rows := make([]metav1.TableRow, 0, len(list.Items))
	for i := range list.Items {
		r, err := printFeature(&list.Items[i], opts)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

func featureOrNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func featureDefaultCell(b *bool) string {
	if b == nil {
		return "<unknown>"
	}
	return fmt.Sprint(*b)
}

// featureTasksCell shows the active task and how many tasks are left, e.g.
// "wait-for-uses (1/3)", and the component that completes it when one owns
// it, e.g. "migrate-widgets (1/1, by widget-controller)"; "<none>" in a
// final state.
func featureTasksCell(tasks []features.FeatureTask) string {
	if len(tasks) == 0 {
		return "<none>"
	}
	if owner := tasks[0].Owner; owner != "" {
		return fmt.Sprintf("%s (1/%d, by %s)", tasks[0].Name, len(tasks), owner)
	}
	return fmt.Sprintf("%s (1/%d)", tasks[0].Name, len(tasks))
}

// featureRolloutCell shows where a rollout in steps stands, e.g.
// "Progressing 2/5 (2 of 20 nodes)" or "Progressing 1/2 (1 of 3
// apiservers)"; "<none>" without spec.rollout.
func featureRolloutCell(f *features.Feature) string {
	r := f.Status.Rollout
	switch {
	case f.Spec.Rollout == nil:
		return "<none>"
	case r == nil || r.To != f.Spec.DesiredState:
		return "Starting"
	}
	steps := len(f.Spec.Rollout.Steps)
	if steps == 0 {
		steps = DefaultRolloutSteps
	}
	noun := "nodes"
	if r.Scope == features.FeatureRolloutScopeAPIServers {
		noun = "apiservers"
	}
	return fmt.Sprintf("%s %d/%d (%d of %d %s)", r.Phase, r.Step, steps, r.Members, r.Candidates, noun)
}

// DefaultRolloutSteps is how many steps a rollout that sets none has.
const DefaultRolloutSteps = 5

// featureSafetyCell shows a version safety condition: "Safe", the reason it is
// False (e.g. "TurnsOffAtTarget"), or "<unknown>".
func featureSafetyCell(conditions []metav1.Condition, condition string) string {
	c := meta.FindStatusCondition(conditions, condition)
	switch {
	case c == nil || c.Status == metav1.ConditionUnknown:
		return "<unknown>"
	case c.Status == metav1.ConditionTrue:
		return "Safe"
	}
	return c.Reason
}

// featureReportColumnDefinitions are the printer columns of `kubectl get featurereports`.
var featureReportColumnDefinitions = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "<component>.<identity>."},
	{Name: "Component", Type: "string", Description: "The reporting component (spec.component)."},
	{Name: "Identity", Type: "string", Description: "The reporting process (spec.identity)."},
	{Name: "Gates", Type: "string", Description: "How many gates are reported, and how many of them are enabled."},
	{Name: "Renewed", Type: "string", Description: "Time since the report was last written or renewed (spec.renewTime)."},
	{Name: "Age", Type: "string", Description: "Time since the report was created."},
	{Name: "Liveness", Type: "string", Priority: 1, Description: "What says the reporter is alive: its holder lease, or its own lease duration."},
}

func printFeatureReport(r *features.FeatureReport, _ printers.GenerateOptions) ([]metav1.TableRow, error) {
	enabled := 0
	for _, g := range r.Spec.Gates {
		if g.Enabled {
			enabled++
		}
	}
	renewed := "<unknown>"
	if r.Spec.RenewTime != nil {
		renewed = translateMicroTimestampSince(*r.Spec.RenewTime)
	}
	liveness := "<unknown>"
	switch {
	case r.Spec.HolderLease != nil:
		liveness = "lease " + r.Spec.HolderLease.Namespace + "/" + r.Spec.HolderLease.Name
	case r.Spec.LeaseDurationSeconds != nil:
		liveness = fmt.Sprintf("%ds", *r.Spec.LeaseDurationSeconds)
	}
	row := metav1.TableRow{Object: runtime.RawExtension{Object: r}}
	row.Cells = append(row.Cells, r.Name, r.Spec.Component, r.Spec.Identity,
		fmt.Sprintf("%d (%d enabled)", len(r.Spec.Gates), enabled), renewed, translateTimestampSince(r.CreationTimestamp), liveness)
	return []metav1.TableRow{row}, nil
}

func printFeatureReportList(list *features.FeatureReportList, opts printers.GenerateOptions) ([]metav1.TableRow, error) {
	rows := make([]metav1.TableRow, 0, len(list.Items))
	for i := range list.Items {
		r, err := printFeatureReport(&list.Items[i], opts)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// featureTargetColumnDefinitions are the printer columns of `kubectl get
// featuretargets`.
var featureTargetColumnDefinitions = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "The name of the Feature followed."},
	{Name: "Gate", Type: "string", Description: "The feature gate (spec.gate)."},
	{Name: "Management", Type: "string", Description: "Central or Dynamic (spec.management)."},
	{Name: "Desired", Type: "string", Description: "The value followers take, outside a rollout's cohort (spec.desiredState)."},
	{Name: "Cohort", Type: "string", Description: "During a rollout, the value its cohort takes and who is in it: the share of ranks below the threshold and the node selectors (spec.rollout)."},
	{Name: "Age", Type: "string", Description: "Time since the target was created."},
}

func printFeatureTarget(t *features.FeatureTarget, _ printers.GenerateOptions) ([]metav1.TableRow, error) {
	row := metav1.TableRow{Object: runtime.RawExtension{Object: t}}
	row.Cells = append(row.Cells, t.Name, t.Spec.Gate, string(t.Spec.Management), featureOrNone(string(t.Spec.DesiredState)),
		featureTargetCohortCell(t.Spec.Rollout), translateTimestampSince(t.CreationTimestamp))
	return []metav1.TableRow{row}, nil
}

func printFeatureTargetList(list *features.FeatureTargetList, opts printers.GenerateOptions) ([]metav1.TableRow, error) {
	rows := make([]metav1.TableRow, 0, len(list.Items))
	for i := range list.Items {
		r, err := printFeatureTarget(&list.Items[i], opts)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// featureTargetCohortCell says who takes a rollout's value: "Enabled for all",
// "Enabled for 25% of ranks and 1 selector", or <none> without a rollout.
func featureTargetCohortCell(r *features.FeatureTargetRollout) string {
	if r == nil {
		return "<none>"
	}
	if r.Cohort.All {
		return string(r.DesiredState) + " for all"
	}
	share := "0%"
	if below, err := strconv.ParseUint(r.Cohort.Below, 10, 64); err == nil && below > 0 {
		share = strconv.FormatFloat(float64(below)/math.MaxUint64*100, 'g', 3, 64) + "%"
	}
	cell := string(r.DesiredState) + " for " + share + " of ranks"
	switch n := len(r.Cohort.Selectors); n {
	case 0:
	case 1:
		cell += " and 1 selector"
	default:
		cell += fmt.Sprintf(" and %d selectors", n)
	}
	return cell
}
