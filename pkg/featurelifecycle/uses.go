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

package featurelifecycle

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
)

// uses keeps the index of the components' FeatureReports (every
// namespace) and makes each Feature's status.uses from the live ones; it
// deletes the reports that stopped being live long ago.
type uses struct {
	self    string
	client  kubernetes.Interface
	reports *reports.Index
	// reportLister reads the stored reports, for their UID and
	// resourceVersion when deleting one.
	reportLister featureslisters.FeatureReportLister
	// leases lists the leases a report can name as its holder: the
	// kubelets' node leases and the apiservers' identity leases.
	leases coordinationlisters.LeaseLister
	// waitForUsesPeriod and retention are Config's WaitForUsesPeriod and
	// ReportRetention.
	waitForUsesPeriod, retention time.Duration
	// enqueue adds a Feature's key to the queue; enqueueRolling adds those
	// of the Features whose rollout is not over.
	enqueue        func(key string)
	enqueueRolling func()

	mu sync.Mutex
	// written holds, per Feature, when this apiserver last wrote a change
	// of its uses: a change of the samples of reporters alone waits
	// sampleRefresh after it, so that a rolling restart of many reporters
	// writes the Feature a bounded number of times.
	written map[string]time.Time
}

// sampleRefresh is how long a change of uses that only moves reporters in
// and out of a sample waits after the last written change of the uses.
const sampleRefresh = 10 * time.Second

// reportChanged indexes a FeatureReport and enqueues the Features whose
// uses it changes.
func (u *uses) reportChanged(obj any) {
	r, ok := obj.(*featuresv1alpha1.FeatureReport)
	if !ok {
		return
	}
	report := reports.NewReport(r)
	old := u.reports.Get(report.Key())
	for _, gate := range u.reports.Set(report) {
		u.enqueue(r.Namespace + "/" + featuresv1alpha1.FeatureName(gate))
	}
	if old != nil && !old.StartTime.Equal(report.StartTime) && (report.Component == kubelet || report.Component == featuresv1alpha1.APIServerComponent) {
		// A kubelet or an apiserver restarted: the rollouts' analyses
		// count it.
		u.enqueueRolling()
	}
}

// reportDeleted drops a FeatureReport from the index and enqueues the
// Features it reported to.
func (u *uses) reportDeleted(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	r, ok := obj.(*featuresv1alpha1.FeatureReport)
	if !ok {
		return
	}
	for _, gate := range u.reports.Delete(r.Namespace + "/" + r.Name) {
		u.enqueue(r.Namespace + "/" + featuresv1alpha1.FeatureName(gate))
	}
}

// withLive returns a view of f whose status.uses are what the live
// FeatureReports of its namespace make now, and when they may next change
// without an event (a listed reporter's liveness running out; zero: not
// before an event). The view shares everything else with f, which is the
// informer's: it is read, never written (a write starts from a DeepCopy).
func (u *uses) withLive(f *featuresv1alpha1.Feature, voters sets.Set[string], now time.Time) (*featuresv1alpha1.Feature, time.Time) {
	live, next := reports.Aggregate(u.reports, f.Namespace, f.Spec.Gate, f.Status.Uses, u.liveness(voters), now)
	view := *f
	view.Status.Uses = live
	return &view, next
}

// liveness returns until when a report counts as live:
//   - a kube-apiserver's, while the apiserver votes on desired state (it
//     renewed its identity lease, or departed, within the forget window), so
//     that the values the desired state is decided from are the ones in
//     uses;
//   - one naming a holder lease this apiserver watches (a kubelet's node
//     lease, an apiserver's identity lease), until that lease expires;
//   - else, until its own lease duration after its renewal, or
//     WaitForUsesPeriod after it when it gives none: the upper bound for
//     reporters whose liveness cannot be seen.
func (u *uses) liveness(voters sets.Set[string]) reports.Liveness {
	return func(r *reports.Report) time.Time {
		if r.Component == featuresv1alpha1.APIServerComponent {
			if voters.Has(r.Identity) {
				// Re-evaluated on every lease and tombstone event and
				// whenever the voters change.
				return reports.Unbounded
			}
			return time.Time{}
		}
		if l := r.HolderLease; l != nil {
			if until, ok := u.leaseExpiry(l); ok {
				return until
			}
		}
		if r.RenewTime.IsZero() {
			return time.Time{}
		}
		if r.LeaseDuration > 0 {
			return r.RenewTime.Add(r.LeaseDuration)
		}
		return r.RenewTime.Add(u.waitForUsesPeriod)
	}
}

