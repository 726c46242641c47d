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

// Package partition holds the fault test of a migration leader cut off the
// network (docker network disconnect) in the middle of a storage migration;
// it is its own package because it takes about five minutes, and the other
// fault tests together about as long (see package faults).
package partition

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/test/e2e_features/faults"
	"k8s.io/kubernetes/test/e2e_features/framework"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// statusWrites counts the Feature status updates an apiserver served, by
// outcome, from its apiserver_request_total.
type statusWrites struct{ ok, conflict float64 }

func statusWritesOf(m featuretest.Metrics) statusWrites {
	labels := []string{"group", "features.k8s.io", "resource", "features", "subresource", "status", "verb", "PUT"}
	return statusWrites{
		ok:       m.Sum("apiserver_request_total", append(labels, "code", "200")...),
		conflict: m.Sum("apiserver_request_total", append(labels, "code", "409")...),
	}
}

// TestMigrationLeaderPartitioned cuts the leader of a Feature that is
// migrating 5,000 StatefulSets off the network (docker network disconnect:
// it keeps running, it is not killed) in the middle of the migration, while
// 16 clients keep updating the same StatefulSets through the other
// apiservers:
//
//   - another apiserver takes over within faults.TakeoverBound and
//     resumes from the stored checkpoint, not from the start;
//   - the partition heals while the migration still runs, and the old
//     leader, which comes back with a stale view, writes no stale state: a
//     watch kept through the whole test sees the checkpoint never go back
//     and the state go Enabled -> Disabling -> Disabled exactly once (its stale status
//     writes are refused by optimistic concurrency, counted from its
//     apiserver_request_total);
//   - etcd, read directly, holds every StatefulSet without maxUnavailable,
//     with the last value a client wrote to it (0 writes lost) and cleared
//     exactly once (generation 2).
func TestMigrationLeaderPartitioned(t *testing.T) {
	const (
		namespace = "migration"
		objects   = 5000
		qps       = 250
		pageSize  = 250
		creators  = 16
		writers   = 16
		writeQPS  = 150
	)
	begin := time.Now()
	c := framework.StartCluster(t, framework.Options{APIServerFlags: faults.MigrationFlags(true, qps, pageSize)})
	t.Logf("cluster up in %.1fs", time.Since(begin).Seconds())
	ctx := context.Background()
	clients := featuretest.NewClients(c.ClientConfigs()...)
	name := featuresv1alpha1.FeatureName(featuretest.MigrationGate)
	key := "kube-system/" + name
	featuretest.WaitForConverged(t, clients.Features[0], name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)

	start := time.Now()
	// No replicas: kube-controller-manager's StatefulSet controller syncs
	// them but creates no pods.
	featuretest.CreateStatefulSets(t, clients, namespace, objects, creators, 0)
	t.Logf("created %d StatefulSets with maxUnavailable in %.1fs", objects, time.Since(start).Seconds())
	for n, ss := range featuretest.StoredStatefulSets(t, c.EtcdEndpoints(), framework.EtcdPrefix, namespace) {
		if !featuretest.HasMaxUnavailable(ss) {
			t.Fatalf("%s was stored without maxUnavailable while the gate is on", n)
		}
	}

	w := featuretest.WatchFeature(t, clients, name)
	ws := featuretest.StartWriters(t, clients, featuretest.WriterOptions{Namespace: namespace, Objects: objects, Writers: writers, QPS: writeQPS})
	faults.TurnMigrationGateOff(t, c, clients, qps, pageSize)
	restarted := time.Now()

	// Cut the leader off in the middle of the migration.
	lastBefore := func(at time.Time) (featuretest.ClearFieldsCheckpoint, bool) {
		cps, ats := w.ClearFieldsCheckpoints(t, featuretest.MigrationTask)
		for i := len(cps) - 1; i >= 0; i-- {
			if ats[i].Before(at) {
				return cps[i], true
			}
		}
		return featuretest.ClearFieldsCheckpoint{}, false
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		cp, ok := lastBefore(time.Now())
		return ok && cp.Migration.Seen >= 2*objects/5, nil
	})
	if err != nil {
		w.Log(t, restarted)
		t.Fatalf("the migration did not get 40%% through: %v", err)
	}
	old := featuretest.LeaderOf(t, clients.Configs, key, 30*time.Second)
	oldID := c.Identity(t, old)
	before, err := featuretest.ScrapeMetrics(ctx, clients.Configs[old])
	if err != nil {
		t.Fatal(err)
	}
	clients.SetDown(old, true)
	cutAt := time.Now()
	c.APIServers[old].Partition(t)
	atCut, _ := lastBefore(cutAt)
	if atCut.Migration.Seen >= objects-4*pageSize {
		t.Fatalf("the migration is (almost) over at the partition, so the takeover is not tested: %s", featuretest.Brief(atCut.Migration))
	}
	t.Logf("cut the leader %s (%s) off the network at %s", c.APIServers[old].Name, oldID, featuretest.Brief(atCut.Migration))

	// Another apiserver takes over and resumes from the checkpoint.
	next := featuretest.LeaderOf(t, clients.UpConfigs(), key, time.Minute)
	takeover := time.Since(cutAt)
	if bound := faults.TakeoverBound; takeover > bound {
		t.Errorf("%s took over %.1fs after the partition, more than the takeover bound (%s)", c.APIServers[next].Name, takeover.Seconds(), bound)
	}
	// The first checkpoint the new leader stores is the page after the
	// last one stored before it took over: it resumed, it did not start
	// over.
	tookOver := time.Now()
	stored, _ := lastBefore(tookOver)
	var resumed featuretest.ClearFieldsCheckpoint
	var resumedAt time.Time
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		cps, ats := w.ClearFieldsCheckpoints(t, featuretest.MigrationTask)
		for i := range cps {
			if ats[i].After(tookOver) {
				resumed, resumedAt = cps[i], ats[i]
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		w.Log(t, restarted)
		t.Fatalf("the new leader stored no checkpoint after %s", featuretest.Brief(stored.Migration))
	}
	if resumed.Retries != stored.Retries || resumed.Migration.Pages != stored.Migration.Pages+1 || resumed.Migration.Seen <= stored.Migration.Seen {
		t.Errorf("the new leader did not resume from the checkpoint: %s (retry %d) after %s (retry %d)",
			featuretest.Brief(resumed.Migration), resumed.Retries, featuretest.Brief(stored.Migration), stored.Retries)
	}
	t.Logf("%s took over %.1fs after the partition (liveness window %s); its first checkpoint, %.1fs after the partition: %s, after %s",
		c.APIServers[next].Name, takeover.Seconds(), faults.LivenessWindow, resumedAt.Sub(cutAt).Seconds(), featuretest.Brief(resumed.Migration), featuretest.Brief(stored.Migration))

	// Heal while the migration still runs.
	if resumed.Migration.Seen >= objects {
		t.Errorf("the migration ended before the partition healed; the stale leader's return is not tested")
	}
	c.APIServers[old].Heal(t)
	healedAt := time.Now()
	c.APIServers[old].WaitReady(t, time.Minute)
	clients.SetDown(old, false)
	t.Logf("healed %.1fs after the partition; %s ready again %.1fs later", healedAt.Sub(cutAt).Seconds(), c.APIServers[old].Name, time.Since(healedAt).Seconds())

	featuretest.WaitForConverged(t, clients.Features[clients.Pick(0)], name, featuresv1alpha1.FeatureStateDisabled, 3*time.Minute)
	offAt := time.Now()
	// Give a stale leader time to write what it would.
	time.Sleep(5 * time.Second)
	leaderAtEnd := featuretest.LeaderOf(t, clients.Configs, key, time.Minute)
	ws.Stop()
	if ws.Failures.Load() > 0 {
		t.FailNow()
	}
	after, err := featuretest.ScrapeMetrics(ctx, clients.Configs[old])
	if err != nil {
		t.Fatal(err)
	}
	nextCounters, err := featuretest.ScrapeMigrationCounters(ctx, clients.Configs[next], featuretest.MigrationResource)
	if err != nil {
		t.Fatal(err)
	}

	// No stale state: the checkpoint never went back, the state moved once.
	cps, ats := w.ClearFieldsCheckpoints(t, featuretest.MigrationTask)
	retries := faults.CheckCheckpoints(t, cps, ats, restarted)
	states := w.States()
	if want := []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabling, featuresv1alpha1.FeatureStateDisabled}; !slices.Equal(states, want) {
		w.Log(t, restarted)
		t.Errorf("states %v, want exactly %v", states, want)
	}
	afterHeal := 0
	for _, at := range ats {
		if at.After(healedAt) {
			afterHeal++
		}
	}
	if retries == 0 && nextCounters.Seen >= objects {
		t.Errorf("%s read %v StatefulSets after taking over from a checkpoint at %d seen; want fewer than %d: it must resume, not start over",
			c.APIServers[next].Name, nextCounters.Seen, stored.Migration.Seen, objects)
	}
	oldBefore, oldAfter := statusWritesOf(before), statusWritesOf(after)
	oldMigBefore := before.Sum("apiserver_feature_migration_objects_changed_total", "resource", featuretest.MigrationResource)
	oldMigAfter := after.Sum("apiserver_feature_migration_objects_changed_total", "resource", featuretest.MigrationResource)

	// What the writers wrote is all there, and nothing still has the field.
	check := featuretest.CheckStored(t, featuretest.StoredStatefulSets(t, c.EtcdEndpoints(), framework.EtcdPrefix, namespace), objects, ws)
	faults.ReportStored(t, check)
	if completed := faults.TaskCompletedEvents(t, clients, name, featuretest.MigrationTask); len(completed) != 1 {
		t.Errorf("%d TaskCompleted events of %s, want exactly 1: %v", len(completed), featuretest.MigrationTask, completed)
	}
	during, total := ws.Between(cutAt, healedAt)
	if during == 0 {
		t.Errorf("no client write succeeded while the leader was cut off")
	}
	taskStart := time.Time{}
	for _, o := range w.Get() {
		if o.Task == featuretest.MigrationTask {
			taskStart = o.At
			break
		}
	}

	t.Logf("partition: %s cut off at %d of %d seen; %s took over after %.1fs and resumed (first checkpoint %s); healed after %.1fs; %d checkpoints after the heal, none went back; %d retry passes",
		c.APIServers[old].Name, atCut.Migration.Seen, objects, c.APIServers[next].Name, takeover.Seconds(), featuretest.Brief(resumed.Migration),
		healedAt.Sub(cutAt).Seconds(), afterHeal, retries)
	t.Logf("%s's migrator read %v and rewrote %v StatefulSets; the old leader %s, from before the partition to 5 s after Disabled: %v status writes of Features (all Features) accepted, %v refused with 409 Conflict, %v StatefulSets rewritten by its migrator; %s leads at the end",
		c.APIServers[next].Name, nextCounters.Seen, nextCounters.Changed, c.APIServers[old].Name, oldAfter.ok-oldBefore.ok, oldAfter.conflict-oldBefore.conflict, oldMigAfter-oldMigBefore, c.APIServers[leaderAtEnd].Name)
	t.Logf("states %v (0 flaps); Disabled %.1fs after the task started; writers: %d updates (%d during the partition), %d conflicts, %d transport errors; writes lost: %d; maxUnavailable left: %d; generation other than 2: %d",
		states, offAt.Sub(taskStart).Seconds(), total, during, ws.Conflicts.Load(), ws.TransportErrors.Load(), len(check.Lost), len(check.Left), len(check.Generations))
	t.Logf("whole test: %.1fs", time.Since(begin).Seconds())
}
