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

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	coordinationclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
)

// Departures of kube-apiservers are kept in the API, so that every leader, a
// restarted or a new one included, makes the same forget-window decision.
//
// kube-apiserver deletes its identity lease when it shuts down gracefully (a
// restart included), and its last renewal goes with it. A controller that
// sees an identity lease deleted creates a tombstone: a Lease in kube-system
// named DepartedLeasePrefix+identity, labelled DepartedLeaseLabel, whose
// holderIdentity is the departed apiserver and whose renewTime is when it
// left (the first controller to create it wins; the others find it exists).
// Its configured value counts for desired state until renewTime plus the
// forget window. A tombstone is deleted by whichever controller sees it
// expired, or its apiserver back (its identity lease renewed after the
// departure), so that a later departure gets a tombstone of its own. The identity leases' own label is not used, so upstream's lease
// garbage collector and the liveness of apiservers never see tombstones.
const (
	// DepartedLeaseLabel labels the tombstones of departed kube-apiservers.
	DepartedLeaseLabel = "features.k8s.io/departed-apiserver"
	// DepartedLeasePrefix starts the name of a tombstone; the departed
	// apiserver's identity follows.
	DepartedLeasePrefix = "feature-lifecycle-departed-"
)

var departedSelector = labels.SelectorFromSet(labels.Set{DepartedLeaseLabel: "true"})

// departures records the departures of kube-apiservers as tombstones,
// reads them back and forgets them once they expire.
type departures struct {
	// leases lists the leases of kube-system: the identity leases and the
	// tombstones.
	leases coordinationlisters.LeaseLister
	client coordinationclient.LeasesGetter
	clock  clock.PassiveClock
	// forgetWindow is Config.ForgetWindow.
	forgetWindow time.Duration
}

// isTombstone says whether obj is the tombstone of a departed apiserver.
func isTombstone(obj any) bool {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	lease, ok := obj.(*coordinationv1.Lease)
	return ok && lease.Namespace == leader.IdentityLeaseNamespace && departedSelector.Matches(labels.Set(lease.Labels))
}

// isIdentityLease says whether obj is the identity lease of a
// kube-apiserver.
func isIdentityLease(obj any) bool {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	lease, ok := obj.(*coordinationv1.Lease)
	return ok && lease.Namespace == leader.IdentityLeaseNamespace && identityLeaseSelector.Matches(labels.Set(lease.Labels))
}

// leaseDeleted records the departure of the apiserver whose identity lease
// was deleted.
func (d *departures) leaseDeleted(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	lease, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.record(ctx, lease.Name); err != nil {
		klog.ErrorS(err, "Recording the departure of a kube-apiserver failed; the other apiservers record it too", "apiserver", lease.Name)
	}
}

// record creates the tombstone of apiserver, departed now, unless one
// exists.
func (d *departures) record(ctx context.Context, apiserver string) error {
	now := metav1.NewMicroTime(d.clock.Now())
	tombstone := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:      DepartedLeasePrefix + apiserver,
			Namespace: leader.IdentityLeaseNamespace,
			Labels:    map[string]string{DepartedLeaseLabel: "true"},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(apiserver),
			LeaseDurationSeconds: ptr.To(int32(d.forgetWindow / time.Second)),
			AcquireTime:          &now,
			RenewTime:            &now,
		},
	}
	_, err := d.client.Leases(leader.IdentityLeaseNamespace).Create(ctx, tombstone, metav1.CreateOptions{FieldManager: "kube-apiserver"})
	if apierrors.IsAlreadyExists(err) {
		return nil // another controller saw the same departure
	}
	return err
}

// voters returns the apiservers that departed within the forget window,
// by their tombstones.
func (d *departures) voters(now time.Time) (sets.Set[string], error) {
	tombstones, err := d.leases.Leases(leader.IdentityLeaseNamespace).List(departedSelector)
	if err != nil {
		return nil, err
	}
	voters := sets.New[string]()
	for _, t := range tombstones {
		if t.Spec.HolderIdentity == nil || t.Spec.RenewTime == nil || now.Sub(t.Spec.RenewTime.Time) > d.forgetWindow {
			continue
		}
		voters.Insert(*t.Spec.HolderIdentity)
	}
	return voters, nil
}

// forget deletes the tombstones older than the forget window and those of
// apiservers that came back, each only as it was read.
func (d *departures) forget(ctx context.Context) {
	tombstones, err := d.leases.Leases(leader.IdentityLeaseNamespace).List(departedSelector)
	if err != nil {
		return
	}
	now := d.clock.Now()
	for _, t := range tombstones {
		if t.Spec.RenewTime != nil && now.Sub(t.Spec.RenewTime.Time) <= d.forgetWindow && !d.cameBack(t) {
			continue
		}
		err := d.client.Leases(t.Namespace).Delete(ctx, t.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &t.UID, ResourceVersion: &t.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			klog.FromContext(ctx).V(2).Info("Could not delete an expired departure", "lease", t.Name, "err", err)
		}
	}
}

// cameBack says whether the apiserver of a tombstone renewed its identity
// lease after it departed.
func (d *departures) cameBack(t *coordinationv1.Lease) bool {
	if t.Spec.HolderIdentity == nil || t.Spec.RenewTime == nil {
		return false
	}
	lease, err := d.leases.Leases(leader.IdentityLeaseNamespace).Get(*t.Spec.HolderIdentity)
	return err == nil && lease.Spec.RenewTime != nil && lease.Spec.RenewTime.After(t.Spec.RenewTime.Time)
}