// leaseExpiry returns when a lease this apiserver watches expires: its
// renewal plus its duration. It returns false for a lease it does not
// watch or that does not exist.
func (u *uses) leaseExpiry(l *featuresv1alpha1.FeatureReportLease) (time.Time, bool) {
	if l.Namespace != corev1.NamespaceNodeLease && l.Namespace != leader.IdentityLeaseNamespace {
		return time.Time{}, false
	}
	lease, err := u.leases.Leases(l.Namespace).Get(l.Name)
	if err != nil {
		return time.Time{}, false
	}
	spec := lease.Spec
	if spec.RenewTime == nil || spec.LeaseDurationSeconds == nil {
		return time.Time{}, false
	}
	return spec.RenewTime.Add(time.Duration(*spec.LeaseDurationSeconds) * time.Second), true
}

// holdSampleChange keeps the stored uses in status when they differ from
// it only in which reporters the samples list, and the uses were written
// less than sampleRefresh ago; it returns how long until the change may be
// written then (0 when nothing is held). A (component, value) pair that
// appears or goes is written at once.
func (u *uses) holdSampleChange(stored *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, now time.Time) time.Duration {
	if !reports.SamePairs(status.Uses, stored.Status.Uses) {
		return 0
	}
	u.mu.Lock()
	written, ok := u.written[leader.Key(stored)]
	u.mu.Unlock()
	if wait := written.Add(sampleRefresh).Sub(now); ok && wait > 0 {
		status.Uses = stored.Status.Uses
		return wait
	}
	return 0
}

// wrote records that a status with status.uses was written over stored at
// now.
func (u *uses) wrote(stored *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, now time.Time) {
	if apiequality.Semantic.DeepEqual(status.Uses, stored.Status.Uses) {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.written[leader.Key(stored)] = now
}

// forget forgets what was recorded of a Feature that is gone.
func (u *uses) forget(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.written, key)
}

// modes returns the voters by the management their reports state for
// gate (CommandLine when they state none); voters without a report, or
// whose report does not list the gate, are left out.
func (u *uses) modes(gate string, voters []string) map[featuresv1alpha1.FeatureManagement][]string {
	modes := map[featuresv1alpha1.FeatureManagement][]string{}
	for _, id := range voters {
		r := u.reports.Get(KubeNamespace + "/" + featuresv1alpha1.FeatureReportName(featuresv1alpha1.APIServerComponent, id))
		if r == nil {
			continue
		}
		if _, ok := r.Gates[gate]; !ok {
			continue
		}
		mode := r.Modes[gate]
		if mode == "" {
			mode = featuresv1alpha1.FeatureManagementCommandLine
		}
		modes[mode] = append(modes[mode], id)
	}
	return modes
}

// apiserverVersions returns the emulation versions the kube-apiserver
// reports of voters state, by identity.
func (u *uses) apiserverVersions(voters []string) map[string]string {
	out := map[string]string{}
	for _, id := range voters {
		r := u.reports.Get(KubeNamespace + "/" + featuresv1alpha1.FeatureReportName(featuresv1alpha1.APIServerComponent, id))
		if r != nil && r.EmulationVersion != "" {
			out[id] = r.EmulationVersion
		}
	}
	return out
}

// deleteExpired deletes the FeatureReports this apiserver leads that
// stopped being live more than the retention ago (a node that was removed,
// a component that moved to another host, a kube-apiserver that no longer
// votes and last wrote its report that long ago); a reporter that comes
// back writes its report again. live are the live apiservers, voters those
// that vote.
func (u *uses) deleteExpired(ctx context.Context, live, voters []string, now time.Time) {
	if len(live) == 0 {
		return
	}
	liveness := u.liveness(sets.New(voters...))
	for _, r := range u.reports.Reports() {
		until := liveness(r)
		if r.Component == featuresv1alpha1.APIServerComponent && until.IsZero() {
			// A kube-apiserver that no longer votes writes its report
			// only when it starts: count from then.
			until = r.RenewTime
		}
		if until.IsZero() || now.Sub(until) < u.retention {
			continue
		}
		if lead, ok := leader.Leader(r.Key(), live); !ok || lead != u.self {
			continue
		}
		stored, err := u.reportLister.FeatureReports(r.Namespace).Get(r.Name)
		if err != nil {
			continue
		}
		err = u.client.FeaturesV1alpha1().FeatureReports(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &stored.UID, ResourceVersion: &stored.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			klog.FromContext(ctx).Error(err, "Deleting an expired feature report failed", "report", r.Key())
			continue
		}
		if err == nil {
			klog.FromContext(ctx).Info("Deleted a feature report that stopped being live", "report", r.Key(), "expired", until)
		}
	}
}
