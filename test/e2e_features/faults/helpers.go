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

// Package faults holds the fault tests of the feature lifecycle on a control
// plane in containers (test/e2e_features/framework): an etcd member killed
// during a transition, a rolling flag change across the apiservers and the
// leader of many Features killed here; a migration leader cut off the
// network in faults/partition, its own package so that each package stays
// well within go test's 10 minutes. Each test asserts what must hold and
// logs what it measured. This file holds what the fault tests share.
package faults

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"k8s.io/kubernetes/test/e2e_features/framework"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// LivenessWindow is the apiservers' livenessWindow (their
// --feature-lifecycle-config-file):
// just above the identity leases' 10 s renewal, so that failover is quick.
const LivenessWindow = 15 * time.Second

// TakeoverBound is how soon after a leader is cut off or killed another
// apiserver must lead its Features: its identity lease, renewed just before
// the fault, still counts as live for the liveness window; the survivors
// look at every Feature again every half window (and on every lease event);
// and 10 s are left for the takeover itself and for the tests' scrape of
// the leader gauges on apiservers busy with a migration. A CI run took over
// 25.4 s after a partition, just past the window plus 10 s alone.
const TakeoverBound = LivenessWindow + LivenessWindow/2 + 10*time.Second

// LifecycleFlags are the apiserver flags that serve the feature lifecycle,
// with gates appended to FeatureLifecycle=true (",Gate=false,...") and the
// lifecycle configured with LivenessWindow and config, more fields of a
// FeatureLifecycleConfiguration in YAML (empty: none).
func LifecycleFlags(gates, config string) []string {
	return []string{"--feature-gates=FeatureLifecycle=true" + gates,
		"--runtime-config=features.k8s.io/v1alpha1=true",
		framework.LifecycleConfigFlag("livenessWindow: " + LivenessWindow.String() + "\n" + config)}
}

// RollAPIServers restarts the apiservers one at a time with args(i), each
// marked down in clients while it restarts. graceful stops each with
// SIGTERM (it deletes its identity lease); otherwise it is killed, as a
// crash-looping or force-restarted static pod is.
func RollAPIServers(t *testing.T, c *framework.Cluster, clients *featuretest.Clients, graceful bool, args func(i int) []string) {
	t.Helper()
	for i, a := range c.APIServers {
		start := time.Now()
		clients.SetDown(i, true)
		a.Recreate(t, graceful, args(i)...)
		clients.SetDown(i, false)
		t.Logf("%s restarted in %.1fs", a.Name, time.Since(start).Seconds())
	}
}

// TaskCompletedEvents returns the messages of the TaskCompleted events of
// Feature name that name task.
func TaskCompletedEvents(t *testing.T, clients *featuretest.Clients, name, task string) []string {
	t.Helper()
	events, err := clients.Kube[clients.Pick(0)].CoreV1().Events("kube-system").List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", name),
			fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range events.Items {
		if strings.HasPrefix(e.Message, "task "+task+":") {
			out = append(out, e.Message)
		}
	}
	return out
}

// CheckCheckpoints fails the test unless the observed checkpoints of the
// migration task never go back: within a retry (a pass that left objects
// uncleared is followed by another from the start, counted in Retries) the
// pass, pages, objects seen and cleared only grow, and Retries never
// decreases. A retry must follow a pass with failures. It returns the
// number of retries.
func CheckCheckpoints(t *testing.T, cps []featuretest.ClearFieldsCheckpoint, ats []time.Time, since time.Time) int64 {
	t.Helper()
	if len(cps) < 2 {
		t.Fatalf("the watch saw %d checkpoints of %s; the migration must take several pages", len(cps), featuretest.MigrationTask)
	}
	for i, cp := range cps {
		m := cp.Migration
		if len(cp.Remaining) != 1 || m.Pass != 1 || m.Done {
			t.Errorf("checkpoint %d: %v %s; want passes over %s alone", i, cp.Remaining, featuretest.Brief(m), featuretest.MigrationResource)
		}
		if i == 0 {
			continue
		}
		prev := cps[i-1]
		switch {
		case cp.Retries < prev.Retries:
			t.Errorf("the migration went back from retry %d to retry %d (at %.1fs)", prev.Retries, cp.Retries, ats[i].Sub(since).Seconds())
		case cp.Retries > prev.Retries:
			if prev.Migration.Failed == 0 {
				t.Errorf("a retry pass (%d) after a checkpoint without failures: %s (at %.1fs)", cp.Retries, featuretest.Brief(prev.Migration), ats[i].Sub(since).Seconds())
			}
		default:
			p := prev.Migration
			if m.Pass != p.Pass || m.Seen < p.Seen || m.Pages < p.Pages || m.Changed < p.Changed {
				t.Errorf("the migration went back from %s to %s (at %.1fs)", featuretest.Brief(p), featuretest.Brief(m), ats[i].Sub(since).Seconds())
			}
		}
	}
	return cps[len(cps)-1].Retries
}

// TaskMessages returns the distinct messages of the migration task seen by
// the watch, in order.
func TaskMessages(w *featuretest.FeatureWatcher) []string {
	var out []string
	for _, o := range w.Get() {
		for _, task := range o.Feature.Status.Tasks {
			if task.Name == featuretest.MigrationTask && task.Message != "" && !slices.Contains(out, task.Message) {
				out = append(out, task.Message)
			}
		}
	}
	return out
}

// Durations formats a sorted list of Durations as min / median / max.
func Durations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("min %.1fs, median %.1fs, max %.1fs", s[0].Seconds(), s[len(s)/2].Seconds(), s[len(s)-1].Seconds())
}

// MigrationFlags are the apiserver flags of the migration tests, with
// MaxUnavailableStatefulSet on or off and the migration limited to qps
// writes per second in pages of pageSize.
func MigrationFlags(on bool, qps, pageSize int) []string {
	return LifecycleFlags(","+featuretest.MigrationGate+"="+strconv.FormatBool(on), fmt.Sprintf(
		"waitForUsesPeriod: 3s\nmigration:\n  qps: %d\n  burst: 10\n  pageSize: %d\n", qps, pageSize))
}

// TurnMigrationGateOff turns MaxUnavailableStatefulSet off the way an
// administrator does: kube-controller-manager restarted with it off, then
// the apiservers one at a time (killed and started again: see
// RollAPIServers).
func TurnMigrationGateOff(t *testing.T, c *framework.Cluster, clients *featuretest.Clients, qps, pageSize int) {
	t.Helper()
	c.ControllerManager.Recreate(t, true, c.ControllerManagerArgs(0, "--feature-gates="+featuretest.MigrationGate+"=false")...)
	RollAPIServers(t, c, clients, false, func(i int) []string { return c.APIServerArgs(i, MigrationFlags(false, qps, pageSize)...) })
}

// ReportStored fails the test for every StatefulSet that lost a write,
// still has maxUnavailable, or was not cleared exactly once.
func ReportStored(t *testing.T, check featuretest.StoredCheck) {
	t.Helper()
	for _, e := range []struct {
		what string
		list []string
	}{
		{"lost an update", check.Lost},
		{"still have maxUnavailable", check.Left},
		{"have a generation other than 2 (created, then cleared once)", check.Generations},
	} {
		if len(e.list) > 0 {
			t.Errorf("%d StatefulSets %s: %s", len(e.list), e.what, strings.Join(e.list[:min(len(e.list), 10)], "; "))
		}
	}
}
