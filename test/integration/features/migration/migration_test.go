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

package migration

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// The storage migration test: MaxUnavailableStatefulSet's ClearFields task
// over migrationObjects StatefulSets, at migrationQPS writes per second so
// that it lasts long enough (about 20 s) to write to the objects meanwhile
// and to kill its leader in the middle.
const (
	migrationGate      = featuretest.MigrationGate
	migrationTask      = featuretest.MigrationTask
	migrationResource  = featuretest.MigrationResource
	migrationNamespace = "migration"
	migrationObjects   = 5000
	migrationQPS       = 250
	migrationPageSize  = 250
	// migrationCreators create the StatefulSets concurrently.
	migrationCreators = 16
	// migrationWriters update the StatefulSets during the migration, at
	// migrationWriteQPS updates per second in all.
	migrationWriters  = 16
	migrationWriteQPS = 150
)

// migrationFlags are the flags of the test's apiservers, with the gate on or
// off.
func migrationFlags(t testing.TB, on bool) []string {
	return []string{"--feature-gates=FeatureLifecycle=true," + migrationGate + "=" + strconv.FormatBool(on),
		"--runtime-config=features.k8s.io/v1alpha1=true",
		harness.Lifecycle{WaitForUsesPeriod: 3 * time.Second, LivenessWindow: harness.LivenessWindow,
			MigrationQPS: migrationQPS, MigrationBurst: 10, MigrationPageSize: migrationPageSize}.Flag(t)}
}

