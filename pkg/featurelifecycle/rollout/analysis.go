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

package rollout

import (
	"fmt"
	"slices"
	"strings"
)

// Member is what the analysis knows of one component of the cohort.
type Member struct {
	// Name names the component, as its FeatureReport does.
	Name string
	// Reports: its report states the new value.
	Reports bool
	// NotReady: its node is NotReady (or, for an apiserver, its identity
	// lease expired).
	NotReady bool
	// Restarts is how often it restarted since the step began.
	Restarts int32
}

// Health is what the analysis of a step looks at.
type Health struct {
	// Members are the cohort's components.
	Members []Member
	// APIServers: the components are apiservers, whose readiness is their
	// identity lease's.
	APIServers bool
	// Others is how many components are outside the cohort, and
	// OthersRestarts how often they restarted since the step began: the
	// rate at which components restart anyway (an upgrade rolling through
	// the nodes restarts the cohort too), which the cohort's restarts are
	// judged against.
	Others, OthersRestarts int
	// Requests and Errors count the apiserver's requests, and those that
	// failed with a server error, for the resources the feature touches,
	// since the step began: from the cohort's components, and from the
	// others.
	CohortRequests, CohortErrors, OthersRequests, OthersErrors int64
}

// Thresholds bound what a step may cost before its analysis fails.
type Thresholds struct {
	// MaxNotReady is how many of the cohort's components may be NotReady.
	MaxNotReady int
	// MaxRestarts is how many restarts the cohort may have, in all,
	// beyond as many as the components outside it had in proportion.
	MaxRestarts int32
	// MaxErrorRateIncrease is how much higher the cohort's error rate may
	// be than the others', as a fraction (0.01: one percentage point).
	MaxErrorRateIncrease float64
	// MinRequests is how many requests of the cohort the error rate needs
	// before it counts.
	MinRequests int64
}

// DefaultThresholds are the thresholds of a rollout that sets none: no
// NotReady node, no extra restart, an error rate at most one percentage
// point above the others' once the cohort made 100 requests.
func DefaultThresholds() Thresholds {
	return Thresholds{MaxErrorRateIncrease: 0.01, MinRequests: 100}
}

// Result is the outcome of an analysis.
type Result int

const (
	// Wait: the cohort has not taken the new value yet.
	Wait Result = iota
	// Pass: the cohort took the new value and is healthy.
	Pass
	// Fail: the cohort is not healthy.
	Fail
)

// Reasons of a Verdict (CamelCase, for conditions and events).
const (
	ReasonHealthy      = "Healthy"
	ReasonNotReported  = "NewValueNotReported"
	ReasonNodeNotReady = "NodeNotReady"
	// ReasonAPIServerNotLive: an apiserver of the cohort stopped renewing
	// its identity lease.
	ReasonAPIServerNotLive = "APIServerNotLive"
	ReasonRestarted        = "Restarted"
	ReasonErrorRateRose    = "ErrorRateRose"
)

// Verdict is the outcome of an analysis, with a reason and a message that
// names the components it is about.
type Verdict struct {
	Result  Result
	Reason  string
	Message string
}

// Analyze judges the health of a step's cohort. A failure wins over a
// wait: a node that went NotReady fails the step even while another
// member has not reported the new value yet.
func Analyze(h Health, t Thresholds) Verdict {
	var notReady, unreported, restarted []string
	var restarts int32
	for _, m := range h.Members {
		if m.NotReady {
			notReady = append(notReady, m.Name)
		}
		if !m.Reports {
			unreported = append(unreported, m.Name)
		}
		if m.Restarts > 0 {
			restarts += m.Restarts
			restarted = append(restarted, fmt.Sprintf("%s (%d)", m.Name, m.Restarts))
		}
	}
	if len(notReady) > t.MaxNotReady {
		if h.APIServers {
			return Verdict{Fail, ReasonAPIServerNotLive, fmt.Sprintf("%d of the cohort's %d apiservers stopped renewing their identity lease (at most %d): %s",
				len(notReady), len(h.Members), t.MaxNotReady, names(notReady))}
		}
		return Verdict{Fail, ReasonNodeNotReady, fmt.Sprintf("%d of the cohort's %d components NotReady (at most %d): %s",
			len(notReady), len(h.Members), t.MaxNotReady, names(notReady))}
	}
	// As many restarts as the others had, in proportion, are the usual:
	// a cohort that restarts more than that fails, so that a canary errs
	// on the side of stopping (during a rolling node upgrade, set
	// maxRestarts).
	usual := 0.0
	if h.Others > 0 {
		usual = float64(len(h.Members)) * float64(h.OthersRestarts) / float64(h.Others)
	}
	if float64(restarts)-usual > float64(t.MaxRestarts) {
		return Verdict{Fail, ReasonRestarted, fmt.Sprintf("the cohort's components restarted %d times during the step, %.1f as usual (the %d outside it: %d times; at most %d more): %s",
			restarts, usual, h.Others, h.OthersRestarts, t.MaxRestarts, names(restarted))}
	}
	if h.CohortRequests >= max(t.MinRequests, 1) {
		cohort := float64(h.CohortErrors) / float64(h.CohortRequests)
		others := 0.0
		if h.OthersRequests > 0 {
			others = float64(h.OthersErrors) / float64(h.OthersRequests)
		}
		if cohort-others > t.MaxErrorRateIncrease {
			return Verdict{Fail, ReasonErrorRateRose, fmt.Sprintf("the cohort's API error rate was %.2f%% (%d of %d requests) against %.2f%% outside it (at most %.2f points more)",
				100*cohort, h.CohortErrors, h.CohortRequests, 100*others, 100*t.MaxErrorRateIncrease)}
		}
	}
	if len(unreported) > 0 {
		return Verdict{Wait, ReasonNotReported, fmt.Sprintf("%d of the cohort's %d components do not report the new value yet: %s",
			len(unreported), len(h.Members), names(unreported))}
	}
	return Verdict{Pass, ReasonHealthy, fmt.Sprintf("all %d components of the cohort report the new value and are healthy", len(h.Members))}
}

// names lists at most five names, sorted, and how many more.
func names(list []string) string {
	slices.Sort(list)
	if len(list) <= 5 {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:5], ", "), len(list)-5)
}
