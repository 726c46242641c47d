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
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	coreinformers "k8s.io/client-go/informers/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/featuregate"
	"k8s.io/features/cohort"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/noderequests"
	"k8s.io/kubernetes/pkg/featurelifecycle/reports"
	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
	"k8s.io/kubernetes/pkg/featurelifecycle/transition"
)

// Defaults of spec.rollout.analysis.
const (
	// DefaultRolloutInterval is how often a step is analysed besides every
	// change of the cohort's nodes and reports.
	DefaultRolloutInterval = 30 * time.Second
	// DefaultRolloutReportTimeout is how long a step's cohort has to report
	// the new value.
	DefaultRolloutReportTimeout = 10 * time.Minute
)

// kubelet is the component a rollout on nodes picks its cohort from.
const kubelet = "kubelet"

// rollouts runs the canary rollouts of Dynamic Features (spec.rollout), as
// part of each Feature's leader's pass: it picks the cohort among the
// nodes, or among the apiservers for a gate that canaries on apiservers,
// analyses the health of each step from the nodes, the identity leases and
// the components' reports, and publishes status.rollout, whose cohort the
// kubelets or the apiservers follow (k8s.io/features/follow). The state
// machine is rollout.Next.
type rollouts struct {
	nodes    corelisters.NodeLister
	informer cache.SharedIndexInformer
	reports  *reports.Index
	// requests counts the kubelets' requests to this apiserver; nil when
	// nothing counts them.
	requests *noderequests.Counter
	// canaries says where each gate canaries (nil: rollout.Gates).
	canaries map[featuregate.Feature]rollout.Scope
	// apiservers returns the apiservers a rollout on apiservers picks its
	// cohort from, and which of them are live; nil: none.
	apiservers func(now time.Time) (candidates []string, live sets.Set[string], err error)

	mu sync.Mutex
	// windows holds, per Feature this apiserver leads a step of, what the
	// requests counter had counted of each node when the step began here.
	windows map[string]*requestWindow
}

// requestWindow is the start of a step's window of request counts.
type requestWindow struct {
	// step is the step's start (status.rollout.stepStartTime).
	step time.Time
	// base holds the nodes' counts at the window's start.
	base map[string]noderequests.Counts
	// disarm stops the counter counting for this window.
	disarm func()
}

// newRollouts returns the rollouts job, which reads the nodes through
// nodes and calls enqueueRolling when a node that a rollout looks at
// changes. requests, if not nil, counts the kubelets' requests for the
// analysis of the error rates; canaries (nil: rollout.Gates) says where each
// gate canaries; apiservers lists the candidates of a rollout on
// apiservers.
func newRollouts(nodes coreinformers.NodeInformer, index *reports.Index, requests *noderequests.Counter,
	canaries map[featuregate.Feature]rollout.Scope, apiservers func(time.Time) ([]string, sets.Set[string], error), enqueueRolling func()) (*rollouts, error) {
	informer := nodes.Informer()
	r := &rollouts{nodes: nodes.Lister(), informer: informer, reports: index,
		requests: requests, canaries: canaries, apiservers: apiservers, windows: map[string]*requestWindow{}}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { enqueueRolling() },
		UpdateFunc: func(old, obj any) {
			o, ok1 := old.(*corev1.Node)
			n, ok2 := obj.(*corev1.Node)
			if !ok1 || !ok2 || ready(o) != ready(n) || !labels.Equals(o.Labels, n.Labels) {
				enqueueRolling()
			}
		},
		DeleteFunc: func(any) { enqueueRolling() },
	})
	return r, err
}

// rolling says whether f has a rollout that is not over.
func rolling(f *featuresv1alpha1.Feature) bool {
	return f.Spec.Rollout != nil && (f.Status.Rollout == nil || f.Status.Rollout.To != f.Spec.DesiredState || !f.Status.Rollout.Phase.Final())
}

