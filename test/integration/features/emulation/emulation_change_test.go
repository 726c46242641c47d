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

package emulation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// versionGate is registered (explicit ClearFields of maxUnavailable) and its
// default changes between the two emulation versions of the test: off at
// 1.36, on at 1.37 (pkg/features/README.md, "what changes between
// versions").
const versionGate = featuretest.MigrationGate

var (
	versionLow  = version.MajorMinor(1, 36)
	versionHigh = version.MajorMinor(1, 37)
)

// versionFlags are the flags of an apiserver emulating v; no gate but
// FeatureLifecycle is set, so every value is the version's default.
func versionFlags(t testing.TB, v *version.Version) []string {
	return []string{"--feature-gates=FeatureLifecycle=true",
		"--runtime-config=features.k8s.io/v1alpha1=true",
		"--emulated-version=" + v.String(),
		harness.Lifecycle{WaitForUsesPeriod: 3 * time.Second, ResidueScanInterval: 5 * time.Second,
			ResidueScanPageInterval: 200 * time.Millisecond, LivenessWindow: harness.LivenessWindow}.Flag(t)}
}

// gateAt returns the gate of the test process emulating v.
func gateAt(t *testing.T, v *version.Version) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	gate := utilfeature.DefaultFeatureGate.DeepCopy()
	if err := gate.SetEmulationVersion(v); err != nil {
		t.Fatal(err)
	}
	return gate
}

// announcedValues returns, by Feature name, the value of every gate an
// apiserver emulating v announces (FeatureLifecycle on, the rest default).
func announcedValues(t *testing.T, v *version.Version) map[string]bool {
	t.Helper()
	gate := gateAt(t, v)
	out := map[string]bool{}
	for _, g := range (&featurelifecycle.Announcer{Gate: gate}).Gates() {
		out[featuresv1alpha1.FeatureName(string(g))] = g == "FeatureLifecycle" || gate.Enabled(g)
	}
	return out
}

// stateOf maps a value to the final state it leads to.
func stateOf(on bool) featuresv1alpha1.FeatureState {
	if on {
		return featuresv1alpha1.FeatureStateEnabled
	}
	return featuresv1alpha1.FeatureStateDisabled
}

