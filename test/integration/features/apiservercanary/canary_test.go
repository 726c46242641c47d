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

package apiservercanary

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/features/cohort"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/test/integration/features/harness"
)

// gate is testgate-apiserver's test-only gate.
const gate = "TestCanaryOnAPIServers"

// flags are the apiservers' flags: the gate is Dynamic, and off until its
// Feature says otherwise.
func flags(t testing.TB) []string {
	return []string{"--feature-gates=FeatureLifecycle=true," + gate + "=false",
		"--runtime-config=features.k8s.io/v1alpha1=true",
		"--feature-lifecycle-dynamic-gates=" + gate,
		harness.Lifecycle{LivenessWindow: harness.LivenessWindow}.Flag(t)}
}

// snapshot is what the test saw at one moment: the Feature's rollout and
// the value each apiserver reports.
type snapshot struct {
	at       time.Time
	rollout  *featuresv1alpha1.FeatureRolloutStatus
	reported map[string]bool
}

// observer polls the Feature and the apiservers' reports through whichever
// apiserver answers, keeping every snapshot; it calls nothing of t, so
// that the test goroutine may stop and start apiservers meanwhile.
type observer struct {
	clients []kubernetes.Interface
	ids     []string
	mu      sync.Mutex
	seen    []snapshot
}

// run polls every 100 ms until ctx ends.
func (o *observer) run(ctx context.Context) {
	for ctx.Err() == nil {
		if s, ok := o.poll(ctx); ok {
			o.mu.Lock()
			o.seen = append(o.seen, s)
			o.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// poll takes one snapshot.
func (o *observer) poll(ctx context.Context) (snapshot, bool) {
	for _, c := range o.clients {
		f, err := c.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(gate), metav1.GetOptions{})
		if err != nil {
			continue
		}
		s := snapshot{at: time.Now(), rollout: f.Status.Rollout, reported: map[string]bool{}}
		for _, id := range o.ids {
			r, err := c.FeaturesV1alpha1().FeatureReports("kube-system").Get(ctx, featuresv1alpha1.FeatureReportName(featuresv1alpha1.APIServerComponent, id), metav1.GetOptions{})
			if err != nil {
				return snapshot{}, false
			}
			for _, g := range r.Spec.Gates {
				if g.Name == gate {
					s.reported[id] = g.Enabled
				}
			}
		}
		return s, true
	}
	return snapshot{}, false
}

// until waits until a snapshot taken after since satisfies ok, and returns
// it.
func (o *observer) until(t *testing.T, since time.Time, timeout time.Duration, what string, ok func(snapshot) bool) snapshot {
	t.Helper()
	var found snapshot
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		for _, s := range o.seen {
			if !s.at.Before(since) && ok(s) {
				found = s
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s; last seen %+v", what, timeout, o.last())
	}
	return found
}

// last returns the latest snapshot.
func (o *observer) last() snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.seen) == 0 {
		return snapshot{}
	}
	return o.seen[len(o.seen)-1]
}

// between returns the snapshots taken from from to to.
func (o *observer) between(from, to time.Time) []snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []snapshot
	for _, s := range o.seen {
		if !s.at.Before(from) && !s.at.After(to) {
			out = append(out, s)
		}
	}
	return out
}

// members returns the apiservers a published cohort holds.
func members(r *featuresv1alpha1.FeatureRolloutStatus, ids []string) []string {
	c, err := cohort.FromAPI(r.Cohort)
	if err != nil {
		return nil
	}
	var out []string
	for _, id := range ids {
		if c.Member(cohort.Rank(r.Cohort.Seed, id), nil) {
			out = append(out, id)
		}
	}
	return out
}

// startRollout sets the Feature's desired state to to, rolling out in
// steps: one apiserver soaking soak, then all of them.
func startRollout(t *testing.T, client kubernetes.Interface, to featuresv1alpha1.FeatureDesiredState, soak time.Duration) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"desiredState": to, "rollout": featuresv1alpha1.FeatureRollout{
		Steps: []featuresv1alpha1.FeatureRolloutStep{
			{Count: 1, SoakSeconds: ptr.To(int32(soak / time.Second))},
			{Percent: 100, SoakSeconds: ptr.To(int32(1))},
		},
		Analysis: &featuresv1alpha1.FeatureRolloutAnalysis{IntervalSeconds: ptr.To(int32(1)), ReportTimeoutSeconds: ptr.To(int32(120))},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.FeaturesV1alpha1().Features("kube-system").Patch(context.Background(), featuresv1alpha1.FeatureName(gate),
		types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("starting the rollout to %s: %v", to, err)
	}
}

