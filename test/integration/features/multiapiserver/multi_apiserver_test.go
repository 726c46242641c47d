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

package multiapiserver

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// TestMultipleAPIServers runs three of our kube-apiservers as separate
// processes (each its own host, so its own identity) against one etcd:
//
//   - a rolling flag change through the three apiservers moves the Feature
//     exactly once, Enabled -> Disabling -> Disabled, and back Enabled -> ... without
//     flapping, holding ConfigurationAgreed=False in between;
//   - the leader is killed in the middle of WaitForUses, held by a
//     kube-controller-manager that still reports the gate on; another
//     apiserver takes over from the checkpoint, and finishes within seconds
//     of the kube-controller-manager reporting it off;
//   - a Feature whose gate only a "newer" apiserver knows is never led by
//     ours while the newer one is live; once it is gone, ours keep it and mark
//     it Known=False, and delete a Feature more than 3 minor versions old.
func TestMultipleAPIServers(t *testing.T) {
	if !harness.SeparateHosts() {
		why := "needs unshare(1) with UTS namespaces (root, or an unprivileged user namespace) so that each apiserver process has its own identity"
		harness.RecordSkip(t, "the whole test", why)
		t.Skip(why)
	}
	prefix := harness.SharedEtcd().Prefix
	hosts := []string{"apiserver-a", "apiserver-b", "apiserver-c"}
	servers := make([]*harness.APIServerProcess, len(hosts))
	for i, h := range hosts {
		servers[i] = harness.StartAPIServerProcess(t, h, prefix, harness.DisagreeingFlags(t, "true", harness.Disagreeing)...)
	}
	admin := featuresclient.NewForConfigOrDie(servers[0].ClientConfig())
	kube := kubernetes.NewForConfigOrDie(servers[0].ClientConfig())
	ids := make([]string, len(hosts))
	for i, h := range hosts {
		ids[i] = harness.IdentityOf(t, kube, h)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
		t.Fatalf("the apiservers must have distinct identities: %v", ids)
	}
	name := featuresv1alpha1.FeatureName(harness.FlippableGate)
	key := "kube-system/" + name
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	states := harness.RecordStates(t, admin, name)

	t.Run("unknown gates", func(t *testing.T) { testUnknownGates(t, servers, ids) })

	// Roll the gate off through the apiservers, one at a time.
	for i := range servers[:2] {
		harness.RollOne(t, admin, servers[i], ids[i], "false", featuresv1alpha1.FeatureStateEnabled)
	}
	// A kube-controller-manager still runs with the gate on: its report
	// holds WaitForUses until it reports the gate off.
	kcm := newKCMReport(t, servers[0], harness.FlippableGate, true)
	defer kcm.stop()
	servers[2].Restart(t, harness.DisagreeingFlags(t, "false", harness.Disagreeing)...)

	// The transition starts; kill its leader in the middle of WaitForUses.
	var started string
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil || f.Status.State != featuresv1alpha1.FeatureStateDisabling || len(f.Status.Tasks) == 0 || f.Status.Tasks[0].Checkpoint == "" {
			return false, nil
		}
		if !strings.Contains(f.Status.Tasks[0].Message, "kube-controller-manager (kcm-host)") {
			t.Fatalf("WaitForUses must name the kube-controller-manager that reports the gate on: %+v", f.Status.Tasks[0])
		}
		started = f.Status.Tasks[0].Checkpoint
		return true, nil
	})
	if err != nil {
		t.Fatalf("the Feature did not enter Disabling once every apiserver was off: %v", err)
	}
	old := featuretest.LeaderOf(t, harness.ConfigsOf(servers), key, 30*time.Second)
	t.Logf("killing the leader %s (%s) during WaitForUses", hosts[old], ids[old])
	killed := time.Now()
	servers[old].Kill()
	rest := slices.Clone(servers)
	rest[old] = nil
	next := featuretest.LeaderOf(t, harness.ConfigsOf(rest), key, time.Minute)
	failover := time.Since(killed)
	t.Logf("leader failover: %s took over %.1fs after %s was killed (liveness window %s)", hosts[next], failover.Seconds(), hosts[old], harness.LivenessWindow)
	admin = featuresclient.NewForConfigOrDie(servers[next].ClientConfig())
	// The new leader steps WaitForUses from the stored checkpoint: the
	// wait keeps its start.
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(f.Status.Tasks) == 0 {
			return false, nil
		}
		if task := f.Status.Tasks[0]; task.Name != "wait-for-uses" || task.Checkpoint != started {
			t.Fatalf("the new leader must resume WaitForUses from its checkpoint %s: %+v", started, task)
		}
		known := harness.Condition(f, featuresv1alpha1.FeatureConditionKnown)
		return known != nil && strings.Contains(known.Message, ids[next]), nil
	})
	if err != nil {
		t.Fatalf("the new leader did not step the Feature: %v", err)
	}
	// The kube-controller-manager restarts with the gate off: the
	// transition completes within seconds, with no fixed wait.
	switched := time.Now()
	kcm.report(false)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)
	kcm.stop() // the kube-controller-manager goes away
	t.Logf("converged to Disabled %.1fs after the kill, %.1fs after the last component switched", time.Since(killed).Seconds(), time.Since(switched).Seconds())
	if since := time.Since(switched); since > harness.LivenessWindow+5*time.Second {
		t.Errorf("Disabled %v after the last component switched, want within the liveness window plus 5s", since)
	}
	servers[old].Start(t)

	// Roll it back on.
	for i := range servers[:2] {
		harness.RollOne(t, admin, servers[i], ids[i], "true", featuresv1alpha1.FeatureStateDisabled)
	}
	servers[2].Restart(t, harness.DisagreeingFlags(t, "true", harness.Disagreeing)...)
	ready := time.Now()
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	t.Logf("rolled back on: converged to Enabled %.1fs after the last apiserver was ready (wait period %s)", time.Since(ready).Seconds(), harness.DisagreeingWaitPeriod)
	want := []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabling,
		featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateEnabled}
	if got := states.Through(t, len(want), featuresv1alpha1.FeatureStateEnabled); !slices.Equal(got, want) {
		t.Fatalf("states %v, want exactly %v (no flapping)", got, want)
	}
}