// TestEmulationVersionDrivesLifecycle restarts one kube-apiserver from
// --emulated-version=1.36 to 1.37 and back (KEP-4330), with no
// --feature-gates but FeatureLifecycle: every Feature whose effective value
// changes with the version goes through Enabling/Disabling with its tasks,
// exactly as a flag change does, its description follows the version, and
// every other Feature keeps its state. MaxUnavailableStatefulSet (off at
// 1.36, on at 1.37) is followed closely: maxUnavailable is dropped at 1.36,
// kept at 1.37, counted in DowngradeSafe, and cleared from etcd by its
// Disabling task on the way back. MutatingAdmissionPolicyBindings written
// at 1.36 (stored at v1beta1) are rewritten at v1 by the built-in
// version-keyed task migrate-storage-to-1-37 once the apiserver emulates
// 1.37, and at v1beta1 again by migrate-storage-below-1-37 on the way back,
// read from etcd, while that Feature stays Enabled.
func TestEmulationVersionDrivesLifecycle(t *testing.T) {
	ctx := context.Background()
	prefix := harness.SharedEtcd().Prefix
	etcd := []string{harness.EtcdURL()}
	const namespace = "emulation-change"
	name := featuresv1alpha1.FeatureName(versionGate)
	low, high := announcedValues(t, versionLow), announcedValues(t, versionHigh)
	if low[name] || !high[name] {
		t.Fatalf("%s must be off at %s and on at %s: %t, %t", versionGate, versionLow, versionHigh, low[name], high[name])
	}

	apiserver := harness.StartAPIServerProcess(t, "emulation-change", prefix, versionFlags(t, versionLow)...)
	c := featuretest.NewClients(apiserver.ClientConfig())
	admin := c.Features[0]
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, time.Minute)
	waitAllConverged(t, admin, low)

	// At 1.36 the field is dropped on create.
	featuretest.CreateStatefulSets(t, c, namespace, 3, 1, 1)
	for n, ss := range featuretest.StoredStatefulSets(t, etcd, prefix, namespace) {
		if featuretest.HasMaxUnavailable(ss) {
			t.Fatalf("%s was stored with maxUnavailable at %s, where %s is off", n, versionLow, versionGate)
		}
	}
	// Data at the old storage version, for the storage version migration.
	storeBindings(t, c, etcd, prefix, versionLow)
	before := featureStates(t, admin)
	states := harness.RecordStates(t, admin, name)
	states.Through(t, 1, featuresv1alpha1.FeatureStateDisabled)

	for _, step := range []struct {
		from, to      *version.Version
		values        map[string]bool
		trans, final  featuresv1alpha1.FeatureState
		preRelease    featuresv1alpha1.FeaturePreRelease
		defaultValue  bool
		wantTask      string
		useBeforeNext bool
		storageTask   string
	}{
		{versionLow, versionHigh, high, featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateEnabled, "", true, "", true, "migrate-storage-to-1-37"},
		{versionHigh, versionLow, low, featuresv1alpha1.FeatureStateDisabling, featuresv1alpha1.FeatureStateDisabled, "", false, featuretest.MigrationTask, false, "migrate-storage-below-1-37"},
	} {
		spec := gateAt(t, step.to).GetAll()[versionGate]
		seen := len(states.Get())
		w := featuretest.WatchFeature(t, c, name)
		storageWatch := featuretest.WatchFeature(t, c, featuresv1alpha1.FeatureName(storageGate))
		start := time.Now()
		apiserver.Restart(t, versionFlags(t, step.to)...)
		ready := time.Now()
		checkStorageMigration(t, c, etcd, prefix, step.to, step.storageTask, storageWatch, ready)
		f := featuretest.WaitForConverged(t, admin, name, step.final, 2*time.Minute)
		t.Logf("%s -> %s: restarted in %.1fs; %s converged to %s %.1fs after the restarted apiserver was ready",
			step.from, step.to, ready.Sub(start).Seconds(), name, step.final, time.Since(ready).Seconds())
		w.Log(t, ready)
		if got := states.Through(t, seen+2, step.final)[seen:]; !slices.Equal(got, []featuresv1alpha1.FeatureState{step.trans, step.final}) {
			t.Errorf("%s -> %s: %s went through %v, want [%s %s]", step.from, step.to, name, got, step.trans, step.final)
		}
		if f.Status.Version != step.to.String() || f.Status.Default == nil || *f.Status.Default != spec.Default ||
			f.Status.PreRelease != inventory.PreRelease(spec) {
			t.Errorf("%s -> %s: %s is described as %s/%v/%s, the gate at %s is %t/%s", step.from, step.to, name,
				f.Status.Version, ptr.Deref(f.Status.Default, false), f.Status.PreRelease, step.to, spec.Default, spec.PreRelease)
		}
		if step.wantTask != "" {
			ran := false
			for _, o := range w.Get() {
				ran = ran || o.Task == step.wantTask
			}
			if !ran {
				t.Errorf("%s -> %s: the Disabling task %s never ran", step.from, step.to, step.wantTask)
			}
		}
		// Every Feature ends in the state of its value at the new version:
		// exactly those whose value changed moved.
		after := waitAllConverged(t, admin, step.values)
		var moved []string
		for n, s := range after {
			if old, ok := before[n]; ok && old != s {
				moved = append(moved, n)
			}
		}
		slices.Sort(moved)
		var changed []string
		for n, on := range step.values {
			if old, ok := before[n]; ok && old != stateOf(on) {
				changed = append(changed, n)
			}
		}
		slices.Sort(changed)
		if !slices.Equal(moved, changed) {
			t.Errorf("%s -> %s: the Features that moved %v, the Features whose value changed %v", step.from, step.to, moved, changed)
		}
		t.Logf("%s -> %s: %d Features moved, exactly those whose value changed: %v", step.from, step.to, len(moved), moved)
		before = after

		if step.useBeforeNext {
			// The field is kept now: the feature's data is in use.
			for i := range 3 {
				ss, err := c.Kube[0].AppsV1().StatefulSets(namespace).Get(ctx, featuretest.ObjectName(i), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ss.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(2))
				if _, err := c.Kube[0].AppsV1().StatefulSets(namespace).Update(ctx, ss, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for n, ss := range featuretest.StoredStatefulSets(t, etcd, prefix, namespace) {
				if !featuretest.HasMaxUnavailable(ss) {
					t.Fatalf("%s was stored without maxUnavailable at %s, where %s is on", n, step.to, versionGate)
				}
			}
			// The way back is blocked, and the signal counts the objects
			// that use the feature (after a residue pass).
			want := fmt.Sprintf("stored objects use it: 3 statefulsets.apps (%s/%s, ", namespace, featuretest.ObjectName(0))
			var got *metav1.Condition
			start := time.Now()
			if err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
				f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				got = harness.Condition(f, featuresv1alpha1.FeatureConditionDowngradeSafe)
				return got != nil && got.Status == metav1.ConditionFalse && got.Reason == "TurnsOffAtTarget" && strings.Contains(got.Message, want), nil
			}); err != nil {
				t.Fatalf("at %s, %s's DowngradeSafe must be False and count the StatefulSets that use it (%q): %+v", step.to, name, want, got)
			}
			t.Logf("at %s, after %.1fs: DowngradeSafe=False: %s", step.to, time.Since(start).Seconds(), got.Message)
		}
	}
	// Back at 1.36 the Disabling task cleared the field from etcd.
	for n, ss := range featuretest.StoredStatefulSets(t, etcd, prefix, namespace) {
		if featuretest.HasMaxUnavailable(ss) {
			t.Errorf("%s still holds maxUnavailable in etcd after %s turned Disabled", n, versionGate)
		}
	}
}

