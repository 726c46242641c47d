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

package faults

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/apimachinery/pkg/util/wait"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/test/e2e_features/framework"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// etcdStatus is what one member says of the cluster.
type etcdStatus struct {
	member, leader uint64
	revision       int64
	raftIndex      uint64
}

// statusOf asks the member at endpoint for its status.
func statusOf(ctx context.Context, endpoint string) (etcdStatus, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 2 * time.Second})
	if err != nil {
		return etcdStatus{}, err
	}
	defer func() { _ = client.Close() }()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := client.Status(ctx, endpoint)
	if err != nil {
		return etcdStatus{}, err
	}
	return etcdStatus{member: s.Header.MemberId, leader: s.Leader, revision: s.Header.Revision, raftIndex: s.RaftIndex}, nil
}

// TestEtcdMemberKilledDuringTransition kills the raft leader of the
// three-member etcd cluster (docker kill) while MaxUnavailableStatefulSet is
// turning off and its storage migration runs, and starts it again 10 s
// later with its data: the transition completes, the migration never goes
// back, every StatefulSet is cleared exactly once, and the restarted member
// holds the same cleared objects.
func TestEtcdMemberKilledDuringTransition(t *testing.T) {
	const (
		namespace = "etcd-fault"
		objects   = 1000
		qps       = 100
		pageSize  = 100
		down      = 10 * time.Second
	)
	begin := time.Now()
	c := framework.StartCluster(t, framework.Options{APIServerFlags: MigrationFlags(true, qps, pageSize)})
	t.Logf("cluster up in %.1fs", time.Since(begin).Seconds())
	ctx := context.Background()
	clients := featuretest.NewClients(c.ClientConfigs()...)
	name := featuresv1alpha1.FeatureName(featuretest.MigrationGate)
	featuretest.WaitForConverged(t, clients.Features[0], name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	featuretest.CreateStatefulSets(t, clients, namespace, objects, 16, 0)
	w := featuretest.WatchFeature(t, clients, name)
	TurnMigrationGateOff(t, c, clients, qps, pageSize)
	restarted := time.Now()

	// Kill etcd's raft leader once the migration is under way.
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		cps, _ := w.ClearFieldsCheckpoints(t, featuretest.MigrationTask)
		return len(cps) > 0 && cps[len(cps)-1].Migration.Seen >= objects/5, nil
	})
	if err != nil {
		w.Log(t, restarted)
		t.Fatalf("the migration did not get 20%% through: %v", err)
	}
	cps, _ := w.ClearFieldsCheckpoints(t, featuretest.MigrationTask)
	atKill := cps[len(cps)-1].Migration
	if atKill.Done || atKill.Seen >= objects-2*pageSize {
		t.Fatalf("the migration is (almost) over before the kill, so the fault is not tested: %s", featuretest.Brief(atKill))
	}
	victim, leaderID := -1, uint64(0)
	ids := map[uint64]int{}
	for i := range c.Etcd {
		s, err := statusOf(ctx, c.EtcdEndpoint(i))
		if err != nil {
			t.Fatal(err)
		}
		ids[s.member] = i
		if s.member == s.leader {
			victim, leaderID = i, s.member
		}
	}
	if victim < 0 {
		t.Fatal("no etcd member says it is the leader")
	}
	t.Logf("killing etcd's leader %s at %s", c.Etcd[victim].Name, featuretest.Brief(atKill))
	killedAt := time.Now()
	c.Etcd[victim].Kill(t)
	var newLeader uint64
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for i := range c.Etcd {
			if i == victim {
				continue
			}
			if s, err := statusOf(ctx, c.EtcdEndpoint(i)); err == nil && s.leader != 0 && s.leader != leaderID {
				newLeader = s.leader
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the two remaining etcd members elected no leader: %v", err)
	}
	election := time.Since(killedAt)
	time.Sleep(time.Until(killedAt.Add(down)))
	c.Etcd[victim].Start(t)
	startedAt := time.Now()

	off := featuretest.WaitForConverged(t, clients.Features[0], name, featuresv1alpha1.FeatureStateDisabled, 3*time.Minute)
	offAt := time.Now()
	if len(off.Status.Tasks) != 0 {
		t.Errorf("Disabled with tasks left: %+v", off.Status.Tasks)
	}
	cps, ats := w.ClearFieldsCheckpoints(t, featuretest.MigrationTask)
	retries := CheckCheckpoints(t, cps, ats, restarted)
	for _, m := range TaskMessages(w) {
		t.Logf("task message: %s", m)
	}
	during := 0
	for i := range cps {
		if ats[i].After(killedAt) && ats[i].Before(startedAt) {
			during++
		}
	}

	// etcd holds every StatefulSet cleared once; so does the restarted
	// member's own copy, once it has caught up.
	check := featuretest.CheckStored(t, featuretest.StoredStatefulSets(t, c.EtcdEndpoints(), framework.EtcdPrefix, namespace), objects, nil)
	ReportStored(t, check)
	var target int64
	for i := range c.Etcd {
		if i != victim {
			if s, err := statusOf(ctx, c.EtcdEndpoint(i)); err == nil && s.revision > target {
				target = s.revision
			}
		}
	}
	var caughtUp etcdStatus
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := statusOf(ctx, c.EtcdEndpoint(victim))
		caughtUp = s
		return err == nil && s.revision >= target, nil
	})
	if err != nil {
		t.Fatalf("the restarted member did not catch up to revision %d: %+v", target, caughtUp)
	}
	own := featuretest.CheckStored(t, featuretest.StoredStatefulSets(t, []string{c.EtcdEndpoint(victim)}, framework.EtcdPrefix, namespace, clientv3.WithSerializable()), objects, nil)
	ReportStored(t, own)
	if completed := TaskCompletedEvents(t, clients, name, featuretest.MigrationTask); len(completed) != 1 {
		t.Errorf("%d TaskCompleted events of %s, want exactly 1: %v", len(completed), featuretest.MigrationTask, completed)
	}

	t.Logf("etcd leader %s killed at %d of %d StatefulSets seen; %s elected in %.1fs; the migration stored %d checkpoints while the member was down (%s); restarted after %s, caught up to revision %d",
		c.Etcd[victim].Name, atKill.Seen, objects, c.Etcd[ids[newLeader]].Name, election.Seconds(), during, down, down, caughtUp.revision)
	t.Logf("Feature %s Disabled %.1fs after the kill, %.1fs after the last apiserver restart; %d retry passes; last checkpoint %s; %d StatefulSets cleared, 0 left, all at generation 2 in both the cluster and the restarted member",
		name, offAt.Sub(killedAt).Seconds(), offAt.Sub(restarted).Seconds(), retries, featuretest.Brief(cps[len(cps)-1].Migration), objects)
	t.Logf("whole test: %.1fs", time.Since(begin).Seconds())
}
