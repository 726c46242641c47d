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

package featuregate

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/version"
)

// observed records the features a query observer is told, in order.
type observed struct {
	mu       sync.Mutex
	features []Feature
}

func (o *observed) observe(f Feature) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.features = append(o.features, f)
}

// take returns what was told since the last take.
func (o *observed) take() []Feature {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.features
	o.features = nil
	return out
}

func newObservedGate(t testing.TB) *featureGate {
	t.Helper()
	g := NewVersionedFeatureGate(version.MustParse("1.36"))
	err := g.AddVersioned(map[Feature]VersionedSpecs{
		"Alpha":      {{Version: version.MustParse("1.36"), Default: false, PreRelease: Alpha}},
		"Beta":       {{Version: version.MustParse("1.35"), Default: true, PreRelease: Beta}},
		"Graduating": {{Version: version.MustParse("1.34"), Default: false, PreRelease: Alpha}, {Version: version.MustParse("1.35"), Default: true, PreRelease: Beta}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestObserveQueriesFirstQueries(t *testing.T) {
	g := newObservedGate(t)
	var o observed
	g.ObserveQueries(o.observe)
	if got := o.take(); len(got) != 0 {
		t.Fatalf("nothing was queried yet, observer told %v", got)
	}
	g.Enabled("Beta")
	g.Enabled("Beta")
	g.Enabled("Alpha")
	g.Enabled("Beta")
	if got, want := o.take(), []Feature{"Beta", "Alpha"}; !slices.Equal(got, want) {
		t.Errorf("observer told %v, want each first query once: %v", got, want)
	}

	// An unknown feature panics before it is recorded: not told.
	func() {
		defer func() { _ = recover() }()
		g.Enabled("Unknown")
		t.Error("Enabled of an unknown feature must panic")
	}()
	if got := o.take(); len(got) != 0 {
		t.Errorf("observer told %v about an unknown feature", got)
	}

	// The record is reset with the emulation version: first queries again.
	if err := g.SetEmulationVersion(version.MustParse("1.35")); err != nil {
		t.Fatal(err)
	}
	g.Enabled("Beta")
	g.Enabled("Beta")
	if got, want := o.take(), []Feature{"Beta"}; !slices.Equal(got, want) {
		t.Errorf("after a change of the emulation version, observer told %v, want %v", got, want)
	}

	// nil removes the observer; the gate goes on recording queries.
	g.ObserveQueries(nil)
	g.Enabled("Graduating")
	if got := o.take(); len(got) != 0 {
		t.Errorf("a removed observer was told %v", got)
	}
	if !g.queriedFeatures.Load().(sets.Set[Feature]).Has("Graduating") {
		t.Error("without an observer the gate must still record queried features")
	}
}

func TestObserveQueriesReplays(t *testing.T) {
	g := newObservedGate(t)
	g.Enabled("Alpha")
	g.Enabled("Beta")
	var o observed
	g.ObserveQueries(o.observe)
	got := o.take()
	slices.Sort(got)
	if want := []Feature{"Alpha", "Beta"}; !slices.Equal(got, want) {
		t.Errorf("replay told %v, want %v", got, want)
	}
	g.Enabled("Alpha")
	g.Enabled("Graduating")
	if got, want := o.take(), []Feature{"Graduating"}; !slices.Equal(got, want) {
		t.Errorf("after the replay observer told %v, want %v", got, want)
	}

	// A second observer replaces the first and gets the replay too.
	var second observed
	g.ObserveQueries(second.observe)
	if got := second.take(); len(got) != 3 {
		t.Errorf("the second observer's replay told %v, want the 3 queried features", got)
	}
	if err := g.SetEmulationVersion(version.MustParse("1.35")); err != nil {
		t.Fatal(err)
	}
	g.Enabled("Alpha")
	if got := o.take(); len(got) != 0 {
		t.Errorf("a replaced observer was told %v", got)
	}
	if got, want := second.take(), []Feature{"Alpha"}; !slices.Equal(got, want) {
		t.Errorf("the second observer was told %v, want %v", got, want)
	}
}

func TestObserveQueriesNotCopied(t *testing.T) {
	g := newObservedGate(t)
	var o observed
	g.ObserveQueries(o.observe)
	for name, cp := range map[string]MutableVersionedFeatureGate{"DeepCopy": g.DeepCopy(), "DeepCopyAndReset": g.DeepCopyAndReset()} {
		cp.Enabled("Alpha")
		if got := o.take(); len(got) != 0 {
			t.Errorf("a query of the %s was told to the original's observer: %v", name, got)
		}
	}
	g.Enabled("Alpha")
	if got, want := o.take(), []Feature{"Alpha"}; !slices.Equal(got, want) {
		t.Errorf("queries of copies must not count for the original: told %v, want %v", got, want)
	}
}

func TestAddMetricsIsNotAQuery(t *testing.T) {
	g := newObservedGate(t)
	var o observed
	g.ObserveQueries(o.observe)
	g.AddMetrics()
	if got := o.take(); len(got) != 0 {
		t.Errorf("AddMetrics was told as queries: %v", got)
	}
	if got := g.queriedFeatures.Load().(sets.Set[Feature]); got.Len() != 0 {
		t.Errorf("AddMetrics recorded queries: %v", sets.List(got))
	}
}

// TestAddMetricsStillWarns checks that features AddMetrics read count as
// queried for the warning of a later emulation version change, as upstream's
// AddMetrics made them, until that change resets the record.
func TestAddMetricsStillWarns(t *testing.T) {
	g := newObservedGate(t)
	g.AddMetrics()
	var warnings []string
	logger := funcr.New(func(_, args string) { warnings = append(warnings, args) }, funcr.Options{})
	if err := g.SetEmulationVersionWithLogger(logger, version.MustParse("1.34")); err != nil {
		t.Fatal(err)
	}
	// At 1.34, Beta (from 1.35) and Graduating (on from 1.35) are off.
	var warned []string
	for _, w := range warnings {
		if strings.Contains(w, "will change already queried feature") {
			for _, f := range []string{"Beta", "Graduating", "Alpha"} {
				if strings.Contains(w, `"featureGate"="`+f+`"`) {
					warned = append(warned, f)
				}
			}
		}
	}
	slices.Sort(warned)
	if want := []string{"Beta", "Graduating"}; !slices.Equal(warned, want) {
		t.Errorf("after AddMetrics, a change of the emulation version warned of %v, want %v (warnings %q)", warned, want, warnings)
	}
	warnings = nil
	if err := g.SetEmulationVersionWithLogger(logger, version.MustParse("1.36")); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("the record is reset by a change of the emulation version: warnings %q, want none", warnings)
	}
}

// TestObserveQueriesConcurrent queries features from several goroutines while
// the observer is set: every queried feature must be told, in the replay or
// at a query. Run it with -race.
func TestObserveQueriesConcurrent(t *testing.T) {
	const goroutines, perGoroutine = 8, 50
	g := NewVersionedFeatureGate(version.MustParse("1.36"))
	specs := map[Feature]VersionedSpecs{}
	for i := range goroutines * perGoroutine {
		specs[Feature(fmt.Sprintf("F%03d", i))] = VersionedSpecs{{Version: version.MustParse("1.30"), Default: i%2 == 0, PreRelease: Beta}}
	}
	if err := g.AddVersioned(specs); err != nil {
		t.Fatal(err)
	}

	var (
		mu   sync.Mutex
		told = sets.New[Feature]()
	)
	observe := func(f Feature) {
		mu.Lock()
		told.Insert(f)
		mu.Unlock()
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	started := make(chan struct{}, goroutines)
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			// Each goroutine queries its own features again and again,
			// as components do, and the features of the others.
			for round := 0; !stop.Load(); round++ {
				for j := range perGoroutine {
					g.Enabled(Feature(fmt.Sprintf("F%03d", i*perGoroutine+j)))
				}
				g.Enabled(Feature(fmt.Sprintf("F%03d", (round*7)%(goroutines*perGoroutine))))
			}
		}()
	}
	for range goroutines {
		<-started
	}
	g.ObserveQueries(observe)
	// Let every goroutine make a few more rounds with the observer set.
	for range 3 {
		for i := range goroutines * perGoroutine {
			g.Enabled(Feature(fmt.Sprintf("F%03d", i)))
		}
	}
	stop.Store(true)
	wg.Wait()

	queried := g.queriedFeatures.Load().(sets.Set[Feature])
	mu.Lock()
	defer mu.Unlock()
	if missing := queried.Difference(told); missing.Len() > 0 {
		t.Errorf("%d queried features were never told: %v", missing.Len(), sets.List(missing))
	}
	if told.Len() != goroutines*perGoroutine {
		t.Errorf("told %d features, want %d", told.Len(), goroutines*perGoroutine)
	}
}

func TestEnabledWithObserverDoesNotAllocate(t *testing.T) {
	g := newBenchGate(t, true)
	for name, feature := range map[string]Feature{"explicit": benchExplicit, "default": benchDefault} {
		g.Enabled(feature)
		if allocs := testing.AllocsPerRun(1000, func() { g.Enabled(feature) }); allocs != 0 {
			t.Errorf("%s: Enabled with an observer allocates %v times per call", name, allocs)
		}
	}
}

// The features the benchmark queries: one set explicitly, one at its default.
const (
	benchExplicit Feature = "BenchFeature150"
	benchDefault  Feature = "BenchFeature151"
)

// newBenchGate returns a gate of 300 features with version histories like
// Kubernetes' own, with one of them set explicitly and, if observe, a query
// observer.
func newBenchGate(tb testing.TB, observe bool) *featureGate {
	tb.Helper()
	v := func(minor int) *version.Version { return version.MajorMinor(1, uint(minor)) }
	specs := map[Feature]VersionedSpecs{}
	for i := range 300 {
		intro := 20 + i%17
		var s VersionedSpecs
		switch i % 4 {
		case 0:
			s = VersionedSpecs{{Version: v(intro), PreRelease: Alpha}}
		case 1:
			s = VersionedSpecs{{Version: v(intro - 1), PreRelease: Alpha}, {Version: v(intro), Default: true, PreRelease: Beta}}
		case 2:
			s = VersionedSpecs{{Version: v(intro), PreRelease: Beta}, {Version: v(intro), Default: true, PreRelease: Beta, MinCompatibilityVersion: v(intro)}}
		case 3:
			s = VersionedSpecs{{Version: v(intro - 3), PreRelease: Alpha}, {Version: v(intro - 2), Default: true, PreRelease: Beta}, {Version: v(intro), Default: true, PreRelease: GA, LockToDefault: true}}
		}
		specs[Feature(fmt.Sprintf("BenchFeature%03d", i))] = s
	}
	g := NewVersionedFeatureGate(version.MustParse("1.36"))
	if err := g.AddVersioned(specs); err != nil {
		tb.Fatal(err)
	}
	if err := g.SetFromMap(map[string]bool{string(benchExplicit): true}); err != nil {
		tb.Fatal(err)
	}
	if observe {
		var told atomic.Int64
		g.ObserveQueries(func(Feature) { told.Add(1) })
	}
	return g
}

var benchSink bool

// BenchmarkEnabledQueryObserver compares Enabled without and with a query
// observer in one run: the observer must cost nothing once a feature was
// queried.
func BenchmarkEnabledQueryObserver(b *testing.B) {
	// Sub-benchmarks are named upstream/<case> and ours/<case>, the pairs
	// hack/bench-ratios.sh divides.
	for _, observer := range []struct {
		name    string
		observe bool
	}{{"upstream", false}, {"ours", true}} {
		for _, feature := range []struct {
			name    string
			feature Feature
		}{{"explicit", benchExplicit}, {"default", benchDefault}} {
			b.Run(observer.name+"/"+feature.name, func(b *testing.B) {
				g := newBenchGate(b, observer.observe)
				if !g.Enabled(feature.feature) { // also the first query
					b.Fatalf("%s is not enabled", feature.feature)
				}
				b.ReportAllocs()
				var v bool
				for b.Loop() {
					v = g.Enabled(feature.feature)
				}
				benchSink = v
			})
		}
	}
}
