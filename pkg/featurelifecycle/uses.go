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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
)

// withLiveUses returns a copy of f whose status.uses are what the live
// FeatureReports of its namespace make now, and when they may next change
// without an event (a listed reporter's liveness running out; zero: not
// before an event).
func (c *Controller) withLiveUses(f *featuresv1alpha1.Feature, now time.Time) (*featuresv1alpha1.Feature, time.Time, error) {
	voters, err := c.voters(now)
	if err != nil {
		return nil, time.Time{}, err
	}
	uses, next := reports.Aggregate(c.reports, f.Namespace, f.Spec.Gate, f.Status.Uses, c.liveness(sets.New(voters...), now), now)
	view := f.DeepCopy()
	view.Status.Uses = uses
	return view, next, nil
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
func (c *Controller) liveness(voters sets.Set[string], now time.Time) reports.Liveness {
	return func(r *reports.Report) time.Time {
		if r.Component == featuresv1alpha1.APIServerComponent {
			if voters.Has(r.Identity) {
				// Re-evaluated on every lease and tombstone event and
				// every half liveness window.
				return reports.Unbounded
			}
			return time.Time{}
		}
		if l := r.HolderLease; l != nil {
			if until, ok := c.leaseExpiry(l); ok {
				return until
			}
		}
		if r.RenewTime.IsZero() {
			return time.Time{}
		}
		if r.LeaseDuration > 0 {
			return r.RenewTime.Add(r.LeaseDuration)
		}
		return r.RenewTime.Add(c.opts.WaitForUsesPeriod)
	}
}

// leaseExpiry returns when a lease this apiserver watches expires: its
// renewal plus its duration. It returns false for a lease it does not
// watch or that does not exist.
func (c *Controller) leaseExpiry(l *featuresv1alpha1.FeatureReportLease) (time.Time, bool) {
	var lister coordinationlisters.LeaseLister
	switch l.Namespace {
	case corev1.NamespaceNodeLease:
		lister = c.nodeLeases
	case leader.IdentityLeaseNamespace:
		lister = c.leases
	default:
		return time.Time{}, false
	}
	lease, err := lister.Leases(l.Namespace).Get(l.Name)
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
func (c *Controller) holdSampleChange(stored *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, now time.Time) time.Duration {
	if !reports.SamePairs(status.Uses, stored.Status.Uses) {
		return 0
	}
	c.mu.Lock()
	written, ok := c.usesWritten[leader.Key(stored)]
	c.mu.Unlock()
	if wait := written.Add(sampleRefresh).Sub(now); ok && wait > 0 {
		status.Uses = stored.Status.Uses
		return wait
	}
	return 0
}

// deleteExpiredReports deletes the FeatureReports this apiserver leads
// that stopped being live more than ReportRetention ago (a node that was
// removed, a component that moved to another host, a kube-apiserver that no
// longer votes and last wrote its report that long ago); a reporter that
// comes back writes its report again.
func (c *Controller) deleteExpiredReports(ctx context.Context) {
	now := c.clock.Now()
	live, err := c.apiservers(now, c.opts.LivenessWindow)
	if err != nil || len(live) == 0 {
		return
	}
	voters, err := c.voters(now)
	if err != nil {
		return
	}
	liveness := c.liveness(sets.New(voters...), now)
	for _, r := range c.reports.Reports() {
		until := liveness(r)
		if r.Component == featuresv1alpha1.APIServerComponent && until.IsZero() {
			// A kube-apiserver that no longer votes writes its report
			// only when it starts: count from then.
			until = r.RenewTime
		}
		if until.IsZero() || now.Sub(until) < c.opts.ReportRetention {
			continue
		}
		if lead, ok := leader.Leader(r.Key(), live); !ok || lead != c.self {
			continue
		}
		stored, err := c.informers.Features().V1alpha1().FeatureReports().Lister().FeatureReports(r.Namespace).Get(r.Name)
		if err != nil {
			continue
		}
		err = c.client.FeaturesV1alpha1().FeatureReports(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{
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
