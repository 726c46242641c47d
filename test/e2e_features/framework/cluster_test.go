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

package framework

import (
	"context"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	featuresclient "k8s.io/client-go/kubernetes"
)

// TestCluster checks the harness itself: a cluster comes up with three etcd
// members in one etcd cluster, three apiservers with distinct identities
// serving features.k8s.io, and components that report their gates; and
// each fault does what it says: a partitioned apiserver stops renewing its
// identity lease and renews it again once healed, a paused one answers
// nothing until unpaused, a killed etcd member comes back into its cluster.
func TestCluster(t *testing.T) {
	// FeatureLifecycle is alpha: every component that reports turns it on.
	gate := "--feature-gates=FeatureLifecycle=true"
	c := StartCluster(t, Options{
		APIServerFlags:         []string{gate, "--runtime-config=features.k8s.io/v1alpha1=true", LifecycleConfigFlag("livenessWindow: 15s\n")},
		ControllerManagerFlags: []string{gate},
		SchedulerFlags:         []string{gate},
	})
	ctx := context.Background()

	// One etcd cluster of three members.
	etcd, err := clientv3.New(clientv3.Config{Endpoints: c.EtcdEndpoints(), DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = etcd.Close() }()
	members, err := etcd.MemberList(ctx)
	if err != nil || len(members.Members) != 3 {
		t.Fatalf("etcd members: %v %v", members, err)
	}

	// Distinct identities, and the components report under kube-system's
	// Features.
	var ids []string
	for i := range c.APIServers {
		ids = append(ids, c.Identity(t, i))
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 3 {
		t.Fatalf("identities %v are not distinct", ids)
	}
	features := featuresclient.NewForConfigOrDie(c.ClientConfig(0))
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := features.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		reporters := map[string]bool{}
		for _, f := range list.Items {
			for _, u := range f.Status.Uses {
				reporters[u.Component] = true
			}
		}
		return reporters["kube-apiserver"] && reporters["kube-controller-manager"] && reporters["kube-scheduler"], nil
	})
	if err != nil {
		t.Fatalf("the apiservers, kube-controller-manager and kube-scheduler do not all report uses: %v", err)
	}

	// Partition apiserver-2: its identity lease is not renewed while it is
	// cut off, and is again once healed.
	kube := kubernetes.NewForConfigOrDie(c.ClientConfig(0))
	renewed := func(ctx context.Context) time.Time {
		l, err := kube.CoordinationV1().Leases("kube-system").Get(ctx, ids[2], metav1.GetOptions{})
		if err != nil || l.Spec.RenewTime == nil {
			return time.Time{}
		}
		return l.Spec.RenewTime.Time
	}
	c.APIServers[2].Partition(t)
	cut := time.Now()
	if err := apiserverReady(ctx, c.ClientConfig(2)); err == nil {
		t.Fatal("a partitioned apiserver answers on its published port")
	}
	time.Sleep(21 * time.Second) // two renewals (every 10 s)
	if r := renewed(ctx); r.After(cut.Add(time.Second)) {
		t.Fatalf("the partitioned apiserver renewed its lease at %v, after the partition at %v", r, cut)
	}
	c.APIServers[2].Heal(t)
	c.APIServers[2].WaitReady(t, time.Minute)
	err = wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return renewed(ctx).After(cut.Add(20 * time.Second)), nil
	})
	if err != nil {
		t.Fatal("the healed apiserver does not renew its identity lease")
	}

	// Pause apiserver-1: it answers nothing until unpaused.
	c.APIServers[1].Pause(t)
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	err = apiserverReady(pctx, c.ClientConfig(1))
	cancel()
	if err == nil {
		t.Fatal("a paused apiserver answered")
	}
	c.APIServers[1].Unpause(t)
	c.APIServers[1].WaitReady(t, 30*time.Second)

	// Kill an etcd member and start it again: it rejoins with its data.
	// The killed member may have been etcd's leader: writes time out until
	// the other two elect one (an election timeout, about a second), then
	// succeed. A write that timed out may still have been committed.
	c.Etcd[1].Kill(t)
	killed := time.Now()
	var writeErr error
	err = wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, writeErr = kube.CoreV1().ConfigMaps("default").Create(ctx, &corev1ConfigMap, metav1.CreateOptions{})
		return writeErr == nil || apierrors.IsAlreadyExists(writeErr), nil
	})
	if err != nil {
		t.Fatalf("writing with one etcd member of three down, for 30s: %v", writeErr)
	}
	t.Logf("written with one etcd member of three down, %v after the kill", time.Since(killed).Round(100*time.Millisecond))
	c.Etcd[1].Start(t)
	one, err := clientv3.New(clientv3.Config{Endpoints: []string{c.EtcdEndpoint(1)}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = one.Close() }()
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		resp, err := one.Get(ctx, "/"+EtcdPrefix+"/configmaps/default/"+corev1ConfigMap.Name, clientv3.WithSerializable())
		return err == nil && len(resp.Kvs) == 1, nil
	})
	if err != nil {
		t.Fatalf("the restarted etcd member does not have the write made while it was down: %v", err)
	}
}

// corev1ConfigMap is written while an etcd member is down.
var corev1ConfigMap = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "written-while-a-member-is-down"}}
