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
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/features"
	"k8s.io/kubernetes/pkg/printers"
	"k8s.io/utils/ptr"
)

var wantFeatureColumns = []struct {
	name     string
	priority int32
}{
	{"Name", 0},
	{"Desired", 0},
	{"State", 0},
	{"Stage", 0},
	{"Default", 0},
	{"Tasks", 0},
	{"Age", 0},
	{"Gate", 1},
	{"Version", 1},
	{"Upgrade", 1},
	{"Downgrade", 1},
	{"Rollout", 1},
}

// printedFeature returns a Feature created two hours ago. Upstream's
// duration.HumanDuration prints ages under three hours in minutes, so its Age
// cell is "120m" (kubectl prints the same), not "2h".
func printedFeature() *features.Feature {
	return &features.Feature{
		ObjectMeta: metav1.ObjectMeta{
			Name:              "max-unavailable-stateful-set",
			Namespace:         "kube-system",
			CreationTimestamp: metav1.NewTime(time.Now().Add(-2 * time.Hour)),
		},
		Spec: features.FeatureSpec{
			Gate:         "MaxUnavailableStatefulSet",
			DesiredState: features.FeatureDesiredStateEnabled,
			Management:   features.FeatureManagementCommandLine,
		},
		Status: features.FeatureStatus{
			State:      features.FeatureStateDisabling,
			PreRelease: features.FeaturePreReleaseBeta,
			Default:    ptr.To(true),
			Version:    "1.36",
			Tasks: []features.FeatureTask{
				{Name: "wait-for-uses"},
				{Name: "clear-fields"},
			},
		},
	}
}

func generateFeatureTable(t *testing.T, obj runtime.Object, wide bool) *metav1.Table {
	t.Helper()
	generator := printers.NewTableGenerator().With(addFeaturesHandlers)
	table, err := generator.GenerateTable(obj, printers.GenerateOptions{Wide: wide})
	if err != nil {
		t.Fatalf("GenerateTable: %v", err)
	}
	return table
}

func featureCells(t *testing.T, row metav1.TableRow) []string {
	t.Helper()
	out := make([]string, 0, len(row.Cells))
	for i, c := range row.Cells {
		s, ok := c.(string)
		if !ok {
			t.Fatalf("cell %d is %T (%v), want string", i, c, c)
		}
		out = append(out, s)
	}
	return out
}

func TestFeatureTableColumns(t *testing.T) {
	table := generateFeatureTable(t, printedFeature(), true)
	if len(table.ColumnDefinitions) != len(wantFeatureColumns) {
		t.Fatalf("got %d columns, want %d: %+v", len(table.ColumnDefinitions), len(wantFeatureColumns), table.ColumnDefinitions)
	}
	for i, want := range wantFeatureColumns {
		got := table.ColumnDefinitions[i]
		if got.Name != want.name {
			t.Errorf("column %d: name %q, want %q", i, got.Name, want.name)
		}
		if got.Priority != want.priority {
			t.Errorf("column %q: priority %d, want %d", got.Name, got.Priority, want.priority)
		}
	}

	// Without Wide the priority-1 columns (Gate, Version) are left out.
	narrow := generateFeatureTable(t, printedFeature(), false)
	var names []string
	for _, c := range narrow.ColumnDefinitions {
		names = append(names, c.Name)
	}
	wantNarrow := []string{"Name", "Desired", "State", "Stage", "Default", "Tasks", "Age"}
	if !reflect.DeepEqual(names, wantNarrow) {
		t.Errorf("narrow columns: got %v, want %v", names, wantNarrow)
	}

	// The list handler prints the same columns.
	list := generateFeatureTable(t, &features.FeatureList{}, true)
	if !reflect.DeepEqual(list.ColumnDefinitions, table.ColumnDefinitions) {
		t.Errorf("list columns differ from item columns:\n%+v\n%+v", list.ColumnDefinitions, table.ColumnDefinitions)
	}
	if len(list.Rows) != 0 {
		t.Errorf("an empty list must print no rows, got %d", len(list.Rows))
	}
}

