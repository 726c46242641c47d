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

package feature

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	"k8s.io/kubernetes/pkg/printers"

	"k8s.io/featureflags/pkg/apis/features"
)

// columns are the printer columns of `kubectl get features`.
var columns = []metav1.TableColumnDefinition{
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
}

// AddHandlers registers the table printers of Features.
func AddHandlers(h printers.PrintHandler) {
	_ = h.TableHandler(columns, printFeature)
	_ = h.TableHandler(columns, printFeatureList)
}

func printFeature(f *features.Feature, _ printers.GenerateOptions) ([]metav1.TableRow, error) {
	row := metav1.TableRow{Object: runtime.RawExtension{Object: f}}
	row.Cells = append(row.Cells,
		f.Name,
		orNone(string(f.Spec.DesiredState)),
		orNone(string(f.Status.State)),
		orNone(string(f.Status.PreRelease)),
		defaultCell(f.Status.Default),
		tasksCell(f.Status.Tasks),
		age(f.CreationTimestamp),
		f.Spec.Gate,
		orNone(f.Status.Version),
		safetyCell(f.Status.Conditions, featuresv1alpha1.FeatureConditionUpgradeSafe),
		safetyCell(f.Status.Conditions, featuresv1alpha1.FeatureConditionDowngradeSafe),
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

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func defaultCell(b *bool) string {
	if b == nil {
		return "<unknown>"
	}
	return fmt.Sprint(*b)
}

// tasksCell shows the active task and how many tasks are left, e.g.
// "wait-for-uses (1/3)"; "<none>" in a final state.
func tasksCell(tasks []features.FeatureTask) string {
	if len(tasks) == 0 {
		return "<none>"
	}
	return fmt.Sprintf("%s (1/%d)", tasks[0].Name, len(tasks))
}

// safetyCell shows a version safety condition: "Safe", the reason it is
// False (e.g. "TurnsOffAtTarget"), or "<unknown>".
func safetyCell(conditions []metav1.Condition, condition string) string {
	c := meta.FindStatusCondition(conditions, condition)
	switch {
	case c == nil || c.Status == metav1.ConditionUnknown:
		return "<unknown>"
	case c.Status == metav1.ConditionTrue:
		return "Safe"
	}
	return c.Reason
}

func age(ts metav1.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}
