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

package lifecycle

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// named is a task that only has a name.
func named(name string) tasks.Task {
	return tasks.Custom(name, "test task "+name, func(context.Context, tasks.Env, *featuresv1alpha1.Feature, featuresv1alpha1.FeatureTask, time.Time) (tasks.Outcome, error) {
		return tasks.Outcome{Done: true}, nil
	})
}

// boundaries is a lifecycle with a boundary in each direction at 1.35,
// 1.36 and 1.37.
var boundaries = Lifecycle{
	OnDisable: []tasks.Task{named("clear")},
	Upgrades: []OnUpgrade{
		{To: "1.37", Tasks: []tasks.Task{named("up-37")}},
		{To: "1.35", Tasks: []tasks.Task{named("up-35a"), named("up-35b")}},
		{To: "1.36", Tasks: []tasks.Task{named("up-36")}},
	},
	Downgrades: []OnDowngrade{
		{Below: "1.36", Tasks: []tasks.Task{named("down-36")}},
		{Below: "1.37", Tasks: []tasks.Task{named("down-37")}},
		{Below: "1.35", Tasks: []tasks.Task{named("down-35")}},
	},
}

// TestVersionMove checks which version-keyed tasks run and which are
// cancelled for every kind of move: one version up or down, skipping
// versions, staying, and outside the boundaries.
func TestVersionMove(t *testing.T) {
	for _, tc := range []struct {
		from, to    string
		run, cancel string
	}{
		{"1.35", "1.35", "", ""},
		{"1.34", "1.35", "up-35a,up-35b", "down-35"},
		{"1.35", "1.36", "up-36", "down-36"},
		{"1.36", "1.37", "up-37", "down-37"},
		// Skipping versions runs every boundary on the way, in order.
		{"1.34", "1.37", "up-35a,up-35b,up-36,up-37", "down-35,down-36,down-37"},
		{"1.35", "1.37", "up-36,up-37", "down-36,down-37"},
		// Down: the boundaries below the old version, highest first.
		{"1.37", "1.36", "down-37", "up-37"},
		{"1.36", "1.35", "down-36", "up-36"},
		{"1.37", "1.34", "down-37,down-36,down-35", "up-35a,up-35b,up-36,up-37"},
		// Boundaries outside the move do not count.
		{"1.37", "1.38", "", ""},
		{"1.32", "1.34", "", ""},
		{"1.34", "1.32", "", ""},
		// Patch versions of the same minor move nothing.
		{"1.36.0", "1.36.2", "", ""},
	} {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			move, err := boundaries.VersionMove(tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			var run []string
			for _, task := range move.Run {
				run = append(run, task.Name())
			}
			if got := strings.Join(run, ","); got != tc.run {
				t.Errorf("run %q, want %q", got, tc.run)
			}
			if got := strings.Join(slices.Sorted(slices.Values(move.Cancel.UnsortedList())), ","); got != tc.cancel {
				t.Errorf("cancel %q, want %q", got, tc.cancel)
			}
		})
	}
	if _, err := boundaries.VersionMove("1.x", "1.36"); err == nil {
		t.Error("a version that does not parse must fail")
	}
}

// TestVersionMoveBackMidway applies moves to a pending list the way the
// lifecycle controller does (cancel, then append what is not pending):
// going up and back before the upgrade tasks finished leaves only the
// downgrade tasks; going up twice keeps the first step's tasks.
func TestVersionMoveBackMidway(t *testing.T) {
	apply := func(pending []string, from, to string) []string {
		move, err := boundaries.VersionMove(from, to)
		if err != nil {
			t.Fatal(err)
		}
		out := slices.DeleteFunc(slices.Clone(pending), move.Cancel.Has)
		for _, task := range move.Run {
			if !slices.Contains(out, task.Name()) {
				out = append(out, task.Name())
			}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		moves []string
		want  string
	}{
		{"up then back", []string{"1.35", "1.36", "1.35"}, "down-36"},
		{"up, up", []string{"1.34", "1.35", "1.36"}, "up-35a,up-35b,up-36"},
		{"up two, back one", []string{"1.34", "1.36", "1.35"}, "up-35a,up-35b,down-36"},
		{"down then up again", []string{"1.36", "1.35", "1.36"}, "up-36"},
		{"up and back twice", []string{"1.35", "1.36", "1.35", "1.36", "1.35"}, "down-36"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pending []string
			for i := 1; i < len(tc.moves); i++ {
				pending = apply(pending, tc.moves[i-1], tc.moves[i])
			}
			if got := strings.Join(pending, ","); got != tc.want {
				t.Errorf("pending %q, want %q", got, tc.want)
			}
		})
	}
}

// TestValidateVersionTasks checks the boundaries' rules: versions that
// parse, names unique across the lifecycle.
func TestValidateVersionTasks(t *testing.T) {
	if err := boundaries.ValidateVersionTasks(); err != nil {
		t.Fatal(err)
	}
	if boundaries.VersionTask("up-36") == nil || boundaries.IsVersionTask("clear") {
		t.Error("VersionTask must find version-keyed tasks only")
	}
	for name, lc := range map[string]Lifecycle{
		"bad version":      {Upgrades: []OnUpgrade{{To: "next", Tasks: []tasks.Task{named("a")}}}},
		"twice":            {Upgrades: []OnUpgrade{{To: "1.36", Tasks: []tasks.Task{named("a")}}}, Downgrades: []OnDowngrade{{Below: "1.36", Tasks: []tasks.Task{named("a")}}}},
		"as a transition":  {OnDisable: []tasks.Task{named("a")}, Downgrades: []OnDowngrade{{Below: "1.36", Tasks: []tasks.Task{named("a")}}}},
		"as wait-for-uses": {Upgrades: []OnUpgrade{{To: "1.36", Tasks: []tasks.Task{named(tasks.WaitForUsesName)}}}},
	} {
		if err := lc.ValidateVersionTasks(); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