// kcmReport is a kube-controller-manager's FeatureReport that the test
// writes, with kube-controller-manager's credentials, and renews every 5 s
// (lease 40 s) until stop.
type kcmReport struct {
	t      *testing.T
	client featuresclient.Interface
	gate   string
	mu     sync.Mutex
	value  bool
	cancel context.CancelFunc
	done   chan struct{}
}

// newKCMReport reports gate=value as kube-controller-manager kcm-host
// through server, and keeps the report renewed.
func newKCMReport(t *testing.T, server *harness.APIServerProcess, gate string, value bool) *kcmReport {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &kcmReport{t: t, client: featuresclient.NewForConfigOrDie(server.ClientConfigFor(harness.KubeControllerManagerToken)),
		gate: gate, value: value, cancel: cancel, done: make(chan struct{})}
	if err := r.write(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Second):
				_ = r.write(ctx)
			}
		}
	}()
	return r
}

// report writes the report with gate=value now.
func (r *kcmReport) report(value bool) {
	r.mu.Lock()
	r.value = value
	r.mu.Unlock()
	if err := r.write(context.Background()); err != nil {
		r.t.Fatal(err)
	}
}

func (r *kcmReport) write(ctx context.Context) error {
	r.mu.Lock()
	value := r.value
	r.mu.Unlock()
	renew := metav1.NewMicroTime(time.Now())
	report := &featuresv1alpha1.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureReportName("kube-controller-manager", "kcm-host")},
		Spec: featuresv1alpha1.FeatureReportSpec{Component: "kube-controller-manager", Identity: "kcm-host", RenewTime: &renew,
			LeaseDurationSeconds: ptr.To[int32](40), Gates: []featuresv1alpha1.FeatureReportGate{{Name: r.gate, Enabled: value}}},
	}
	reports := r.client.FeaturesV1alpha1().FeatureReports("kube-system")
	current, err := reports.Get(ctx, report.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = reports.Create(ctx, report, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	current.Spec = report.Spec
	_, err = reports.Update(ctx, current, metav1.UpdateOptions{})
	return err
}

func (r *kcmReport) stop() {
	r.cancel()
	<-r.done
	_ = r.client.FeaturesV1alpha1().FeatureReports("kube-system").Delete(context.Background(),
		featuresv1alpha1.FeatureReportName("kube-controller-manager", "kcm-host"), metav1.DeleteOptions{})
}

// testUnknownGates: a Feature of a gate only a "newer" apiserver knows (its
// identity lease renewed by the test, its uses reported under it).
func testUnknownGates(t *testing.T, servers []*harness.APIServerProcess, ids []string) {
	ctx := context.Background()
	adminConfig := servers[0].ClientConfig()
	kube := kubernetes.NewForConfigOrDie(adminConfig)
	// Only kube-apiserver's loopback identity may create Features of gates
	// it does not know in kube-system: act as the newer apiserver would.
	asAPIServer := restclient.CopyConfig(adminConfig)
	asAPIServer.Impersonate = restclient.ImpersonationConfig{UserName: "system:apiserver", Groups: []string{"system:masters"}}
	newer := featuresclient.NewForConfigOrDie(asAPIServer)

	const newerID = "apiserver-newer"
	renew := func() {
		now := metav1.NewMicroTime(time.Now())
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: newerID, Namespace: "kube-system",
				Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(newerID), LeaseDurationSeconds: ptr.To[int32](3600), RenewTime: &now},
		}
		if _, err := kube.CoordinationV1().Leases("kube-system").Create(ctx, lease, metav1.CreateOptions{}); err == nil {
			return
		}
		current, err := kube.CoordinationV1().Leases("kube-system").Get(ctx, newerID, metav1.GetOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		current.Spec.RenewTime = &now
		if _, err := kube.CoordinationV1().Leases("kube-system").Update(ctx, current, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}
	renew()

	create := func(gate, version string) *featuresv1alpha1.Feature {
		f, err := newer.FeaturesV1alpha1().Features("kube-system").Create(ctx, &featuresv1alpha1.Feature{
			ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureName(gate)},
			Spec:       featuresv1alpha1.FeatureSpec{Gate: gate, DesiredState: featuresv1alpha1.FeatureDesiredStateEnabled},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f.Status = featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateEnabled, Version: version, PreRelease: featuresv1alpha1.FeaturePreReleaseAlpha,
			Default: ptr.To(false), Uses: []featuresv1alpha1.FeatureUse{{Component: featuresv1alpha1.APIServerComponent, Enabled: true,
				Reporters: []string{newerID}, FirstReportTime: metav1.Now()}}}
		if f, err = newer.FeaturesV1alpha1().Features("kube-system").UpdateStatus(ctx, f, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// The newer apiserver reports the gates it knows, as ours do.
	renewTime := metav1.NewMicroTime(time.Now())
	if _, err := newer.FeaturesV1alpha1().FeatureReports("kube-system").Create(ctx, &featuresv1alpha1.FeatureReport{
		ObjectMeta: metav1.ObjectMeta{Name: featuresv1alpha1.FeatureReportName(featuresv1alpha1.APIServerComponent, newerID)},
		Spec: featuresv1alpha1.FeatureReportSpec{Component: featuresv1alpha1.APIServerComponent, Identity: newerID, RenewTime: &renewTime,
			HolderLease: &featuresv1alpha1.FeatureReportLease{Namespace: "kube-system", Name: newerID},
			Gates:       []featuresv1alpha1.FeatureReportGate{{Name: "FeatureFromTheFuture", Enabled: true}, {Name: "FeatureFromThePast", Enabled: true}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	future := create("FeatureFromTheFuture", "1.37")
	ancient := create("FeatureFromThePast", "1.32")

	// While the newer apiserver is live and reports the gates, none of ours
	// leads them or writes to them.
	deadline := time.Now().Add(harness.LivenessWindow)
	for time.Now().Before(deadline) {
		renew()
		time.Sleep(2 * time.Second)
	}
	for _, f := range []*featuresv1alpha1.Feature{future, ancient} {
		got, err := newer.FeaturesV1alpha1().Features("kube-system").Get(ctx, f.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.ResourceVersion != f.ResourceVersion {
			t.Fatalf("an apiserver that does not know %s wrote its Feature: %+v", f.Spec.Gate, got.Status)
		}
		for i, s := range servers {
			if v, _, err := featuretest.LeaderGauge(ctx, s.ClientConfig(), "kube-system/"+f.Name); err != nil || v != 0 {
				t.Fatalf("%s (%s) leads %s, a gate it does not know (gauge %v, err %v)", s.Name, ids[i], f.Spec.Gate, v, err)
			}
		}
	}

	// The newer apiserver goes away: ours keep and mark the newer Feature and
	// delete the one more than 3 minor versions behind them.
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := newer.FeaturesV1alpha1().Features("kube-system").Get(ctx, future.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		c := harness.Condition(got, featuresv1alpha1.FeatureConditionKnown)
		return c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "newer"), nil
	})
	if err != nil {
		t.Fatalf("the Feature of a newer gate must be kept and marked Known=False: %v", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := newer.FeaturesV1alpha1().Features("kube-system").Get(ctx, ancient.Name, metav1.GetOptions{})
		return err != nil && strings.Contains(err.Error(), "not found"), nil
	})
	if err != nil {
		t.Fatalf("a Feature 4 minor versions behind that nobody knows must be deleted: %v", err)
	}
	t.Logf("unknown Features marked and retired %.1fs after the newer apiserver stopped renewing (liveness window %s)",
		time.Since(start).Seconds(), harness.LivenessWindow)
	if err := kube.CoordinationV1().Leases("kube-system").Delete(ctx, newerID, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}
