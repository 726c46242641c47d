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
// plane in containers (test/e2e/framework): a migration leader cut off the
// network, an etcd member killed during a transition, a rolling flag change
// across the apiservers, and the leader of many Features killed. Each test
// asserts what must hold and logs what it measured.
package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"k8s.io/kubernetes/test/e2e_features/framework"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// livenessWindow is the apiservers' --feature-lifecycle-liveness-window:
// just above the identity leases' 10 s renewal, so that failover is quick.
const livenessWindow = 15 * time.Second

// lifecycleFlags are the apiserver flags that serve the feature lifecycle,
// with gates appended to FeatureLifecycle=true (",Gate=false,...") and
// extra flags.
func lifecycleFlags(gates string, extra ...string) []string {
	return append([]string{"--feature-gates=FeatureLifecycle=true" + gates,
		"--runtime-config=features.k8s.io/v1alpha1=true",
		"--feature-lifecycle-liveness-window=" + livenessWindow.String()}, extra...)
}

// rollAPIServers restarts the apiservers one at a time with args(i), each
// marked down in clients while it restarts. graceful stops each with
// SIGTERM (it deletes its identity lease); otherwise it is killed, as a
// crash-looping or force-restarted static pod is.
func rollAPIServers(t *testing.T, c *framework.Cluster, clients *featuretest.Clients, graceful bool, args func(i int) []string) {
	t.Helper()
	for i, a := range c.APIServers {
		start := time.Now()
		clients.SetDown(i, true)
		a.Recreate(t, graceful, args(i)...)
		clients.SetDown(i, false)
		t.Logf("%s restarted in %.1fs", a.Name, time.Since(start).Seconds())
	}
}

// taskCompletedEvents returns the messages of the TaskCompleted events of
// Feature name that name task.
func taskCompletedEvents(t *testing.T, clients *featuretest.Clients, name, task string) []string {
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

// checkCheckpoints fails the test unless the observed checkpoints of the
// migration task never go back: within a retry (a pass that left objects
// uncleared is followed by another from the start, counted in Retries) the
// pass, pages, objects seen and cleared only grow, and Retries never
// decreases. A retry must follow a pass with failures. It returns the
// number of retries.
func checkCheckpoints(t *testing.T, cps []featuretest.ClearFieldsCheckpoint, ats []time.Time, since time.Time) int64 {
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

// taskMessages returns the distinct messages of the migration task seen by
// the watch, in order.
func taskMessages(w *featuretest.FeatureWatcher) []string {
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

// durations formats a sorted list of durations as min / median / max.
func durations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("min %.1fs, median %.1fs, max %.1fs", s[0].Seconds(), s[len(s)/2].Seconds(), s[len(s)-1].Seconds())
}