// ready says whether a node's Ready condition is True.
func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// candidate is a component a rollout can pick: a node's kubelet or an
// apiserver.
type candidate struct {
	// name is the component's identity: the node's name, or the
	// apiserver's identity lease.
	name string
	// labels are the node's labels; nil for an apiserver.
	labels labels.Labels
	// ready: the node is Ready, or the apiserver renewed its identity
	// lease within the liveness window.
	ready bool
	// created is when the node was created; zero for an apiserver.
	created time.Time
}

// scope returns the components a rollout of gate picks its cohort from:
// the apiservers where the registry says the gate canaries on them, else
// the nodes.
func (r *rollouts) scope(gate string) featuresv1alpha1.FeatureRolloutScope {
	canaries := r.canaries
	if canaries == nil {
		canaries = rollout.Gates
	}
	if canaries[featuregate.Feature(gate)] == rollout.APIServers {
		return featuresv1alpha1.FeatureRolloutScopeAPIServers
	}
	return featuresv1alpha1.FeatureRolloutScopeNodes
}

// candidates returns the components of scope, sorted by name: the nodes,
// or the apiservers that vote on the desired state (live, or gone within
// the forget window, so that an apiserver restarting keeps its place).
func (r *rollouts) candidates(scope featuresv1alpha1.FeatureRolloutScope, now time.Time) ([]candidate, error) {
	var out []candidate
	if scope == featuresv1alpha1.FeatureRolloutScopeAPIServers {
		if r.apiservers == nil {
			return nil, nil
		}
		names, live, err := r.apiservers(now)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			out = append(out, candidate{name: name, ready: live.Has(name)})
		}
	} else {
		nodes, err := r.nodes.List(labels.Everything())
		if err != nil {
			return nil, err
		}
		for _, n := range nodes {
			out = append(out, candidate{name: n.Name, labels: labels.Set(n.Labels), ready: ready(n), created: n.CreationTimestamp.Time})
		}
	}
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Compare(a.name, b.name) })
	return out, nil
}

// rolloutEvent is an event to record about a rollout once its status is
// written.
type rolloutEvent struct {
	eventType, reason, message string
}

