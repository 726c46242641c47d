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
	"maps"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"k8s.io/kubernetes/test/e2e_features/framework"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// TestLeaderOfManyFeaturesKilled kills (docker kill) the apiserver that
// leads the most Features of three: every Feature it led is led by one of
// the two others within TakeoverBound, and each by exactly
// one of them.
func TestLeaderOfManyFeaturesKilled(t *testing.T) {
	begin := time.Now()
	c := framework.StartCluster(t, framework.Options{APIServerFlags: LifecycleFlags("", "")})
	t.Logf("cluster up in %.1fs", time.Since(begin).Seconds())
	clients := featuretest.NewClients(c.ClientConfigs()...)
	ctx := context.Background()

	// Wait until every Feature of kube-system has exactly one leader.
	var (
		led    []map[string]bool
		leader map[string]int
	)
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := clients.Features[0].FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) == 0 {
			return false, nil
		}
		led, leader = nil, map[string]int{}
		for i, config := range clients.Configs {
			l, err := featuretest.Led(ctx, config)
			if err != nil {
				return false, nil
			}
			led = append(led, l)
			for key := range l {
				if _, ok := leader[key]; ok {
					return false, nil // two leaders: still settling
				}
				leader[key] = i
			}
		}
		for _, f := range list.Items {
			if _, ok := leader["kube-system/"+f.Name]; !ok {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("not every Feature has exactly one leader: %v", err)
	}
	victim := 0
	for i := range led {
		t.Logf("%s leads %d Features", c.APIServers[i].Name, len(led[i]))
		if len(led[i]) > len(led[victim]) {
			victim = i
		}
	}
	orphans := slices.Sorted(maps.Keys(led[victim]))

	// Kill it, and watch the others' leader gauges.
	killed := time.Now()
	c.APIServers[victim].Kill(t)
	clients.SetDown(victim, true)
	takeover := map[string]time.Duration{}
	by := map[string]int{}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, LivenessWindow+time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, i := range clients.Up() {
			l, err := featuretest.Led(ctx, clients.Configs[i])
			if err != nil {
				last = err
				return false, nil
			}
			for key := range l {
				if !led[victim][key] {
					continue
				}
				if _, ok := takeover[key]; !ok {
					takeover[key] = time.Since(killed)
					by[key] = i
				}
			}
		}
		return len(takeover) == len(orphans), nil
	})
	var missing []string
	for _, key := range orphans {
		if _, ok := takeover[key]; !ok {
			missing = append(missing, key)
		}
	}
	if err != nil {
		t.Fatalf("%d of the %d Features %s led were not taken over %s after the kill (last error %v): %v",
			len(missing), len(orphans), c.APIServers[victim].Name, LivenessWindow+time.Minute, last, missing[:min(len(missing), 10)])
	}
	times := slices.Collect(maps.Values(takeover))
	bound := TakeoverBound
	var late []string
	for _, key := range orphans {
		if takeover[key] > bound {
			late = append(late, key)
		}
	}
	if len(late) > 0 {
		t.Errorf("%d Features were taken over later than the takeover bound (%s): %v", len(late), bound, late[:min(len(late), 10)])
	}

	// Each has exactly one leader among the survivors.
	err = wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		count := map[string]int{}
		for _, i := range clients.Up() {
			l, err := featuretest.Led(ctx, clients.Configs[i])
			if err != nil {
				return false, nil
			}
			for key := range l {
				count[key]++
			}
		}
		for _, key := range orphans {
			if count[key] != 1 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("after the takeover, not every Feature %s led has exactly one leader", c.APIServers[victim].Name)
	}
	perSurvivor := map[string]int{}
	for _, i := range by {
		perSurvivor[c.APIServers[i].Name]++
	}
	t.Logf("killed %s, leader of %d Features: all taken over (%s; bound %s, liveness window %s); by %v",
		c.APIServers[victim].Name, len(orphans), Durations(times), bound, LivenessWindow, perSurvivor)
	t.Logf("whole test: %.1fs", time.Since(begin).Seconds())
}