// TestCanaryOnAPIServers runs three of our kube-apiservers, built with the
// test-only gate TestCanaryOnAPIServers, Dynamic and declared safe to
// canary on apiservers:
//
//   - a rollout to Enabled gives the gate to one apiserver first, picked by its
//     identity, and to the three once that one reports it and soaked; no
//     other apiserver reports Enabled before the second step;
//   - a rollout back to Disabled whose one canary restarts during the first
//     step rolls back: the canary returns to Enabled, and the others never
//     leave it; once when the canary stops gracefully (its identity lease
//     deleted: APIServerNotLive), once when it is killed and started again
//     (its report states a new start: Restarted, unless its lease expired
//     before it came back).
func TestCanaryOnAPIServers(t *testing.T) {
	if !harness.SeparateHosts() {
		why := "needs unshare(1) with UTS namespaces (root, or an unprivileged user namespace) so that each apiserver process has its own identity"
		harness.RecordSkip(t, "the whole test", why)
		t.Skip(why)
	}
	binary := harness.BinaryOf(t, "testgate-apiserver", "./test/integration/features/apiservercanary/testgate-apiserver")
	prefix := harness.SharedEtcd().Prefix
	hosts := []string{"apiserver-a", "apiserver-b", "apiserver-c"}
	servers := make([]*harness.APIServerProcess, len(hosts))
	clients := make([]kubernetes.Interface, len(hosts))
	for i, h := range hosts {
		servers[i] = harness.StartAPIServerBinary(t, binary, h, prefix, nil, flags(t)...)
		clients[i] = kubernetes.NewForConfigOrDie(servers[i].ClientConfig())
	}
	ids := make([]string, len(hosts))
	for i, h := range hosts {
		ids[i] = harness.IdentityOf(t, clients[0], h)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
		t.Fatalf("the apiservers must have distinct identities: %v", ids)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := &observer{clients: clients, ids: ids}
	go o.run(ctx)

	// The Feature is Dynamic once the three apiservers report the gate.
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		f, err := clients[0].FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(gate), metav1.GetOptions{})
		return err == nil && f.Spec.Management == featuresv1alpha1.FeatureManagementDynamic, nil
	})
	if err != nil {
		t.Fatalf("the Feature of %s did not become Dynamic: %v", gate, err)
	}
	o.until(t, time.Time{}, time.Minute, "every apiserver reports the gate off", func(s snapshot) bool {
		return len(s.reported) == len(ids) && !slices.Contains(slices.Collect(maps.Values(s.reported)), true)
	})

	// A healthy rollout to Enabled.
	began := time.Now()
	startRollout(t, clients[0], featuresv1alpha1.FeatureDesiredStateEnabled, 5*time.Second)
	first, canary := o.firstStep(t, began, featuresv1alpha1.FeatureDesiredStateEnabled)
	if first.rollout.Scope != featuresv1alpha1.FeatureRolloutScopeAPIServers || first.rollout.Members != 1 || first.rollout.Candidates != 3 {
		t.Errorf("the first step: %+v, want 1 of 3 apiservers", first.rollout)
	}
	complete := o.until(t, began, 2*time.Minute, "the rollout completes with every apiserver Enabled", func(s snapshot) bool {
		return s.rollout != nil && s.rollout.Phase == featuresv1alpha1.FeatureRolloutComplete && s.rollout.To == featuresv1alpha1.FeatureDesiredStateEnabled &&
			s.reported[ids[0]] && s.reported[ids[1]] && s.reported[ids[2]]
	})
	for _, s := range o.between(began, complete.at) {
		if s.rollout != nil && s.rollout.To == featuresv1alpha1.FeatureDesiredStateEnabled && s.rollout.Step == 1 {
			for id, on := range s.reported {
				if on && id != canary {
					t.Errorf("%s reported Enabled during the first step, whose cohort is %s alone", id, canary)
				}
			}
		}
	}
	t.Logf("healthy rollout on apiservers: canary %s reported Enabled %s after the start; all three Enabled, Complete, %s after",
		canary, first.at.Sub(began).Round(time.Millisecond), complete.at.Sub(began).Round(time.Millisecond))

	// Rollouts back to Disabled whose canary restarts in the first step.
	byID := func(id string) *harness.APIServerProcess { return servers[slices.Index(ids, id)] }
	o.faultyRollout(t, clients[0], "stopped gracefully and started", func(canary string) { byID(canary).Restart(t, flags(t)...) })
	// Back and forth: the desired state back to Enabled ends the rolled back
	// rollout at once.
	began = time.Now()
	if _, err := clients[0].FeaturesV1alpha1().Features("kube-system").Patch(ctx, featuresv1alpha1.FeatureName(gate), types.MergePatchType,
		[]byte(`{"spec":{"desiredState":"Enabled"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	o.until(t, began, time.Minute, "the rollout back to Enabled completes at once", func(s snapshot) bool {
		return s.rollout != nil && s.rollout.To == featuresv1alpha1.FeatureDesiredStateEnabled && s.rollout.Phase == featuresv1alpha1.FeatureRolloutComplete
	})
	o.faultyRollout(t, clients[0], "killed and started", func(canary string) {
		byID(canary).Kill()
		byID(canary).Start(t)
	})
}

// firstStep waits, from since, for the first step of the rollout to to,
// with its one canary reporting to, and returns that snapshot and the
// canary.
func (o *observer) firstStep(t *testing.T, since time.Time, to featuresv1alpha1.FeatureDesiredState) (snapshot, string) {
	t.Helper()
	first := o.until(t, since, time.Minute, "the first step's canary reports "+string(to), func(s snapshot) bool {
		r := s.rollout
		if r == nil || r.To != to || r.Step != 1 || r.Phase != featuresv1alpha1.FeatureRolloutProgressing {
			return false
		}
		m := members(r, o.ids)
		return len(m) == 1 && s.reported[m[0]] == (to == featuresv1alpha1.FeatureDesiredStateEnabled)
	})
	return first, members(first.rollout, o.ids)[0]
}

// faultyRollout rolls the gate out from Enabled to Disabled, calls fault with the
// canary once it reports Disabled in the first step, and checks that the
// rollout rolls back (Restarted or APIServerNotLive), that the canary
// returns to Enabled and that no other apiserver ever left it.
func (o *observer) faultyRollout(t *testing.T, client kubernetes.Interface, how string, fault func(canary string)) {
	t.Helper()
	began := time.Now()
	startRollout(t, client, featuresv1alpha1.FeatureDesiredStateDisabled, 300*time.Second)
	_, canary := o.firstStep(t, began, featuresv1alpha1.FeatureDesiredStateDisabled)
	t.Logf("the canary %s: %s", canary, how)
	faulted := time.Now()
	fault(canary)
	stopped := o.until(t, faulted, 2*time.Minute, "the rollout stops and rolls back", func(s snapshot) bool {
		return s.rollout != nil && s.rollout.To == featuresv1alpha1.FeatureDesiredStateDisabled && s.rollout.Phase.Final()
	})
	if stopped.rollout.Phase != featuresv1alpha1.FeatureRolloutRolledBack ||
		(stopped.rollout.Reason != "Restarted" && stopped.rollout.Reason != "APIServerNotLive") {
		t.Fatalf("after the canary was %s: %+v, want RolledBack for Restarted or APIServerNotLive", how, stopped.rollout)
	}
	back := o.until(t, stopped.at, 2*time.Minute, "the canary back at Enabled", func(s snapshot) bool {
		return s.reported[o.ids[0]] && s.reported[o.ids[1]] && s.reported[o.ids[2]]
	})
	for _, s := range o.between(began, back.at) {
		for id, on := range s.reported {
			if !on && id != canary {
				t.Errorf("%s reported Disabled during the rollout, whose cohort is %s alone", id, canary)
			}
		}
	}
	t.Logf("faulty rollout on apiservers, canary %s: %s (%s); fault to rolled back %s, rolled back to the canary at the old value %s",
		how, stopped.rollout.Reason, stopped.rollout.Message, stopped.at.Sub(faulted).Round(time.Millisecond), back.at.Sub(stopped.at).Round(time.Millisecond))
}