// sync sets status.rollout of f, a Feature this apiserver leads, and its
// Progressing condition, and returns when to look again (0: on a change
// only) and the event to record, if the rollout moved.
func (r *rollouts) sync(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, now time.Time) (time.Duration, *rolloutEvent, error) {
	if f.Spec.Rollout == nil || f.Spec.Management != featuresv1alpha1.FeatureManagementDynamic || f.Spec.DesiredState == "" {
		// No rollout (any more): the components follow spec.desiredState.
		r.forget(leader.Key(f))
		if status.Rollout != nil {
			observeRollout(f, nil)
		}
		status.Rollout = nil
		if meta.FindStatusCondition(status.Conditions, featuresv1alpha1.FeatureConditionProgressing) != nil {
			meta.RemoveStatusCondition(&status.Conditions, featuresv1alpha1.FeatureConditionProgressing)
		}
		return 0, nil, nil
	}
	to := f.Spec.DesiredState
	previous := status.Rollout
	scope := r.scope(f.Spec.Gate)
	if previous != nil && previous.To == to && previous.Scope != "" {
		// A rollout keeps the scope it began with, whatever the registry
		// of a newer apiserver that leads it now says.
		scope = previous.Scope
	}
	spec := rolloutSpec(f.Spec.Rollout, scope)
	var st rollout.Status
	var from featuresv1alpha1.FeatureDesiredState
	seed := string(f.UID)
	switch {
	case previous == nil || previous.To != to:
		// A new desired state: a new rollout, from the value the
		// components had.
		from = rolloutFrom(previous, status.Uses, to)
		st = rollout.NotStarted()
		if from == to {
			st = rollout.Status{Phase: rollout.Complete, Step: len(spec.Steps) - 1, StepStarted: now, Cohort: cohort.Cohort{All: true},
				Reason: rollout.ReasonComplete, Message: fmt.Sprintf("the components already have %s: nothing to roll out", to)}
			if previous != nil && !previous.Phase.Final() {
				st.Message = fmt.Sprintf("spec.desiredState went back to %s before the rollout completed: every component takes it", to)
			}
		}
	default:
		from, seed = previous.From, previous.Cohort.Seed
		c, err := cohort.FromAPI(previous.Cohort)
		if err != nil {
			return 0, nil, err
		}
		st = rollout.Status{Phase: rollout.Phase(previous.Phase), Step: int(previous.Step) - 1, Cohort: c,
			Reason: previous.Reason, Message: previous.Message}
		if previous.StepStartTime != nil {
			st.StepStarted = previous.StepStartTime.Time
		}
	}

	cands, err := r.candidates(scope, now)
	if err != nil {
		return 0, nil, err
	}
	ranks := make([]uint64, len(cands))
	labelSets := make([]labels.Labels, len(cands))
	for i, c := range cands {
		ranks[i] = cohort.Rank(seed, c.name)
		labelSets[i] = c.labels
	}
	verdict := rollout.Verdict{}
	if st.Step >= 0 && st.Phase == rollout.Progressing {
		verdict = rollout.Analyze(r.health(leader.Key(f), f.Namespace, f.Spec.Gate, scope, to, st, cands, ranks, labelSets, now), spec.Thresholds)
	}
	next, requeue := rollout.Next(spec, st, ranks, verdict, now)
	if next.Phase != rollout.Progressing {
		// Paused, over or not started: no step to count requests for.
		r.forget(leader.Key(f))
	}

	out := &featuresv1alpha1.FeatureRolloutStatus{
		Phase: featuresv1alpha1.FeatureRolloutPhase(next.Phase), Scope: scope,
		From: from, To: to, Step: int32(next.Step + 1),
		Cohort: cohort.ToAPI(seed, next.Cohort, stepSelectors(f.Spec.Rollout, scope, next.Step)),
		Reason: next.Reason, Message: truncate(next.Message, 1024),
	}
	if !next.StepStarted.IsZero() {
		t := metav1.NewTime(next.StepStarted)
		out.StepStartTime = &t
	}
	moved := previous == nil || previous.To != to || previous.Phase != out.Phase || previous.Step != out.Step || previous.Reason != out.Reason
	if moved {
		out.Candidates = int32(len(cands))
		out.Members = int32(len(next.Cohort.Members(ranks, labelSets)))
	} else {
		out.Candidates, out.Members = previous.Candidates, previous.Members
		if previous.StepStartTime != nil && out.StepStartTime != nil && previous.StepStartTime.Equal(out.StepStartTime) {
			out.StepStartTime = previous.StepStartTime
		}
	}
	status.Rollout = out
	observeRollout(f, out)
	progressing := out.Phase == featuresv1alpha1.FeatureRolloutProgressing || out.Phase == featuresv1alpha1.FeatureRolloutComplete
	transition.SetCondition(&status.Conditions, featuresv1alpha1.FeatureConditionProgressing, progressing, f.Generation,
		out.Reason, out.Message, metav1.NewTime(now))
	if !moved {
		return requeue, nil, nil
	}
	ev := &rolloutEvent{eventType: corev1.EventTypeNormal, reason: "Rollout" + out.Reason, message: out.Message}
	if out.Phase == featuresv1alpha1.FeatureRolloutRolledBack || out.Phase == featuresv1alpha1.FeatureRolloutFailed {
		ev.eventType = corev1.EventTypeWarning
		rolloutsStoppedTotal.WithLabelValues(metricFeature(f), out.Reason).Inc()
	}
	return requeue, ev, nil
}