// featureStates returns the state of every Feature in kube-system by name.
func featureStates(t *testing.T, admin featuresclient.Interface) map[string]featuresv1alpha1.FeatureState {
	t.Helper()
	list, err := admin.FeaturesV1alpha1().Features("kube-system").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]featuresv1alpha1.FeatureState{}
	for _, f := range list.Items {
		out[f.Name] = f.Status.State
	}
	return out
}

// waitAllConverged waits until every Feature of values is in the final
// state of its value, with that desired state, and returns the states of
// all Features in kube-system. It fails naming those that are not.
func waitAllConverged(t *testing.T, admin featuresclient.Interface, values map[string]bool) map[string]featuresv1alpha1.FeatureState {
	t.Helper()
	var wrong, why []string
	var got map[string]featuresv1alpha1.FeatureState
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := admin.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		got, wrong, why = map[string]featuresv1alpha1.FeatureState{}, nil, nil
		for _, f := range list.Items {
			got[f.Name] = f.Status.State
			if on, ok := values[f.Name]; ok && (f.Status.State != stateOf(on) || string(f.Spec.DesiredState) != string(stateOf(on))) {
				wrong = append(wrong, f.Name+"="+string(f.Status.State))
				for _, task := range f.Status.Tasks {
					why = append(why, fmt.Sprintf("%s: task %s: %s %s", f.Name, task.Name, task.Message, task.Progress))
				}
				for _, c := range f.Status.Conditions {
					if c.Status != metav1.ConditionTrue {
						why = append(why, fmt.Sprintf("%s: %s=%s %s: %s", f.Name, c.Type, c.Status, c.Reason, c.Message))
					}
				}
			}
		}
		for n := range values {
			if _, ok := got[n]; !ok {
				wrong = append(wrong, n+" missing")
			}
		}
		return len(wrong) == 0, nil
	})
	if err != nil {
		t.Fatalf("Features not in the state of their value: %v\n%s", wrong, strings.Join(why, "\n"))
	}
	return got
}