func TestPrintFeature(t *testing.T) {
	tests := []struct {
		name    string
		feature *features.Feature
		want    []string
	}{
		{
			name:    "full",
			feature: printedFeature(),
			want:    []string{"max-unavailable-stateful-set", "Enabled", "Disabling", "Beta", "true", "wait-for-uses (1/2)", "120m", "MaxUnavailableStatefulSet", "1.36", "<unknown>", "<unknown>", "<none>"},
		},
		{
			name: "default false, one task",
			feature: func() *features.Feature {
				f := printedFeature()
				f.Spec.DesiredState = features.FeatureDesiredStateDisabled
				f.Status.State = features.FeatureStateDisabled
				f.Status.PreRelease = features.FeaturePreReleaseAlpha
				f.Status.Default = ptr.To(false)
				f.Status.Tasks = f.Status.Tasks[1:]
				f.CreationTimestamp = metav1.NewTime(time.Now().Add(-90 * time.Second))
				f.Status.Conditions = []metav1.Condition{
					{Type: "UpgradeSafe", Status: metav1.ConditionTrue, Reason: "NothingBlocks"},
					{Type: "DowngradeSafe", Status: metav1.ConditionFalse, Reason: "TurnsOffAtTarget"},
				}
				return f
			}(),
			want: []string{"max-unavailable-stateful-set", "Disabled", "Disabled", "Alpha", "false", "clear-fields (1/1)", "90s", "MaxUnavailableStatefulSet", "1.36", "Safe", "TurnsOffAtTarget", "<none>"},
		},
		{
			name: "a task its owner completes",
			feature: func() *features.Feature {
				f := printedFeature()
				f.Status.Tasks = []features.FeatureTask{{Name: "migrate-widgets", Owner: "widget-controller"}}
				return f
			}(),
			want: []string{"max-unavailable-stateful-set", "Enabled", "Disabling", "Beta", "true", "migrate-widgets (1/1, by widget-controller)", "120m", "MaxUnavailableStatefulSet", "1.36", "<unknown>", "<unknown>", "<none>"},
		},
		{
			name: "ten hours old",
			feature: func() *features.Feature {
				f := printedFeature()
				f.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * time.Hour))
				return f
			}(),
			want: []string{"max-unavailable-stateful-set", "Enabled", "Disabling", "Beta", "true", "wait-for-uses (1/2)", "10h", "MaxUnavailableStatefulSet", "1.36", "<unknown>", "<unknown>", "<none>"},
		},
		{
			name: "rolling out in steps",
			feature: func() *features.Feature {
				f := printedFeature()
				f.Spec.Rollout = &features.FeatureRollout{}
				f.Status.Rollout = &features.FeatureRolloutStatus{Phase: "Progressing", From: features.FeatureDesiredStateDisabled,
					To: f.Spec.DesiredState, Step: 2, Members: 2, Candidates: 20}
				return f
			}(),
			want: []string{"max-unavailable-stateful-set", "Enabled", "Disabling", "Beta", "true", "wait-for-uses (1/2)", "120m", "MaxUnavailableStatefulSet", "1.36", "<unknown>", "<unknown>", "Progressing 2/5 (2 of 20 nodes)"},
		},
		{
			name: "rolling out on apiservers",
			feature: func() *features.Feature {
				f := printedFeature()
				f.Spec.Rollout = &features.FeatureRollout{Steps: []features.FeatureRolloutStep{{Count: 1}, {Percent: 100}}}
				f.Status.Rollout = &features.FeatureRolloutStatus{Phase: "Progressing", Scope: features.FeatureRolloutScopeAPIServers,
					From: features.FeatureDesiredStateDisabled, To: f.Spec.DesiredState, Step: 1, Members: 1, Candidates: 3}
				return f
			}(),
			want: []string{"max-unavailable-stateful-set", "Enabled", "Disabling", "Beta", "true", "wait-for-uses (1/2)", "120m", "MaxUnavailableStatefulSet", "1.36", "<unknown>", "<unknown>", "Progressing 1/2 (1 of 3 apiservers)"},
		},
		{
			name:    "empty",
			feature: &features.Feature{},
			want:    []string{"", "<none>", "<none>", "<none>", "<unknown>", "<none>", "<unknown>", "", "<none>", "<unknown>", "<unknown>", "<none>"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table := generateFeatureTable(t, tc.feature, true)
			if len(table.Rows) != 1 {
				t.Fatalf("got %d rows, want 1", len(table.Rows))
			}
			row := table.Rows[0]
			if got := featureCells(t, row); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cells:\n got %q\nwant %q", got, tc.want)
			}
			if row.Object.Object != tc.feature {
				t.Errorf("row object must be the printed Feature, got %v", row.Object.Object)
			}
		})
	}
}