// health is what the analysis of a step looks at: for each component of
// the cohort, whether it reports the new value, whether it is Ready (its
// node, or its identity lease for an apiserver) and whether it restarted
// since the step began; how often the components outside the cohort
// restarted meanwhile; and, on nodes, the requests of the cohort's
// kubelets and of the others since the step began, as far as this
// apiserver counted them.
func (r *rollouts) health(key, namespace, gate string, scope featuresv1alpha1.FeatureRolloutScope, to featuresv1alpha1.FeatureDesiredState, st rollout.Status, cands []candidate, ranks []uint64, labelSets []labels.Labels, now time.Time) rollout.Health {
	component := kubelet
	if scope == featuresv1alpha1.FeatureRolloutScopeAPIServers {
		component = featuresv1alpha1.APIServerComponent
	}
	reporting := map[string]bool{}
	r.reports.Each(namespace, gate, reports.Pair{Component: component, Enabled: to == featuresv1alpha1.FeatureDesiredStateEnabled}, func(rep *reports.Report) bool {
		reporting[rep.Identity] = true
		return true
	})
	var base map[string]noderequests.Counts
	if component == kubelet {
		// Only the kubelets' requests are counted.
		base = r.window(key, st.StepStarted, cands)
	}
	h := rollout.Health{APIServers: component != kubelet}
	members := st.Cohort.Members(ranks, labelSets)
	in := make([]bool, len(cands))
	for _, i := range members {
		in[i] = true
	}
	for i, c := range cands {
		restarted := r.restarted(namespace, component, c, st.StepStarted)
		var counts noderequests.Counts
		if base != nil {
			counts = r.requests.Of(c.name).Sub(base[c.name])
		}
		if !in[i] {
			h.Others++
			if restarted {
				h.OthersRestarts++
			}
			h.OthersRequests += counts.Requests
			h.OthersErrors += counts.Errors
			continue
		}
		m := rollout.Member{Name: c.name, Reports: reporting[c.name], NotReady: !c.ready}
		if restarted {
			m.Restarts = 1
		}
		h.Members = append(h.Members, m)
		h.CohortRequests += counts.Requests
		h.CohortErrors += counts.Errors
	}
	return h
}

// restarted says whether component c restarted since the step that began
// at step: its report states a start after the step's, and it was there
// before the step (its node was created, and its report written, before
// it), so that a new node's kubelet or a new apiserver starting is no
// restart.
func (r *rollouts) restarted(namespace, component string, c candidate, step time.Time) bool {
	if step.IsZero() || (!c.created.IsZero() && !c.created.Before(step)) {
		return false
	}
	rep := r.reports.Get(namespace + "/" + featuresv1alpha1.FeatureReportName(component, c.name))
	return rep != nil && rep.StartTime.After(step) && rep.Created.Before(step)
}

// window returns the nodes' request counts when this apiserver began to
// count the step that began at step of the Feature with key, starting (and
// arming the counter) when it has not, and nil when nothing counts
// requests. The window of a step starts when its leader first analyses it:
// a new leader counts from when it took over.
func (r *rollouts) window(key string, step time.Time, nodes []candidate) map[string]noderequests.Counts {
	if r.requests == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.windows[key]
	if w != nil && w.step.Equal(step) {
		return w.base
	}
	if w == nil {
		w = &requestWindow{disarm: r.requests.Arm()}
		r.windows[key] = w
	}
	w.step = step
	w.base = make(map[string]noderequests.Counts, len(nodes))
	for _, n := range nodes {
		w.base[n.name] = r.requests.Of(n.name)
	}
	return w.base
}

// forget ends the request window of the Feature with key, if any: it has
// no step in progress, or this apiserver no longer leads it.
func (r *rollouts) forget(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w := r.windows[key]; w != nil {
		w.disarm()
		delete(r.windows, key)
	}
}

// drop forgets the Feature with key (namespace/name) altogether: it is
// gone, or this apiserver no longer leads it. Its request window ends and
// its rollout gauges go, so that only the leader exports them.
func (r *rollouts) drop(key string) {
	r.forget(key)
	if namespace, name, err := cache.SplitMetaNamespaceKey(key); err == nil && namespace == KubeNamespace {
		forgetRollout(name)
	}
}

