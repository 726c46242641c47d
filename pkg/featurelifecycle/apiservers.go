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
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
)

// identityLeaseSelector selects the identity leases of kube-apiservers.
var identityLeaseSelector = labels.SelectorFromSet(labels.Set{leader.IdentityLeaseComponentLabelKey: leader.KubeAPIServer})

// apiServers says which kube-apiservers are live and which vote on desired
// state, from their identity leases and their departures.
type apiServers struct {
	// leases lists the identity leases (kube-system).
	leases     coordinationlisters.LeaseLister
	departures *departures
	// livenessWindow and forgetWindow are Config's.
	livenessWindow, forgetWindow time.Duration
}

// renewedWithin returns the kube-apiservers that renewed their identity
// lease within window of now, sorted.
func (a *apiServers) renewedWithin(now time.Time, window time.Duration) ([]string, error) {
	leases, err := a.leases.Leases(leader.IdentityLeaseNamespace).List(identityLeaseSelector)
	if err != nil {
		return nil, err
	}
	return leader.LiveAPIServers(leases, now, window), nil
}

// live returns the live kube-apiservers: those that renewed their identity
// lease within the liveness window.
func (a *apiServers) live(now time.Time) ([]string, error) {
	return a.renewedWithin(now, a.livenessWindow)
}

// recheckUntilLive returns when an apiserver that found it does not lead a
// Feature must look at it again: while its own identity lease (self) is
// not live in its cache, after half the liveness window (the tick's
// period); else never (the Feature's events and the tick bring it back).
// A lapse of its own lease shorter than a tick (a partition that healed
// quickly) is not a change of the live apiservers the tick sees, but the
// other apiservers may already count it live again and leave the Feature
// to it: without a look of its own, nobody would lead until the next
// event.
func (a *apiServers) recheckUntilLive(self string, now time.Time) time.Duration {
	live, err := a.live(now)
	if err != nil || slices.Contains(live, self) {
		return 0
	}
	return a.livenessWindow / 2
}

// voters returns the kube-apiservers whose configuration counts for desired
// state: those that renewed their identity lease within the forget window,
// and those whose lease was deleted (a graceful shutdown, a restart
// included) within it, as their tombstones say; sorted.
func (a *apiServers) voters(now time.Time) ([]string, error) {
	renewed, err := a.renewedWithin(now, a.forgetWindow)
	if err != nil {
		return nil, err
	}
	departed, err := a.departures.voters(now)
	if err != nil {
		return nil, err
	}
	return sets.List(departed.Insert(renewed...)), nil
}

// rolloutCandidates returns the candidates of a rollout on apiservers: the
// voters, so that an apiserver keeps its place while it restarts; and which
// of them are live.
func (a *apiServers) rolloutCandidates(now time.Time) ([]string, sets.Set[string], error) {
	voters, err := a.voters(now)
	if err != nil {
		return nil, nil, err
	}
	live, err := a.live(now)
	if err != nil {
		return nil, nil, err
	}
	return voters, sets.New(live...), nil
}