// TestEmulationVersionRolling runs three kube-apiservers on one etcd and
// moves them from --emulated-version=1.36 to 1.37 one at a time, then back
// to 1.36 one at a time. While they emulate different versions no Feature
// changes state: the Features whose value differs between the versions say
// ConfigurationAgreed=False naming each apiserver with its version, and
// every Feature is described at the lowest emulation version among the live
// apiservers, 1.36, whichever apiserver leads it. Once all three emulate
// 1.37 the Features whose value changed transition and the storage version
// migration of MutatingAdmissionPolicy runs; on the way back, as soon as one
// apiserver emulates 1.36 again its rewrite to the old storage version is
// queued and waits, naming the apiservers still at 1.37, until all three
// are back.
func TestEmulationVersionRolling(t *testing.T) {
	if !harness.SeparateHosts() {
		why := "needs unshare(1) with UTS namespaces (root, or an unprivileged user namespace) so that each apiserver process has its own identity"
		harness.RecordSkip(t, "the whole test", why)
		t.Skip(why)
	}
	ctx := context.Background()
	prefix := harness.SharedEtcd().Prefix
	hosts := []string{"version-a", "version-b", "version-c"}
	servers := make([]*harness.APIServerProcess, len(hosts))
	for i, h := range hosts {
		servers[i] = harness.StartAPIServerProcess(t, h, prefix, versionFlags(t, versionLow)...)
	}
	c := featuretest.NewClients(harness.ConfigsOf(servers)...)
	admin := c.Features[0]
	ids := make([]string, len(hosts))
	for i, h := range hosts {
		ids[i] = harness.IdentityOf(t, c.Kube[0], h)
	}
	low, high := announcedValues(t, versionLow), announcedValues(t, versionHigh)
	name := featuresv1alpha1.FeatureName(versionGate)
	storage := featuresv1alpha1.FeatureName("MutatingAdmissionPolicy")
	lowGate := gateAt(t, versionLow).GetAll()
	before := waitAllConverged(t, admin, low)

	// hold checks, for a while, that no Feature a 1.36 apiserver knows
	// moves from before and that each is described as of 1.36, whoever
	// leads it, once the leaders have seen the versions.
	hold := func(phase string, before map[string]featuresv1alpha1.FeatureState) {
		t.Helper()
		described := func(f *featuresv1alpha1.Feature) string {
			spec := lowGate[featuregate.Feature(f.Spec.Gate)]
			if f.Status.Version != versionLow.String() || f.Status.Default == nil || *f.Status.Default != spec.Default ||
				f.Status.PreRelease != inventory.PreRelease(spec) {
				return fmt.Sprintf("%s is described as %s/%v/%s, the gate at %s is %t/%s",
					f.Name, f.Status.Version, ptr.Deref(f.Status.Default, false), f.Status.PreRelease, versionLow, spec.Default, spec.PreRelease)
			}
			return ""
		}
		var wrong string
		if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			list, err := admin.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			for i := range list.Items {
				if _, ok := low[list.Items[i].Name]; ok {
					if wrong = described(&list.Items[i]); wrong != "" {
						return false, nil
					}
				}
			}
			return true, nil
		}); err != nil {
			t.Fatalf("%s: not every Feature is described at the lowest version, %s: %s", phase, versionLow, wrong)
		}
		deadline := time.Now().Add(harness.LivenessWindow)
		for time.Now().Before(deadline) {
			list, err := admin.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range list.Items {
				if _, ok := low[f.Name]; !ok {
					continue
				}
				if f.Status.State != before[f.Name] || string(f.Spec.DesiredState) != string(before[f.Name]) {
					t.Fatalf("%s: %s moved while the apiservers emulate different versions: desired %s, state %s, was %s",
						phase, f.Name, f.Spec.DesiredState, f.Status.State, before[f.Name])
				}
				if msg := described(&f); msg != "" {
					t.Fatalf("%s: %s while the lowest emulation version is %s", phase, msg, versionLow)
				}
				if on, ok := high[f.Name]; ok && on != low[f.Name] {
					if c := harness.Condition(&f, featuresv1alpha1.FeatureConditionConfigurationAgreed); c == nil || c.Status != metav1.ConditionFalse {
						t.Fatalf("%s: %s changes value with the version but says ConfigurationAgreed %+v", phase, f.Name, c)
					}
				}
			}
			time.Sleep(time.Second)
		}
		t.Logf("%s: held %s, no Feature moved, all described at %s", phase, harness.LivenessWindow, versionLow)
	}
	// agreedMessage waits for the versionGate Feature to name every
	// apiserver with its version in ConfigurationAgreed=False.
	agreedMessage := func(phase string, at map[string]*version.Version) {
		t.Helper()
		var f *featuresv1alpha1.Feature
		var missing []string
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			var err error
			if f, err = admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{}); err != nil {
				return false, nil
			}
			c := harness.Condition(f, featuresv1alpha1.FeatureConditionConfigurationAgreed)
			if c == nil || c.Status != metav1.ConditionFalse {
				return false, nil
			}
			missing = nil
			for id, v := range at {
				value := "Disabled"
				if high[name] && v.EqualTo(versionHigh) {
					value = "Enabled"
				}
				if want := value + " on "; !strings.Contains(c.Message, id+" (emulating "+v.String()+")") || !strings.Contains(c.Message, want) {
					missing = append(missing, id+" at "+v.String())
				}
			}
			return len(missing) == 0, nil
		})
		if err != nil {
			t.Fatalf("%s: %s must say ConfigurationAgreed=False naming %v: %+v", phase, name, missing, f.Status.Conditions)
		}
		t.Logf("%s: %s", phase, harness.Condition(f, featuresv1alpha1.FeatureConditionConfigurationAgreed).Message)
	}

	// Up, one at a time.
	at := map[string]*version.Version{}
	for _, id := range ids {
		at[id] = versionLow
	}
	for i := range servers {
		servers[i].Restart(t, versionFlags(t, versionHigh)...)
		at[ids[i]] = versionHigh
		if i < len(servers)-1 {
			phase := fmt.Sprintf("up, %d of %d at %s", i+1, len(servers), versionHigh)
			agreedMessage(phase, at)
			hold(phase, before)
		}
	}
	f := featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	spec := gateAt(t, versionHigh).GetAll()[versionGate]
	if f.Status.Version != versionHigh.String() || *f.Status.Default != spec.Default || f.Status.PreRelease != inventory.PreRelease(spec) {
		t.Errorf("%s is described as %s/%t/%s once all emulate %s, where the gate is %t/%s",
			name, f.Status.Version, *f.Status.Default, f.Status.PreRelease, versionHigh, spec.Default, spec.PreRelease)
	}
	before = waitAllConverged(t, admin, high)
	waitForVersion(t, admin, storage, versionHigh.String())

	// Down, one at a time: the rewrite to the old storage version is
	// queued at the first step and waits for the others.
	for i := range servers {
		servers[i].Restart(t, versionFlags(t, versionLow)...)
		at[ids[i]] = versionLow
		if i == len(servers)-1 {
			break
		}
		phase := fmt.Sprintf("down, %d of %d at %s", i+1, len(servers), versionLow)
		agreedMessage(phase, at)
		var waiting *featuresv1alpha1.Feature
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			var err error
			if waiting, err = admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, storage, metav1.GetOptions{}); err != nil {
				return false, nil
			}
			ts := waiting.Status.Tasks
			return waiting.Status.Version == versionLow.String() && len(ts) == 1 && ts[0].Name == "migrate-storage-below-1-37" &&
				strings.Contains(ts[0].Message, "waits until every kube-apiserver emulates "+versionLow.String()) &&
				strings.Contains(ts[0].Message, ids[len(ids)-1]+" at "+versionHigh.String()), nil
		})
		if err != nil {
			t.Fatalf("%s: %s must hold migrate-storage-below-1-37, waiting for the apiservers at %s: %+v", phase, storage, versionHigh, waiting.Status)
		}
		t.Logf("%s: %s: %s", phase, storage, waiting.Status.Tasks[0].Message)
		hold(phase, before)
	}
	waitAllConverged(t, admin, low)
	waitForVersion(t, admin, storage, versionLow.String())
}
