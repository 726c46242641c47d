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

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// identityLeaseSelector selects kube-apiserver identity leases.
var identityLeaseSelector = labels.SelectorFromSet(labels.Set{IdentityLeaseComponentLabelKey: KubeAPIServer})

// Elector decides which kube-apiserver leads each Feature, from the identity
// leases in an informer cache. It makes no API calls and is safe for
// concurrent use.
type Elector struct {
	self   string
	leases coordinationlisters.LeaseLister
	window time.Duration
	now    func() time.Time
}

// NewElector returns an Elector for the kube-apiserver whose identity lease
// is named self (its APIServerID). leases must list the identity leases (an
// informer over kube-system is enough); window is the liveness window
// (DefaultLivenessWindow when not positive); now is the clock (time.Now when
// nil).
func NewElector(self string, leases coordinationlisters.LeaseLister, window time.Duration, now func() time.Time) *Elector {
	if window <= 0 {
		window = DefaultLivenessWindow
	}
	if now == nil {
		now = time.Now
	}
	return &Elector{self: self, leases: leases, window: window, now: now}
}

// Key returns the string a Feature is hashed under: "namespace/name", or the
// name alone for an object without a namespace. Like Score it must never
// change.
func Key(f *featuresv1alpha1.Feature) string {
	if f.Namespace == "" {
		return f.Name
	}
	return f.Namespace + "/" + f.Name
}

// live returns the live kube-apiservers, or false when the leases cannot be
// listed.
func (e *Elector) live() ([]string, bool) {
	leases, err := e.leases.Leases(IdentityLeaseNamespace).List(identityLeaseSelector)
	if err != nil {
		klog.V(2).InfoS("Cannot list kube-apiserver identity leases; no feature has a leader", "err", err)
		return nil, false
	}
	return LiveAPIServers(leases, e.now(), e.window), true
}

// Candidates returns the live apiservers that know the feature: those
// among the live ones that report it under component kube-apiserver in
// uses; when no live apiserver reports it (uses were just reset), every
// live apiserver is a candidate. The result is sorted.
func (e *Elector) Candidates(f *featuresv1alpha1.Feature) []string {
	live, ok := e.live()
	if !ok {
		return nil
	}
	return candidates(f, live)
}

// candidates filters live (sorted) down to the kube-apiservers that report f,
// or returns live when none does.
func candidates(f *featuresv1alpha1.Feature, live []string) []string {
	if f == nil {
		return nil
	}
	reporters := sets.New[string]()
	for _, u := range f.Status.Uses {
		if u.Component == featuresv1alpha1.APIServerComponent {
			reporters.Insert(u.Reporters...)
		}
	}
	var known []string
	for _, name := range live {
		if reporters.Has(name) {
			known = append(known, name)
		}
	}
	if len(known) == 0 {
		return live
	}
	return known
}

// Leads reports whether this apiserver leads the Feature. An apiserver that
// does not know the gate (knows == false) never leads, nor does one whose
// own identity lease is not live (not yet renewed or not yet seen).
func (e *Elector) Leads(f *featuresv1alpha1.Feature, knows bool) bool {
	if !knows || f == nil {
		return false
	}
	leader, ok := e.Leader(f)
	return ok && leader == e.self
}

// Leader returns the leader of the Feature: the candidate with the highest
// Score for Key(f). It returns false when there is no live candidate or the
// leases cannot be listed.
func (e *Elector) Leader(f *featuresv1alpha1.Feature) (string, bool) {
	if f == nil {
		return "", false
	}
	return Leader(Key(f), e.Candidates(f))
}