// rolloutSpec returns the state machine's spec of an API rollout in scope,
// with its defaults. Every gate that can canary can be undone (rollout.Gates
// declares only gates whose components may disagree), so a failed step
// rolls the cohort back. A label selector adds nobody on apiservers, which
// have no labels (admission refuses one there).
func rolloutSpec(r *featuresv1alpha1.FeatureRollout, scope featuresv1alpha1.FeatureRolloutScope) rollout.Spec {
	spec := rollout.Spec{Paused: r.Paused, Abort: r.Abort, Undoable: true,
		Interval: DefaultRolloutInterval, ReportTimeout: DefaultRolloutReportTimeout}
	spec.Thresholds = rollout.DefaultThresholds()
	if a := r.Analysis; a != nil {
		spec.Thresholds.MaxNotReady = int(a.MaxNotReady)
		spec.Thresholds.MaxRestarts = a.MaxRestarts
		if a.MaxErrorRateIncreasePercent != nil {
			spec.Thresholds.MaxErrorRateIncrease = float64(*a.MaxErrorRateIncreasePercent) / 100
		}
		if a.MinRequests != nil {
			spec.Thresholds.MinRequests = int64(*a.MinRequests)
		}
		if a.IntervalSeconds != nil {
			spec.Interval = time.Duration(*a.IntervalSeconds) * time.Second
		}
		if a.ReportTimeoutSeconds != nil {
			spec.ReportTimeout = time.Duration(*a.ReportTimeoutSeconds) * time.Second
		}
	}
	if len(r.Steps) == 0 {
		spec.Steps = rollout.DefaultSteps()
		return spec
	}
	for _, s := range r.Steps {
		step := rollout.Step{Size: cohort.Size{Count: s.Count, Percent: s.Percent}, Soak: rollout.DefaultSoak}
		if s.Selector != nil && scope == featuresv1alpha1.FeatureRolloutScopeAPIServers {
			step.Size.Selector = labels.Nothing()
		} else if s.Selector != nil {
			// Validated: a selector that does not convert matches nothing.
			if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil {
				step.Size.Selector = sel
			} else {
				step.Size.Selector = labels.Nothing()
			}
		}
		if s.SoakSeconds != nil {
			step.Soak = time.Duration(*s.SoakSeconds) * time.Second
		}
		spec.Steps = append(spec.Steps, step)
	}
	return spec
}

// stepSelectors returns the label selectors of the steps up to step, which
// the cohort holds (rollout.Widen adds a selector step's selector); none on
// apiservers.
func stepSelectors(r *featuresv1alpha1.FeatureRollout, scope featuresv1alpha1.FeatureRolloutScope, step int) []metav1.LabelSelector {
	var out []metav1.LabelSelector
	if scope == featuresv1alpha1.FeatureRolloutScopeAPIServers {
		return nil
	}
	for i := 0; i <= step && i < len(r.Steps); i++ {
		if s := r.Steps[i].Selector; s != nil {
			out = append(out, *s.DeepCopy())
		}
	}
	return out
}

// rolloutFrom returns the value components outside the cohort keep during a
// rollout to to: the previous rollout's new value, or, for a first rollout,
// to itself when every use already reports it (nothing to roll out), else
// the other value.
func rolloutFrom(previous *featuresv1alpha1.FeatureRolloutStatus, uses []featuresv1alpha1.FeatureUse, to featuresv1alpha1.FeatureDesiredState) featuresv1alpha1.FeatureDesiredState {
	other := featuresv1alpha1.FeatureDesiredStateEnabled
	if to == featuresv1alpha1.FeatureDesiredStateEnabled {
		other = featuresv1alpha1.FeatureDesiredStateDisabled
	}
	if previous != nil {
		if previous.Phase.Final() && previous.Phase != featuresv1alpha1.FeatureRolloutComplete {
			// Rolled back or aborted: everyone has the old value.
			return previous.From
		}
		if previous.Phase != featuresv1alpha1.FeatureRolloutComplete && previous.From == to {
			return to // back to where an unfinished rollout came from
		}
		return previous.To
	}
	if len(uses) == 0 {
		return other
	}
	for _, u := range uses {
		if u.Enabled != (to == featuresv1alpha1.FeatureDesiredStateEnabled) {
			return other
		}
	}
	return to
}

// truncate bounds a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