// TestStorageMigration runs MaxUnavailableStatefulSet's ClearFields task over
// 5,000 StatefulSets while clients keep updating them, with our
// kube-apiservers as processes against one etcd:
//
//   - the StatefulSets are created with maxUnavailable while the gate is on;
//     the apiservers are restarted (killed and started again) with it off
//     and a migration rate that makes the migration last about 20 s;
//   - meanwhile writers update random StatefulSets through the API (an
//     annotation with an increasing counter, retried on conflict) and record
//     the last value they wrote to each;
//   - with two apiservers (each its own host), the Feature's leader is
//     killed in the middle of the migration: the other takes over and
//     finishes from the stored checkpoint, without starting over;
//   - once the Feature is Disabled, etcd, read directly, holds every StatefulSet
//     without maxUnavailable, with the last value written to it, and with
//     its spec changed exactly once (generation 2).
//
// Without UTS namespaces (root, or an unprivileged user namespace) it runs on
// one apiserver, without the failover, and records that skip.
func TestStorageMigration(t *testing.T) {
	ctx := context.Background()
	begin := time.Now()
	prefix := harness.SharedEtcd().Prefix
	hosts := []string{"migration-a", "migration-b"}
	if !harness.SeparateHosts() {
		harness.RecordSkip(t, "the leader failover half", "unshare(1) cannot give processes their own host names here (no UTS or user namespaces)")
		hosts = hosts[:1]
	}
	servers := make([]*harness.APIServerProcess, len(hosts))
	for i, h := range hosts {
		servers[i] = harness.StartAPIServerProcess(t, h, prefix, migrationFlags(t, true)...)
	}
	c := featuretest.NewClients(harness.ConfigsOf(servers)...)
	name := featuresv1alpha1.FeatureName(migrationGate)
	key := "kube-system/" + name
	featuretest.WaitForConverged(t, c.Features[0], name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)

	start := time.Now()
	featuretest.CreateStatefulSets(t, c, migrationNamespace, migrationObjects, migrationCreators, 3)
	t.Logf("created %d StatefulSets with maxUnavailable in %.1fs with %d clients", migrationObjects, time.Since(start).Seconds(), migrationCreators)
	etcd := []string{harness.EtcdURL()}
	stored := featuretest.StoredStatefulSets(t, etcd, prefix, migrationNamespace)
	if len(stored) != migrationObjects {
		t.Fatalf("etcd holds %d StatefulSets, want %d", len(stored), migrationObjects)
	}
	for n, ss := range stored {
		if !featuretest.HasMaxUnavailable(ss) {
			t.Fatalf("%s was stored without maxUnavailable while the gate is on", n)
		}
	}

	// Write to the StatefulSets until the Feature is Disabled, and turn the gate
	// off through the apiservers, one at a time. They are killed and
	// started again rather than stopped: an apiserver that shuts down
	// gracefully deletes its identity lease, so the others stop counting its
	// configured value at once (not after the forget window), and the
	// transition would start while the last one restarts.
	w := featuretest.WatchFeature(t, c, name)
	writers := featuretest.StartWriters(t, c, featuretest.WriterOptions{Namespace: migrationNamespace, Objects: migrationObjects,
		Writers: migrationWriters, QPS: migrationWriteQPS})
	for _, s := range servers {
		start := time.Now()
		s.Kill()
		s.Flags = migrationFlags(t, false)
		s.Start(t)
		t.Logf("%s restarted with %s=false in %.1fs", s.Name, migrationGate, time.Since(start).Seconds())
	}
	restarted := time.Now()

	// Kill the Feature's leader in the middle of the migration.
	var (
		killed        = -1
		killedAt      time.Time
		killedCP      featuretest.ClearFieldsCheckpoint
		killedCounter featuretest.MigrationCounters
		failover      time.Duration
	)
	if len(servers) > 1 {
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			cps, _ := w.ClearFieldsCheckpoints(t, migrationTask)
			if len(cps) == 0 {
				return false, nil
			}
			killedCP = cps[len(cps)-1]
			return killedCP.Migration.Seen >= 2*migrationObjects/5, nil
		})
		if err != nil {
			w.Log(t, restarted)
			t.Fatalf("the migration did not get 40%% through: %v; last checkpoint %s", err, featuretest.Brief(killedCP.Migration))
		}
		if killedCP.Migration.Done || killedCP.Migration.Seen >= migrationObjects-2*migrationPageSize {
			w.Log(t, restarted)
			t.Fatalf("the migration is (almost) over before the kill, so the failover is not tested: %s", featuretest.Brief(killedCP.Migration))
		}
		killed = featuretest.LeaderOf(t, c.Configs, key, 30*time.Second)
		if killedCounter, err = featuretest.ScrapeMigrationCounters(ctx, c.Configs[killed], migrationResource); err != nil {
			t.Fatal(err)
		}
		t.Logf("killing the leader %s in the middle of the migration: checkpoint %s; its counters %+v", hosts[killed], featuretest.Brief(killedCP.Migration), killedCounter)
		killedAt = time.Now()
		servers[killed].Kill()
		c.SetDown(killed, true)
		next := featuretest.LeaderOf(t, c.UpConfigs(), key, time.Minute)
		failover = time.Since(killedAt)
		t.Logf("leader failover: %s took over %.1fs after %s was killed (liveness window %s)", hosts[next], failover.Seconds(), hosts[killed], harness.LivenessWindow)
	}

	featuretest.WaitForConverged(t, c.Features[c.Pick(0)], name, featuresv1alpha1.FeatureStateDisabled, 3*time.Minute)
	off := time.Now()
	writers.Stop()
	if writers.Failures.Load() > 0 {
		t.FailNow()
	}

	// When the migration ran, and that it never went back.
	var taskStart, taskEnd time.Time
	for _, o := range w.Get() {
		if o.Task == migrationTask && taskStart.IsZero() {
			taskStart = o.At
		}
		if o.State == featuresv1alpha1.FeatureStateDisabled && taskEnd.IsZero() {
			taskEnd = o.At
		}
	}
	if taskEnd.IsZero() {
		taskEnd = off
	}
	cps, ats := w.ClearFieldsCheckpoints(t, migrationTask)
	var (
		leaderless time.Duration
		resumedAt  int64
	)
	if taskStart.IsZero() || len(cps) < 2 {
		t.Fatalf("the watch saw %d checkpoints of %s (task start %v); the migration must take several pages", len(cps), migrationTask, taskStart)
	}
	for i, cp := range cps {
		m := cp.Migration
		if len(cp.Remaining) != 1 || m.Pass != 1 || m.Failed != 0 || m.Done {
			t.Errorf("checkpoint %d: %v %s; want one pass over %s without failures", i, cp.Remaining, featuretest.Brief(m), migrationResource)
		}
		if i == 0 {
			continue
		}
		prev := cps[i-1].Migration
		if m.Pass != prev.Pass || m.Seen < prev.Seen || m.Pages < prev.Pages || m.Changed < prev.Changed {
			t.Errorf("the migration went back from %s to %s (at %.1fs)", featuretest.Brief(prev), featuretest.Brief(m), ats[i].Sub(taskStart).Seconds())
		}
		if !killedAt.IsZero() && ats[i].After(killedAt) && !ats[i-1].After(killedAt) {
			leaderless, resumedAt = ats[i].Sub(ats[i-1]), prev.Seen
			t.Logf("first checkpoint after the kill, %.1fs after it: %s (last before: %s)", ats[i].Sub(killedAt).Seconds(), featuretest.Brief(m), featuretest.Brief(prev))
			if m.Seen < killedCP.Migration.Seen {
				t.Errorf("the new leader started over: %d seen after the kill, %d before", m.Seen, killedCP.Migration.Seen)
			}
		}
	}
	last := cps[len(cps)-1]

	// The writes overlapped the migration.
	during, total := writers.Between(ats[0], ats[len(ats)-1])
	if during == 0 {
		t.Errorf("none of the %d writes happened between the first and the last checkpoint of the migration (%v, %v)", total, ats[0], ats[len(ats)-1])
	}

	// The counters of the apiserver that finished the migration: it read
	// what was left after the stored checkpoint, not everything again.
	finisher := c.Pick(0)
	counters, err := featuretest.ScrapeMigrationCounters(ctx, c.Configs[finisher], migrationResource)
	if err != nil {
		t.Fatal(err)
	}
	if counters.Failures != 0 {
		t.Errorf("%s failed to clear %v StatefulSets", hosts[finisher], counters.Failures)
	}
	// A page is read again when the controller steps the task from a copy
	// of the Feature older than its own last status write (its informer has
	// not caught up; the status write then fails with a conflict), which
	// happens when the Feature is queued while a step runs. A new pass, or a
	// new leader starting over, would read all the objects again.
	if killed < 0 {
		if counters.Seen < migrationObjects || counters.Seen >= 2*migrationObjects || counters.Changed != migrationObjects {
			t.Errorf("%s read %v and cleared %v StatefulSets; want to read each of the %d once (a few pages twice at most) and clear each once",
				hosts[finisher], counters.Seen, counters.Changed, migrationObjects)
		}
		t.Logf("%s read %v pages twice", hosts[finisher], (counters.Seen-migrationObjects)/migrationPageSize)
	} else {
		if counters.Seen == 0 || counters.Seen >= migrationObjects {
			t.Errorf("%s read %v StatefulSets after taking over from a checkpoint at %d seen; want fewer than %d: it must resume, not start over",
				hosts[finisher], counters.Seen, resumedAt, migrationObjects)
		}
		t.Logf("%s resumed at %d seen and read %v pages twice", hosts[finisher], resumedAt, (counters.Seen-float64(migrationObjects-resumedAt))/migrationPageSize)
		// What the killed leader cleared is not cleared again (the
		// generations below show that every object was cleared once).
		if counters.Changed+killedCounter.Changed > migrationObjects {
			t.Errorf("%s cleared %v StatefulSets after %s had cleared at least %v: more than %d in all",
				hosts[finisher], counters.Changed, hosts[killed], killedCounter.Changed, migrationObjects)
		}
	}

	// etcd holds every StatefulSet cleared, with the last value written.
	check := featuretest.CheckStored(t, featuretest.StoredStatefulSets(t, etcd, prefix, migrationNamespace), migrationObjects, writers)
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

	events, err := c.Kube[finisher].CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{
		FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", name), fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
	if err != nil {
		t.Fatal(err)
	}
	completed := 0
	for _, e := range events.Items {
		t.Logf("event %s: %s", e.Reason, e.Message)
		if strings.HasPrefix(e.Message, "task "+migrationTask+":") {
			completed++
		}
	}
	// Events are recorded once the status write that completes the task is
	// stored, so a step from a stale copy of the Feature (see above) whose
	// write fails records none: exactly one, whichever apiserver finished.
	if completed != 1 {
		t.Errorf("%d TaskCompleted events of %s, want exactly 1", completed, migrationTask)
	}
	t.Logf("Feature %s Disabled %.1fs after the last apiserver was restarted with the gate off", name, off.Sub(restarted).Seconds())
	t.Logf("migration of %d StatefulSets at %d writes/s: %.1fs from the task's start to Disabled (%.1fs between checkpoints without a leader); %d checkpoints observed, the last %s",
		migrationObjects, migrationQPS, taskEnd.Sub(taskStart).Seconds(), leaderless.Seconds(), len(cps), featuretest.Brief(last.Migration))
	t.Logf("writers: %d updates to %d StatefulSets (%d between the first and the last checkpoint), %d conflicts, %d transport errors",
		total, check.Written, during, writers.Conflicts.Load(), writers.TransportErrors.Load())
	t.Logf("migrator counters of %s: %+v", hosts[finisher], counters)
	if killed >= 0 {
		t.Logf("failover: killed %s at %.1fs into the migration with %d seen; %s took over after %.1fs and read %v more",
			hosts[killed], killedAt.Sub(taskStart).Seconds(), killedCP.Migration.Seen, hosts[finisher], failover.Seconds(), counters.Seen)
	}
	t.Logf("whole test: %.1fs", time.Since(begin).Seconds())
}
