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
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

const (
	// residuePageSize is how many objects one read of the residue scan
	// lists.
	residuePageSize = 100
	// residueSample is how many objects a finding names.
	residueSample = 5
)

// residueTarget is one inspecting task of a Disabled Feature this apiserver
// leads: what the scan checks each object of the task's resources against.
type residueTarget struct {
	feature string
	task    string
	in      tasks.Inspector
	// turningOn says in is of a Enabling task: it finds the stored
	// objects that turning the feature on waits for.
	turningOn bool
}

// residueFinding is what the scan found for one Feature.
type residueFinding struct {
	task    string
	objects []string
	more    bool
}

// message says what was found, e.g. "task wait-for-no-pods finds pods
// ns/a, ns/b".
func (f residueFinding) message(gr string) string {
	s := fmt.Sprintf("stored %s still hold what the feature adds (task %s finds them): %s", gr, f.task, strings.Join(f.objects, ", "))
	if f.more {
		s += ", ..."
	}
	return s
}

// residueScanner is the low-rate background pass that exposes the KEP's
// third state: a Feature that is Disabled while stored objects still use what
// its gate guards (data restored from a backup, written by an older
// apiserver during a rolling update). One pass reads every resource that an
// inspecting Disabling task (ClearFields, WaitForAbsence; opt-in ones only
// if opted in) of a Disabled Feature this apiserver leads looks at, once per
// resource however many Features look at it, a page at a time; an object
// one of them holds is a finding for its Feature, which the next sync turns
// into Disabling (see transitions.reenterOnResidue). Read-only; nothing is
// written while nothing is found.
type residueScanner struct {
	// features lists the Features of kube-system.
	features featureslisters.FeatureLister
	// leads says whether this apiserver knows f's gate and leads f.
	leads func(f *featuresv1alpha1.Feature) bool
	// tasksFor returns the tasks of a gate's transition (Enabling or
	// Disabling).
	tasksFor func(gate string, transition featuresv1alpha1.FeatureState) []tasks.Task
	// stores opens the resources' registry stores.
	stores migrator.Stores
	// enqueue adds a Feature's key to the queue.
	enqueue func(key string)
	// pageInterval is the pause between two reads
	// (Config.ResidueScanPageInterval): at most residuePageSize objects
	// every interval, whatever the number of Features.
	pageInterval time.Duration

	mu sync.Mutex
	// found maps a Feature's name to what was found for it.
	found map[string]residueFound
	// uses maps the name of an Enabled Feature that blocks a version change
	// (TurnsOffAtTarget) to the stored objects that use it, as the last
	// pass counted them (usecount.go).
	uses map[string]string
}

// residueFound is a finding and the resource it was found in.
type residueFound struct {
	finding residueFinding
	gr      string
}

// targets returns, by resource, the inspecting tasks of the Disabled Features
// this apiserver leads (opt-in tasks only once the Feature opted in).
func (s *residueScanner) targets() map[schema.GroupResource][]residueTarget {
	settledOff := func(f *featuresv1alpha1.Feature) bool {
		return f.Status.State == featuresv1alpha1.FeatureStateDisabled && f.Spec.DesiredState == featuresv1alpha1.FeatureDesiredStateDisabled && len(f.Status.Tasks) == 0
	}
	return s.inspectorsOf(settledOff, featuresv1alpha1.FeatureStateDisabling, true)
}

// inspectorsOf returns, by resource, the inspectors of the tasks of
// transition (Disabling or Enabling) of the Features keep selects among
// those this apiserver knows and leads; optedInOnly leaves out the opt-in
// tasks a Feature has not opted in to.
func (s *residueScanner) inspectorsOf(keep func(*featuresv1alpha1.Feature) bool, transition featuresv1alpha1.FeatureState, optedInOnly bool) map[schema.GroupResource][]residueTarget {
	fs, err := s.features.Features(KubeNamespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	out := map[schema.GroupResource][]residueTarget{}
	for _, f := range fs {
		if !keep(f) {
			continue
		}
		if !s.leads(f) {
			continue
		}
		for _, t := range s.tasksFor(f.Spec.Gate, transition) {
			in, ok := t.(tasks.Inspector)
			if !ok || (optedInOnly && tasks.IsOptIn(t) && !tasks.OptedIn(f, t.Name())) {
				continue
			}
			for _, gr := range in.Resources() {
				out[gr] = append(out[gr], residueTarget{feature: f.Name, task: t.Name(), in: in, turningOn: transition == featuresv1alpha1.FeatureStateEnabling})
			}
		}
	}
	return out
}

// run makes a pass every interval until ctx is done.
func (s *residueScanner) run(ctx context.Context, interval time.Duration) {
	logger := klog.FromContext(ctx).WithName("residue-scan")
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		start := time.Now()
		read, err := s.pass(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Error(err, "Scanning stored objects of Disabled features")
		}
		logger.V(2).Info("Scanned stored objects of Disabled features", "objects", read, "duration", time.Since(start))
		start = time.Now()
		read, err = s.countUses(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Error(err, "Counting stored objects that use features blocking a version change")
		}
		logger.V(2).Info("Counted stored objects that use features blocking a version change", "objects", read, "duration", time.Since(start))
		timer.Reset(interval)
	}
}