func TestPrintFeatureList(t *testing.T) {
	a := printedFeature()
	b := printedFeature()
	b.Name = "hpa-scale-to-zero"
	b.Spec.Gate = "HPAScaleToZero"
	b.Spec.DesiredState = features.FeatureDesiredStateDisabled
	b.Status = features.FeatureStatus{}
	c := &features.Feature{}
	c.Name = "kmsv2"
	c.Spec.Gate = "KMSv2"
	c.Status.State = features.FeatureStateEnabled
	c.Status.Default = ptr.To(true)
	c.Status.PreRelease = features.FeaturePreReleaseGA

	list := &features.FeatureList{
		ListMeta: metav1.ListMeta{ResourceVersion: "42"},
		Items:    []features.Feature{*a, *b, *c},
	}
	table := generateFeatureTable(t, list, true)
	if table.ResourceVersion != "42" {
		t.Errorf("table resourceVersion: got %q, want %q", table.ResourceVersion, "42")
	}
	want := [][]string{
		{"max-unavailable-stateful-set", "Enabled", "Disabling", "Beta", "true", "wait-for-uses (1/2)", "120m", "MaxUnavailableStatefulSet", "1.36", "<unknown>", "<unknown>", "<none>"},
		{"hpa-scale-to-zero", "Disabled", "<none>", "<none>", "<unknown>", "<none>", "120m", "HPAScaleToZero", "<none>", "<unknown>", "<unknown>", "<none>"},
		{"kmsv2", "<none>", "Enabled", "GA", "true", "<none>", "<unknown>", "KMSv2", "<none>", "<unknown>", "<unknown>", "<none>"},
	}
	if len(table.Rows) != len(want) {
		t.Fatalf("got %d rows, want %d", len(table.Rows), len(want))
	}
	for i, row := range table.Rows {
		if got := featureCells(t, row); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("row %d:\n got %q\nwant %q", i, got, want[i])
		}
		obj, ok := row.Object.Object.(*features.Feature)
		if !ok {
			t.Fatalf("row %d object is %T, want *features.Feature", i, row.Object.Object)
		}
		if obj != &list.Items[i] {
			t.Errorf("row %d object must point at list item %d, got %s", i, i, obj.Name)
		}
	}
}

func TestPrintFeatureReport(t *testing.T) {
	lease := &features.FeatureReportLease{Namespace: "kube-node-lease", Name: "n1"}
	r := &features.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: "kubelet.n1", CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))},
		Spec: features.FeatureReportSpec{Component: "kubelet", Identity: "n1", HolderLease: lease,
			Gates: []features.FeatureReportGate{{Name: "A", Enabled: true}, {Name: "B"}}},
	}
	table, err := printers.NewTableGenerator().With(addFeaturesHandlers).GenerateTable(r, printers.GenerateOptions{Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	cells := table.Rows[0].Cells
	want := []any{"kubelet.n1", "kubelet", "n1", "2 (1 enabled)", "<unknown>", "60m", "lease kube-node-lease/n1"}
	if len(cells) != len(want) {
		t.Fatalf("cells %v, want %v", cells, want)
	}
	for i := range want {
		if cells[i] != want[i] {
			t.Errorf("cell %d (%s): %v, want %v", i, table.ColumnDefinitions[i].Name, cells[i], want[i])
		}
	}
}

func TestPrintFeatureTarget(t *testing.T) {
	created := metav1.NewTime(time.Now().Add(-time.Hour))
	rollout := func(c features.FeatureCohort) *features.FeatureTargetRollout {
		return &features.FeatureTargetRollout{Scope: "Nodes", DesiredState: features.FeatureDesiredStateEnabled, Cohort: c}
	}
	for _, tc := range []struct {
		rollout *features.FeatureTargetRollout
		want    string
	}{
		{nil, "<none>"},
		{rollout(features.FeatureCohort{All: true}), "Enabled for all"},
		{rollout(features.FeatureCohort{Below: "4611686018427387904"}), "Enabled for 25% of ranks"},
		{rollout(features.FeatureCohort{Selectors: []metav1.LabelSelector{{}, {}}}), "Enabled for 0% of ranks and 2 selectors"},
	} {
		target := &features.FeatureTarget{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-deletion-cost", CreationTimestamp: created},
			Spec: features.FeatureTargetSpec{Gate: "PodDeletionCost", Management: features.FeatureManagementDynamic,
				DesiredState: features.FeatureDesiredStateDisabled, Rollout: tc.rollout},
		}
		table, err := printers.NewTableGenerator().With(addFeaturesHandlers).GenerateTable(
			&features.FeatureTargetList{Items: []features.FeatureTarget{*target}}, printers.GenerateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []any{"pod-deletion-cost", "PodDeletionCost", "Dynamic", "Disabled", tc.want, "60m"}
		cells := table.Rows[0].Cells
		if len(cells) != len(want) {
			t.Fatalf("cells %v, want %v", cells, want)
		}
		for i := range want {
			if cells[i] != want[i] {
				t.Errorf("cell %d (%s): %v, want %v", i, table.ColumnDefinitions[i].Name, cells[i], want[i])
			}
		}
	}
}
