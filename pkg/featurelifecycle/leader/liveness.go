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

package leader

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

const (
	// IdentityLeaseNamespace is the namespace of the kube-apiserver identity
	// leases.
	IdentityLeaseNamespace = metav1.NamespaceSystem

	// IdentityLeaseComponentLabelKey is the label that marks identity leases
	// and names the component owning them. It mirrors
	// IdentityLeaseComponentLabelKey in
	// k8s.io/kubernetes/pkg/controlplane/apiserver, which is too heavy to
	// import here.
	IdentityLeaseComponentLabelKey = "apiserver.kubernetes.io/identity"

	// KubeAPIServer is the value of IdentityLeaseComponentLabelKey on
	// kube-apiserver identity leases, and the component name kube-apiserver
	// reports its uses under. It mirrors KubeAPIServer in
	// k8s.io/kubernetes/pkg/controlplane/apiserver.
	KubeAPIServer = "kube-apiserver"

	// DefaultLivenessWindow is how recently an identity lease must have been
	// renewed for its kube-apiserver to count as live. kube-apiservers renew
	// their identity lease every 10 s (IdentityLeaseRenewIntervalPeriod
	// upstream), so 30 s tolerates two missed renewals. The leases' own
	// duration (an hour) is far too long to mean alive.
	DefaultLivenessWindow = 30 * time.Second
)

// LiveAPIServers returns the sorted, de-duplicated names of the leases that
// are kube-apiserver identity leases (labelled
// apiserver.kubernetes.io/identity=kube-apiserver) and were renewed within
// window of now. A lease's renewal time is spec.renewTime, or
// spec.acquireTime when renewTime is unset; a lease with neither is not
// live. A renewal time in the future (clock skew) counts as live.
func LiveAPIServers(leases []*coordinationv1.Lease, now time.Time, window time.Duration) []string {
	live := sets.New[string]()
	for _, l := range leases {
		if l == nil || l.Labels[IdentityLeaseComponentLabelKey] != KubeAPIServer {
			continue
		}
		t := l.Spec.RenewTime
		if t == nil {
			t = l.Spec.AcquireTime
		}
		if t == nil || now.Sub(t.Time) > window {
			continue
		}
		live.Insert(l.Name)
	}
	return sets.List(live)
}