// pass reads every resource of the current targets once and returns how
// many objects it read.
func (s *residueScanner) pass(ctx context.Context) (int, error) {
	targets := s.targets()
	read := 0
	err := s.eachServed(targets, func(gr schema.GroupResource, store migrator.Store) error {
		n, err := s.scan(ctx, store, gr, targets[gr])
		read += n
		return err
	})
	return read, err
}

// eachServed calls visit with the store of every resource of targets, in
// the order of their names, and stops at the first error. A resource not
// served here (at this emulated version, say) is skipped: nothing reaches
// its stored objects, as no task reaches them.
func (s *residueScanner) eachServed(targets map[schema.GroupResource][]residueTarget, visit func(gr schema.GroupResource, store migrator.Store) error) error {
	for _, gr := range slices.SortedFunc(maps.Keys(targets), func(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) }) {
		store, err := s.stores.Store(gr)
		if migrator.IsNotServed(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := visit(gr, store); err != nil {
			return err
		}
	}
	return nil
}

// walk reads every object of gr, a page every residuePageInterval, and
// calls visit with each; it returns how many it read.
func (s *residueScanner) walk(ctx context.Context, store migrator.Store, gr schema.GroupResource, visit func(obj runtime.Object)) (int, error) {
	read, cont := 0, ""
	for {
		select {
		case <-ctx.Done():
			return read, ctx.Err()
		case <-time.After(s.pageInterval):
		}
		list, err := store.List(migrator.RequestContext(ctx, migrator.ServedResource(gr, nil), "list", "", ""), &metainternalversion.ListOptions{Limit: residuePageSize, Continue: cont})
		if err != nil {
			return read, fmt.Errorf("listing %s: %w", gr.String(), err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return read, err
		}
		read += len(items)
		for _, obj := range items {
			visit(obj)
		}
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return read, err
		}
		if cont = lm.GetContinue(); cont == "" {
			return read, nil
		}
	}
}

// objectName is "namespace/name", or "name" for a cluster-scoped object.
func objectName(obj runtime.Object) (string, bool) {
	a, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	if a.GetNamespace() != "" {
		return a.GetNamespace() + "/" + a.GetName(), true
	}
	return a.GetName(), true
}

// scan reads every object of gr and records what the targets hold.
func (s *residueScanner) scan(ctx context.Context, store migrator.Store, gr schema.GroupResource, targets []residueTarget) (int, error) {
	findings := map[string]*residueFinding{}
	read, err := s.walk(ctx, store, gr, func(obj runtime.Object) {
		for _, t := range targets {
			f := findings[t.feature]
			if f != nil && f.task != t.task {
				continue
			}
			if !t.in.Holds(obj) {
				continue
			}
			if f == nil {
				f = &residueFinding{task: t.task}
				findings[t.feature] = f
			}
			if len(f.objects) == residueSample {
				f.more = true
				continue
			}
			if name, ok := objectName(obj); ok {
				f.objects = append(f.objects, name)
			}
		}
	})
	if err != nil {
		return read, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for feature, f := range findings {
		if _, ok := s.found[feature]; ok {
			continue
		}
		s.found[feature] = residueFound{*f, gr.String()}
		s.enqueue(KubeNamespace + "/" + feature)
	}
	return read, nil
}

// take returns the finding for a Feature, if any, and a function that
// forgets it (to call once the Feature's change is stored).
func (s *residueScanner) take(feature string) (string, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.found[feature]
	if !ok {
		return "", nil
	}
	return f.finding.message(f.gr), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.found, feature)
	}
}
