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
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/version"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// OnUpgrade holds tasks that run when the cluster's emulation version
// rises from below To to To or above: converting or clearing data the
// lower version wrote that the higher one does not accept, rewriting
// objects at a storage version that changed at To.
type OnUpgrade struct {
	// To is the version, major.minor, whose crossing upwards runs Tasks.
	To string
	// Tasks run in order, after the tasks of any transition the move
	// starts.
	Tasks []tasks.Task
}

// OnDowngrade holds tasks that run when the cluster's emulation version
// falls from Below or above to below Below: clearing data the lower
// version cannot read, waiting until objects of an API the lower version
// does not serve are gone.
type OnDowngrade struct {
	// Below is the version, major.minor, whose crossing downwards runs
	// Tasks.
	Below string
	// Tasks run in order, after the tasks of any transition the move
	// starts.
	Tasks []tasks.Task
}

// VersionMove is what a move of the cluster's emulation version does to
// the version-keyed tasks of one gate.
type VersionMove struct {
	// Run are the tasks the move queues, in order: the boundaries of an
	// upgrade ascending, those of a downgrade descending (a move that skips
	// versions crosses every boundary on the way, in the order a step by
	// step move would).
	Run []tasks.Task
	// Cancel are the names of the version-keyed tasks the move makes moot:
	// those of the opposite direction whose boundary it crosses back (an
	// upgrade to 1.36 that had not finished when the cluster went back to
	// 1.35 need not finish; the downgrade tasks below 1.36 run instead).
	Cancel sets.Set[string]
}

// VersionMove returns what moving the cluster's emulation version from
// from to to does to l's version-keyed tasks: an upgrade runs every
// OnUpgrade with from < To <= to and cancels every OnDowngrade with
// from < Below <= to; a downgrade runs every OnDowngrade with
// to < Below <= from and cancels every OnUpgrade with to < To <= from.
// Equal versions move nothing.
func (l Lifecycle) VersionMove(from, to string) (VersionMove, error) {
	move := VersionMove{Cancel: sets.New[string]()}
	lo, err := version.Parse(from)
	if err != nil {
		return move, fmt.Errorf("version %q: %w", from, err)
	}
	hi, err := version.Parse(to)
	if err != nil {
		return move, fmt.Errorf("version %q: %w", to, err)
	}
	up := lo.LessThan(hi)
	if !up {
		lo, hi = hi, lo
	}
	if lo.EqualTo(hi) {
		return move, nil
	}
	// crossed reports whether boundary b lies in (lo, hi].
	crossed := func(b string) (*version.Version, bool) {
		v, err := version.Parse(b)
		return v, err == nil && lo.LessThan(v) && !hi.LessThan(v)
	}
	type keyed struct {
		at    *version.Version
		tasks []tasks.Task
	}
	var run []keyed
	for _, u := range l.Upgrades {
		if at, ok := crossed(u.To); ok {
			if up {
				run = append(run, keyed{at, u.Tasks})
			} else {
				move.Cancel.Insert(taskNames(u.Tasks)...)
			}
		}
	}
	for _, d := range l.Downgrades {
		if at, ok := crossed(d.Below); ok {
			if up {
				move.Cancel.Insert(taskNames(d.Tasks)...)
			} else {
				run = append(run, keyed{at, d.Tasks})
			}
		}
	}
	slices.SortStableFunc(run, func(a, b keyed) int {
		c := 0
		switch {
		case a.at.LessThan(b.at):
			c = -1
		case b.at.LessThan(a.at):
			c = 1
		}
		if !up {
			c = -c
		}
		return c
	})
	for _, k := range run {
		move.Run = append(move.Run, k.tasks...)
	}
	return move, nil
}

// VersionTask returns the version-keyed task of l named name, or nil.
func (l Lifecycle) VersionTask(name string) tasks.Task {
	for _, list := range l.versionTaskLists() {
		for _, t := range list {
			if t != nil && t.Name() == name {
				return t
			}
		}
	}
	return nil
}

// IsVersionTask reports whether name is a version-keyed task of l.
func (l Lifecycle) IsVersionTask(name string) bool { return l.VersionTask(name) != nil }

// versionTaskLists returns the task lists of every boundary of l.
func (l Lifecycle) versionTaskLists() [][]tasks.Task {
	var out [][]tasks.Task
	for _, u := range l.Upgrades {
		out = append(out, u.Tasks)
	}
	for _, d := range l.Downgrades {
		out = append(out, d.Tasks)
	}
	return out
}

// ValidateVersionTasks checks l's boundaries: versions that parse, and task
// names unique across the whole lifecycle (a transition's list and the
// version-keyed tasks pending beside it share status.tasks).
func (l Lifecycle) ValidateVersionTasks() error {
	for _, u := range l.Upgrades {
		if _, err := version.Parse(u.To); err != nil {
			return fmt.Errorf("OnUpgrade To %q: %w", u.To, err)
		}
	}
	for _, d := range l.Downgrades {
		if _, err := version.Parse(d.Below); err != nil {
			return fmt.Errorf("OnDowngrade Below %q: %w", d.Below, err)
		}
	}
	seen := sets.New(tasks.WaitForUsesName)
	for _, list := range append([][]tasks.Task{l.OnEnable}, l.versionTaskLists()...) {
		for _, t := range list {
			if t == nil {
				return fmt.Errorf("a version-keyed task is nil")
			}
			if seen.Has(t.Name()) {
				return fmt.Errorf("task name %q is used twice", t.Name())
			}
			seen.Insert(t.Name())
		}
	}
	for _, list := range l.versionTaskLists() {
		for _, t := range list {
			if slices.ContainsFunc(l.OnDisable, func(d tasks.Task) bool { return d != nil && d.Name() == t.Name() }) {
				return fmt.Errorf("task name %q is used twice", t.Name())
			}
		}
	}
	return nil
}

// taskNames returns the names of list.
func taskNames(list []tasks.Task) []string {
	out := make([]string, 0, len(list))
	for _, t := range list {
		if t != nil {
			out = append(out, t.Name())
		}
	}
	return out
}
