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
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/pflag"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
)

// Features registered by the tests. Versions are relative to a 1.36 binary.
const (
	fAlpha        featuregate.Feature = "AlphaFeature"      // alpha since 1.34
	fGraduating   featuregate.Feature = "Graduating"        // alpha 1.34, beta (on) 1.35, GA locked 1.36
	fBetaOff      featuregate.Feature = "BetaOff"           // beta, default off
	fBetaOn       featuregate.Feature = "BetaOn"            // beta, default on
	fDeprecated   featuregate.Feature = "DeprecatedFeature" // GA on 1.20, deprecated off 1.35
	fFuture       featuregate.Feature = "FutureFeature"     // alpha 1.37: not available at 1.36
	fCompatGated  featuregate.Feature = "CompatGated"       // beta 1.35, on only if min compatibility >= 1.35
	fGALocked     featuregate.Feature = "GALocked"          // GA locked since 1.30
	fChild        featuregate.Feature = "ChildAlpha"        // alpha 1.34, depends on BetaOff
	fUnversioned  featuregate.Feature = "Unversioned"       // Add: alpha, off
	fUnversionedB featuregate.Feature = "UnversionedBeta"   // Add: beta, on
	fUnregistered featuregate.Feature = "NotRegistered"
)

func testVersionedSpecs() map[featuregate.Feature]featuregate.VersionedSpecs {
	v := version.MustParse
	return map[featuregate.Feature]featuregate.VersionedSpecs{
		fAlpha: {{Version: v("1.34"), Default: false, PreRelease: featuregate.Alpha}},
		fGraduating: {
			{Version: v("1.34"), Default: false, PreRelease: featuregate.Alpha},
			{Version: v("1.35"), Default: true, PreRelease: featuregate.Beta},
			{Version: v("1.36"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		},
		fBetaOff: {{Version: v("1.30"), Default: false, PreRelease: featuregate.Beta}},
		fBetaOn:  {{Version: v("1.30"), Default: true, PreRelease: featuregate.Beta}},
		fDeprecated: {
			{Version: v("1.20"), Default: true, PreRelease: featuregate.GA},
			{Version: v("1.35"), Default: false, PreRelease: featuregate.Deprecated},
		},
		fFuture: {{Version: v("1.37"), Default: false, PreRelease: featuregate.Alpha}},
		fCompatGated: {
			{Version: v("1.35"), Default: false, PreRelease: featuregate.Beta},
			{Version: v("1.35"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: v("1.35")},
		},
		fGALocked: {{Version: v("1.30"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}},
		fChild:    {{Version: v("1.34"), Default: false, PreRelease: featuregate.Alpha}},
	}
}

func testUnversionedSpecs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		fUnversioned:  {Default: false, PreRelease: featuregate.Alpha},
		fUnversionedB: {Default: true, PreRelease: featuregate.Beta},
	}
}

func newUpstream() featuregate.MutableVersionedFeatureGate {
	return featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
}

// newRegistered returns an upstream gate with all test features registered.
func newRegistered(t testing.TB) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	g := newUpstream()
	if err := g.AddVersioned(testVersionedSpecs()); err != nil {
		t.Fatal(err)
	}
	if err := g.Add(testUnversionedSpecs()); err != nil {
		t.Fatal(err)
	}
	if err := g.AddDependencies(map[featuregate.Feature][]featuregate.Feature{fChild: {fBetaOff}}); err != nil {
		t.Fatal(err)
	}
	return g
}

// side is one of the two gates compared by the equivalence test, with the
// flag set its AddFlag registered on.
type side struct {
	gate featuregate.MutableVersionedFeatureGate
	fs   *pflag.FlagSet
}

type step struct {
	name    string
	do      func(s *side) error
	wantErr bool
}

func addVersioned(specs func() map[featuregate.Feature]featuregate.VersionedSpecs) func(*side) error {
	return func(s *side) error { return s.gate.AddVersioned(specs()) }
}

func addDeps(deps map[featuregate.Feature][]featuregate.Feature) func(*side) error {
	return func(s *side) error {
		// AddDependencies merges into the map it is given: hand each side its own.
		m := map[featuregate.Feature][]featuregate.Feature{}
		for k, v := range deps {
			m[k] = slices.Clone(v)
		}
		return s.gate.AddDependencies(m)
	}
}

func set(value string) func(*side) error {
	return func(s *side) error { return s.gate.Set(value) }
}

func setFromMap(m map[string]bool) func(*side) error {
	return func(s *side) error { return s.gate.SetFromMap(m) }
}

func setEmulation(v string) func(*side) error {
	return func(s *side) error { return s.gate.SetEmulationVersion(version.MustParse(v)) }
}

func setEmulationAndMin(emu, minCompat string) func(*side) error {
	return func(s *side) error {
		return s.gate.SetEmulationVersionAndMinCompatibilityVersion(version.MustParse(emu), version.MustParse(minCompat))
	}
}

func reset(name featuregate.Feature) func(*side) error {
	return func(s *side) error { return s.gate.ResetFeatureValueToDefault(name) }
}

func overrideDefault(name featuregate.Feature, v bool) func(*side) error {
	return func(s *side) error { return s.gate.OverrideDefault(name, v) }
}

func overrideDefaultAt(name featuregate.Feature, v bool, ver string) func(*side) error {
	return func(s *side) error { return s.gate.OverrideDefaultAtVersion(name, v, version.MustParse(ver)) }
}

func addFlag(s *side) error {
	s.fs = pflag.NewFlagSet("test", pflag.ContinueOnError)
	s.fs.SetOutput(io.Discard)
	s.gate.AddFlag(s.fs)
	return nil
}

func parse(args ...string) func(*side) error {
	return func(s *side) error { return s.fs.Parse(args) }
}

func closeGate(s *side) error {
	s.gate.Close()
	return nil
}

func registerAll() []step {
	return []step{
		{name: "AddVersioned", do: addVersioned(testVersionedSpecs)},
		{name: "Add", do: func(s *side) error { return s.gate.Add(testUnversionedSpecs()) }},
		{name: "AddDependencies", do: addDeps(map[featuregate.Feature][]featuregate.Feature{fChild: {fBetaOff}})},
	}
}

func TestEquivalence(t *testing.T) {
	scenarios := map[string][]step{
		"lifecycle": append(registerAll(), []step{
			{name: "AddVersioned same spec again", do: addVersioned(testVersionedSpecs)},
			{name: "AddVersioned different spec", wantErr: true, do: addVersioned(func() map[featuregate.Feature]featuregate.VersionedSpecs {
				return map[featuregate.Feature]featuregate.VersionedSpecs{fBetaOn: {{Version: version.MustParse("1.31"), Default: true, PreRelease: featuregate.Beta}}}
			})},
			{name: "AddVersioned patch version", wantErr: true, do: addVersioned(func() map[featuregate.Feature]featuregate.VersionedSpecs {
				return map[featuregate.Feature]featuregate.VersionedSpecs{"Bad": {{Version: version.MustParse("1.36.1"), PreRelease: featuregate.Alpha}}}
			})},
			{name: "AddDependencies unknown", wantErr: true, do: addDeps(map[featuregate.Feature][]featuregate.Feature{"Nope": {fBetaOn}})},
			{name: "AddDependencies on default-off", wantErr: true, do: addDeps(map[featuregate.Feature][]featuregate.Feature{fBetaOn: {fBetaOff}})},
			{name: "OverrideDefault", do: overrideDefault(fBetaOff, true)},
			{name: "OverrideDefault locked", wantErr: true, do: overrideDefault(fGALocked, false)},
			{name: "OverrideDefault pre-alpha", wantErr: true, do: overrideDefault(fFuture, true)},
			{name: "OverrideDefault unknown", wantErr: true, do: overrideDefault(fUnregistered, true)},
			{name: "OverrideDefault GA", do: overrideDefault(fDeprecated, true)},
			{name: "OverrideDefaultAtVersion", do: overrideDefaultAt(fGraduating, false, "1.35")},
			{name: "OverrideDefaultAtVersion locked", wantErr: true, do: overrideDefaultAt(fGraduating, false, "1.36")},
			{name: "Set", do: set("AlphaFeature=true")},
			{name: "Set two", do: set("BetaOn=false, Unversioned=true")},
			{name: "Set missing value", wantErr: true, do: set("AlphaFeature")},
			{name: "Set invalid value", wantErr: true, do: set("AlphaFeature=maybe")},
			{name: "Set empty", do: set("")},
			{name: "SetFromMap deprecated", do: setFromMap(map[string]bool{"DeprecatedFeature": true})},
			{name: "SetFromMap dependent", do: setFromMap(map[string]bool{"ChildAlpha": true})},
			{name: "Reset", do: reset(fAlpha)},
			{name: "Reset unset", do: reset(fBetaOff)},
			{name: "SetEmulationVersion 1.35", do: setEmulation("1.35")},
			{name: "SetEmulationVersion 1.35 again", do: setEmulation("1.35")},
			{name: "SetEmulationVersion 1.34", do: setEmulation("1.34")},
			{name: "SetEmulationVersion 1.33 with feature set that is pre-alpha there", wantErr: true, do: setEmulation("1.33")},
			{name: "Reset ChildAlpha", do: reset(fChild)},
			{name: "SetEmulationVersion 1.33", do: setEmulation("1.33")},
			{name: "Set pre-alpha", wantErr: true, do: set("Graduating=true")},
			{name: "Reset of a value that failed to apply", wantErr: true, do: reset(fGraduating)},
			{name: "SetEmulationVersionAndMin 1.36/1.34", do: setEmulationAndMin("1.36", "1.34")},
			{name: "SetEmulationVersionAndMin 1.36/1.35", do: setEmulationAndMin("1.36", "1.35")},
			{name: "AllAlpha", do: set("AllAlpha=true")},
			{name: "AllBeta disables a dependency", wantErr: true, do: set("AllBeta=false")},
			{name: "AllBeta", do: set("AllBeta=false,BetaOff=true")},
			{name: "Reset AllAlpha keeps resolved alpha values", do: reset("AllAlpha")},
			{name: "SetEmulationVersion recomputes", do: setEmulation("1.35")},
			{name: "SetEmulationVersion back", do: setEmulation("1.36")},
			{name: "Close", do: closeGate},
			{name: "Add after Close", wantErr: true, do: func(s *side) error {
				return s.gate.Add(map[featuregate.Feature]featuregate.FeatureSpec{"Late": {PreRelease: featuregate.Alpha}})
			}},
			{name: "AddDependencies after Close", wantErr: true, do: addDeps(map[featuregate.Feature][]featuregate.Feature{fChild: {fBetaOff}})},
			{name: "OverrideDefault after Close", wantErr: true, do: overrideDefault(fBetaOn, false)},
			{name: "AddFlag", do: addFlag},
			{name: "parse", do: parse("--feature-gates=BetaOn=true,AlphaFeature=true")},
			{name: "parse twice", do: parse("--feature-gates=BetaOff=false", "--feature-gates=Unversioned=false")},
			{name: "parse invalid value", wantErr: true, do: parse("--feature-gates=BetaOn=yes please")},
			{name: "parse locked", wantErr: true, do: parse("--feature-gates=GALocked=false")},
			{name: "parse after locked error", wantErr: true, do: parse("--feature-gates=BetaOn=false")},
			{name: "SetEmulationVersion after locked error", wantErr: true, do: setEmulation("1.35")},
		}...),
		"unknown gate": append(registerAll(), []step{
			{name: "Set", do: set("BetaOff=true")},
			{name: "AddFlag", do: addFlag},
			{name: "parse unknown", wantErr: true, do: parse("--feature-gates=Nope=true")},
			{name: "Set after unknown", wantErr: true, do: set("BetaOn=false")},
			{name: "Reset unknown", wantErr: true, do: reset("Nope")},
			{name: "SetEmulationVersion after unknown", wantErr: true, do: setEmulation("1.35")},
		}...),
		"several errors": append(registerAll(), []step{
			{name: "SetFromMap two locked", wantErr: true, do: setFromMap(map[string]bool{"GALocked": false, "Graduating": false})},
			{name: "Set more", wantErr: true, do: set("BetaOn=true")},
		}...),
		"dependencies": append(registerAll(), []step{
			{name: "dependent on disabled", wantErr: true, do: setFromMap(map[string]bool{"ChildAlpha": true, "BetaOff": false})},
			{name: "fix", do: setFromMap(map[string]bool{"BetaOff": true})},
			{name: "disable dependency", wantErr: true, do: set("BetaOff=false")},
		}...),
		"emulation before registration": {
			{name: "SetEmulationVersion", do: setEmulation("1.34")},
			{name: "AddVersioned", do: addVersioned(testVersionedSpecs)},
			{name: "Set", do: set("AllAlpha=true")},
			{name: "SetEmulationVersion 1.36", do: setEmulation("1.36")},
			{name: "SetEmulationVersionAndMin", do: setEmulationAndMin("1.35", "1.35")},
		},
	}

	for name, steps := range scenarios {
		t.Run(name, func(t *testing.T) {
			up := &side{gate: newUpstream()}
			wrapped := Wrap(newUpstream(), "test")
			wr := &side{gate: wrapped}
			compareGates(t, "initial", up, wr)
			for _, st := range steps {
				upErr := st.do(up)
				wrErr := st.do(wr)
				if (upErr != nil) != st.wantErr {
					t.Fatalf("%s: upstream error %v, want error: %v", st.name, upErr, st.wantErr)
				}
				if a, b := errorMessages(upErr), errorMessages(wrErr); !reflect.DeepEqual(a, b) {
					t.Fatalf("%s: errors differ:\nupstream: %q\nwrapped:  %q", st.name, a, b)
				}
				compareGates(t, st.name, up, wr)
			}
		})
	}
}

// errorMessages returns the sorted messages of an error, splitting aggregates
// (upstream builds them from map iteration, so their order is random).
func errorMessages(err error) []string {
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		var msgs []string
		for _, e := range agg.Errors() {
			msgs = append(msgs, e.Error())
		}
		slices.Sort(msgs)
		// pflag wraps the value's error in its own message.
		return append(msgs, strings.Replace(err.Error(), agg.Error(), "<aggregate>", 1))
	}
	return []string{err.Error()}
}

func sortedMessages(errs []error) []string {
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	slices.Sort(msgs)
	return msgs
}

// panicMessage returns what Enabled panics with, or "" if it does not panic.
func panicMessage(g featuregate.FeatureGate, name featuregate.Feature) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	g.Enabled(name)
	return ""
}

func compareGates(t *testing.T, stepName string, up, wr *side) {
	t.Helper()
	u, w := up.gate, wr.gate
	fail := func(what string, a, b any) {
		t.Helper()
		t.Fatalf("after %q: %s differs:\nupstream: %v\nwrapped:  %v", stepName, what, a, b)
	}

	all := u.GetAllVersioned()
	if a, b := all, w.GetAllVersioned(); !reflect.DeepEqual(a, b) {
		fail("GetAllVersioned", a, b)
	}
	if a, b := u.GetAll(), w.GetAll(); !reflect.DeepEqual(a, b) {
		fail("GetAll", a, b)
	}
	if a, b := u.KnownFeatures(), w.KnownFeatures(); !reflect.DeepEqual(a, b) {
		fail("KnownFeatures", a, b)
	}
	if a, b := u.Dependencies(), w.Dependencies(); !reflect.DeepEqual(a, b) {
		fail("Dependencies", a, b)
	}
	if a, b := u.EmulationVersion().String(), w.EmulationVersion().String(); a != b {
		fail("EmulationVersion", a, b)
	}
	if a, b := u.MinCompatibilityVersion().String(), w.MinCompatibilityVersion().String(); a != b {
		fail("MinCompatibilityVersion", a, b)
	}
	if a, b := sortedMessages(u.Validate()), sortedMessages(w.Validate()); !reflect.DeepEqual(a, b) {
		fail("Validate", a, b)
	}
	if a, b := u.(fmt.Stringer).String(), w.(fmt.Stringer).String(); a != b {
		fail("String", a, b)
	}

	want := map[featuregate.Feature]bool{}
	for name := range all {
		want[name] = u.Enabled(name)
		if a, b := want[name], w.Enabled(name); a != b {
			fail("Enabled("+string(name)+")", a, b)
		}
		if a, b := u.ExplicitlySet(name), w.ExplicitlySet(name); a != b {
			fail("ExplicitlySet("+string(name)+")", a, b)
		}
	}
	if a, b := u.ExplicitlySet(fUnregistered), w.ExplicitlySet(fUnregistered); a != b {
		fail("ExplicitlySet(unregistered)", a, b)
	}
	a, b := panicMessage(u, fUnregistered), panicMessage(w, fUnregistered)
	if a == "" || a != b {
		fail("Enabled(unregistered) panic", a, b)
	}

	gate := w.(*Gate)
	if got := gate.Known(); !reflect.DeepEqual(got, want) {
		fail("Known vs upstream Enabled", want, got)
	}
	for name, v := range gate.Uses() {
		if v != want[name] {
			fail("Uses["+string(name)+"]", want[name], v)
		}
	}
	// Both ways of computing a snapshot agree with upstream.
	if _, nested := gate.Inner().(*Gate); !nested {
		if got, ok := evaluateUpstream(gate.Inner().DeepCopy()); !ok || !reflect.DeepEqual(got, want) {
			fail("evaluateUpstream", want, got)
		}
	}
	if got := evaluateGeneric(gate.Inner().DeepCopy()); !reflect.DeepEqual(got, want) {
		fail("evaluateGeneric", want, got)
	}

	if (up.fs == nil) != (wr.fs == nil) {
		t.Fatalf("after %q: only one side has a flag set", stepName)
	}
	if up.fs != nil {
		fu, fw := up.fs.Lookup("feature-gates"), wr.fs.Lookup("feature-gates")
		if fu == nil || fw == nil {
			fail("feature-gates flag", fu, fw)
		}
		if a, b := fu.Value.String(), fw.Value.String(); a != b {
			fail("flag value", a, b)
		}
		if a, b := fu.Value.Type(), fw.Value.Type(); a != b {
			fail("flag type", a, b)
		}
		if a, b := fu.Usage, fw.Usage; a != b {
			fail("flag usage", a, b)
		}
		if a, b := fu.DefValue, fw.DefValue; a != b {
			fail("flag default", a, b)
		}
		if a, b := fu.Changed, fw.Changed; a != b {
			fail("flag changed", a, b)
		}
	}
}

// logCapture is a logger that keeps the warnings it is given.
type logCapture struct {
	mu       sync.Mutex
	warnings []string
}

func (c *logCapture) logger() klog.Logger {
	return funcr.New(func(prefix, args string) {
		if strings.Contains(args, "Warning") {
			c.mu.Lock()
			c.warnings = append(c.warnings, args)
			c.mu.Unlock()
		}
	}, funcr.Options{})
}

func (c *logCapture) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	c.warnings = nil
	slices.Sort(w)
	return w
}

// TestQueriedFeaturesWarning checks that the wrapper keeps upstream's record of
// queried features: SetEmulationVersion warns about exactly the same features.
func TestQueriedFeaturesWarning(t *testing.T) {
	up := newRegistered(t)
	wr := Wrap(newRegistered(t), "test")
	var upLog, wrLog logCapture
	type emulator interface {
		SetEmulationVersionWithLogger(klog.Logger, *version.Version) error
	}

	steps := []struct {
		check        []featuregate.Feature
		emulate      string
		wantWarnings int
	}{
		{check: []featuregate.Feature{fGraduating, fBetaOn}, emulate: "1.34", wantWarnings: 1},
		// Upstream forgot its record when the version changed.
		{emulate: "1.36", wantWarnings: 0},
		{check: []featuregate.Feature{fGraduating}, emulate: "1.34", wantWarnings: 1},
		{check: []featuregate.Feature{fGraduating}, emulate: "1.35", wantWarnings: 1},
		{check: []featuregate.Feature{fGraduating, fGraduating}, emulate: "1.34", wantWarnings: 1},
		{check: []featuregate.Feature{fCompatGated}, emulate: "1.36", wantWarnings: 1},
		{check: []featuregate.Feature{fCompatGated, fGraduating}, emulate: "1.34", wantWarnings: 2},
	}
	for i, st := range steps {
		for _, name := range st.check {
			up.Enabled(name)
			wr.Enabled(name)
		}
		if err := up.(emulator).SetEmulationVersionWithLogger(upLog.logger(), version.MustParse(st.emulate)); err != nil {
			t.Fatal(err)
		}
		if err := wr.SetEmulationVersionWithLogger(wrLog.logger(), version.MustParse(st.emulate)); err != nil {
			t.Fatal(err)
		}
		a, b := upLog.take(), wrLog.take()
		if !reflect.DeepEqual(a, b) {
			t.Errorf("step %d: warnings differ:\nupstream: %q\nwrapped:  %q", i, a, b)
		}
		if len(a) != st.wantWarnings {
			t.Errorf("step %d: got %d warnings, want %d: %q", i, len(a), st.wantWarnings, a)
		}
	}
}

func receive(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestUsesKnownChanged(t *testing.T) {
	g := Wrap(newRegistered(t), "kube-scheduler")
	if g.Component() != "kube-scheduler" {
		t.Errorf("Component() = %q", g.Component())
	}
	if receive(g.Changed()) {
		t.Error("Changed signalled before anything happened")
	}
	if len(g.Uses()) != 0 {
		t.Errorf("Uses() = %v before any check", g.Uses())
	}
	wantKnown := map[featuregate.Feature]bool{
		"AllAlpha": false, "AllBeta": false,
		fAlpha: false, fGraduating: true, fBetaOff: false, fBetaOn: true, fDeprecated: false,
		fFuture: false, fCompatGated: true, fGALocked: true, fChild: false,
		fUnversioned: false, fUnversionedB: true,
	}
	if got := g.Known(); !reflect.DeepEqual(got, wantKnown) {
		t.Errorf("Known() = %v, want %v", got, wantKnown)
	}

	// First use signals, repeated use does not.
	if !g.Enabled(fBetaOn) {
		t.Fatal("BetaOn should be on")
	}
	if !receive(g.Changed()) {
		t.Error("first use did not signal")
	}
	g.Enabled(fBetaOn)
	if receive(g.Changed()) {
		t.Error("repeated use signalled")
	}
	if got, want := g.Uses(), map[featuregate.Feature]bool{fBetaOn: true}; !reflect.DeepEqual(got, want) {
		t.Errorf("Uses() = %v, want %v", got, want)
	}

	// A mutation that changes a value signals, and Uses reports the new value.
	if err := g.Set("BetaOn=false"); err != nil {
		t.Fatal(err)
	}
	if !receive(g.Changed()) {
		t.Error("mutation did not signal")
	}
	if got, want := g.Uses(), map[featuregate.Feature]bool{fBetaOn: false}; !reflect.DeepEqual(got, want) {
		t.Errorf("Uses() = %v, want %v", got, want)
	}
	// A mutation that changes nothing does not.
	if err := g.Set("BetaOn=false"); err != nil {
		t.Fatal(err)
	}
	if receive(g.Changed()) {
		t.Error("no-op mutation signalled")
	}

	// Checks survive emulation version changes; a check after one is not a
	// first use.
	g.Enabled(fGraduating)
	receive(g.Changed())
	if err := g.SetEmulationVersion(version.MustParse("1.34")); err != nil {
		t.Fatal(err)
	}
	if !receive(g.Changed()) {
		t.Error("SetEmulationVersion did not signal")
	}
	if g.Enabled(fGraduating) {
		t.Error("Graduating should be off at 1.34")
	}
	if receive(g.Changed()) {
		t.Error("check of a used feature after a version change signalled")
	}
	if got, want := g.Uses(), map[featuregate.Feature]bool{fBetaOn: false, fGraduating: false}; !reflect.DeepEqual(got, want) {
		t.Errorf("Uses() = %v, want %v", got, want)
	}

	// Registering a feature changes the snapshot.
	if err := g.Add(map[featuregate.Feature]featuregate.FeatureSpec{"Added": {Default: true, PreRelease: featuregate.Beta}}); err != nil {
		t.Fatal(err)
	}
	if !receive(g.Changed()) {
		t.Error("Add did not signal")
	}
	if !g.Known()["Added"] {
		t.Error("Known() misses Added")
	}

	// Unregistered features panic and are not remembered.
	if panicMessage(g, fUnregistered) == "" {
		t.Error("Enabled of an unregistered feature did not panic")
	}
	if _, ok := g.Uses()[fUnregistered]; ok {
		t.Error("unregistered feature in Uses()")
	}
	if receive(g.Changed()) {
		t.Error("check of an unregistered feature signalled")
	}

	// Copies are different gates.
	for name, cp := range map[string]featuregate.MutableVersionedFeatureGate{"DeepCopy": g.DeepCopy(), "DeepCopyAndReset": g.DeepCopyAndReset()} {
		c, ok := cp.(*Gate)
		if !ok {
			t.Fatalf("%s returned %T", name, cp)
		}
		if len(c.Uses()) != 0 {
			t.Errorf("%s: Uses() = %v", name, c.Uses())
		}
		if c.Component() != g.Component() {
			t.Errorf("%s: Component() = %q", name, c.Component())
		}
		if c.Inner() == g.Inner() {
			t.Errorf("%s shares the inner gate", name)
		}
		c.Enabled(fAlpha)
		if _, ok := g.Uses()[fAlpha]; ok {
			t.Errorf("use of %s leaked into the original", name)
		}
	}
	if got := g.DeepCopy().(*Gate).Known(); !reflect.DeepEqual(got, g.Known()) {
		t.Errorf("DeepCopy Known() = %v, want %v", got, g.Known())
	}
	if g.DeepCopyAndReset().Enabled(fBetaOn) != true {
		t.Error("DeepCopyAndReset kept BetaOn=false")
	}
	receive(g.Changed())

	// Mutations behind the wrapper's back are picked up by Refresh.
	if err := g.Inner().Set("BetaOn=true"); err != nil {
		t.Fatal(err)
	}
	if g.Enabled(fBetaOn) {
		t.Error("snapshot changed without Refresh")
	}
	g.Refresh()
	if !g.Enabled(fBetaOn) || !g.Uses()[fBetaOn] {
		t.Error("Refresh did not pick up BetaOn=true")
	}
	if !receive(g.Changed()) {
		t.Error("Refresh did not signal")
	}

	// A feature registered behind the wrapper's back still works and its use
	// is remembered.
	if err := g.Inner().Add(map[featuregate.Feature]featuregate.FeatureSpec{"Sneaky": {Default: true, PreRelease: featuregate.Beta}}); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled("Sneaky") {
		t.Error("Sneaky should be on")
	}
	if !receive(g.Changed()) {
		t.Error("first use of Sneaky did not signal")
	}
	if v, ok := g.Uses()["Sneaky"]; !ok || !v {
		t.Errorf("Uses()[Sneaky] = %v, %v", v, ok)
	}
	if _, ok := g.snap.Load().entries["Sneaky"]; !ok {
		t.Error("Sneaky is not in the snapshot after its first use")
	}
}

// TestUsesBeforeFlagParsing checks that checks made before flags are parsed
// are kept and reported with the parsed value.
func TestUsesBeforeFlagParsing(t *testing.T) {
	g := Wrap(newRegistered(t), "kubelet")
	if g.Enabled(fBetaOff) {
		t.Fatal("BetaOff should be off")
	}
	fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
	g.AddFlag(fs)
	receive(g.Changed())
	if err := fs.Parse([]string{"--feature-gates=BetaOff=true"}); err != nil {
		t.Fatal(err)
	}
	if !receive(g.Changed()) {
		t.Error("parsing did not signal")
	}
	if got, want := g.Uses(), map[featuregate.Feature]bool{fBetaOff: true}; !reflect.DeepEqual(got, want) {
		t.Errorf("Uses() = %v, want %v", got, want)
	}
	if err := g.Add(map[featuregate.Feature]featuregate.FeatureSpec{"Late": {}}); err == nil {
		t.Error("AddFlag did not close the gate")
	}
}

// TestFeatureGateTestingHelpers checks that component-base's test helpers,
// which use the logger variants, work on the wrapper.
func TestFeatureGateTestingHelpers(t *testing.T) {
	g := Wrap(newRegistered(t), "test")
	t.Run("set", func(t *testing.T) {
		featuregatetesting.SetFeatureGatesDuringTest(t, g, featuregatetesting.FeatureOverrides{fBetaOff: true, fAlpha: true})
		if !g.Enabled(fBetaOff) || !g.Enabled(fAlpha) {
			t.Error("SetFeatureGatesDuringTest had no effect")
		}
	})
	if g.Enabled(fBetaOff) || g.Enabled(fAlpha) || g.ExplicitlySet(fBetaOff) {
		t.Error("SetFeatureGatesDuringTest did not restore")
	}
	t.Run("emulate", func(t *testing.T) {
		featuregatetesting.SetFeatureGateEmulationVersionDuringTest(t, g, version.MustParse("1.34"))
		if g.Enabled(fGraduating) {
			t.Error("SetFeatureGateEmulationVersionDuringTest had no effect")
		}
	})
	if !g.Enabled(fGraduating) || g.EmulationVersion().String() != "1.36" {
		t.Error("SetFeatureGateEmulationVersionDuringTest did not restore")
	}
}

// TestLoggerVariants checks the logger variants against upstream's.
func TestLoggerVariants(t *testing.T) {
	type withLogger interface {
		featuregate.MutableVersionedFeatureGate
		featuregate.MutableFeatureGateWithLogger
		featuregate.MutableVersionedFeatureGateWithLogger
	}
	up := &side{gate: newRegistered(t)}
	wr := &side{gate: Wrap(newRegistered(t), "test")}
	var upLog, wrLog logCapture
	steps := []struct {
		name string
		do   func(g withLogger, logger klog.Logger) error
	}{
		{"SetWithLogger", func(g withLogger, l klog.Logger) error { return g.SetWithLogger(l, "DeprecatedFeature=true") }},
		{"SetFromMapWithLogger", func(g withLogger, l klog.Logger) error {
			return g.SetFromMapWithLogger(l, map[string]bool{"GALocked": true, "BetaOn": false})
		}},
		{"OverrideDefaultWithLogger", func(g withLogger, l klog.Logger) error { return g.OverrideDefaultWithLogger(l, fBetaOff, true) }},
		{"OverrideDefaultAtVersionWithLogger", func(g withLogger, l klog.Logger) error {
			return g.OverrideDefaultAtVersionWithLogger(l, fDeprecated, true, version.MustParse("1.30"))
		}},
		{"SetEmulationVersionAndMinCompatibilityVersionWithLogger", func(g withLogger, l klog.Logger) error {
			return g.SetEmulationVersionAndMinCompatibilityVersionWithLogger(l, version.MustParse("1.35"), version.MustParse("1.34"))
		}},
		{"SetEmulationVersionWithLogger", func(g withLogger, l klog.Logger) error {
			return g.SetEmulationVersionWithLogger(l, version.MustParse("1.33"))
		}},
	}
	for _, st := range steps {
		upErr := st.do(up.gate.(withLogger), upLog.logger())
		wrErr := st.do(wr.gate.(withLogger), wrLog.logger())
		if a, b := errorMessages(upErr), errorMessages(wrErr); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: errors differ:\nupstream: %q\nwrapped:  %q", st.name, a, b)
		}
		if a, b := upLog.take(), wrLog.take(); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: warnings differ:\nupstream: %q\nwrapped:  %q", st.name, a, b)
		}
		compareGates(t, st.name, up, wr)
	}
}

// TestWrapWrapped checks that a Gate can wrap another Gate.
func TestWrapWrapped(t *testing.T) {
	innerGate := Wrap(newRegistered(t), "inner")
	outer := Wrap(innerGate, "outer")
	up := &side{gate: newRegistered(t)}
	wr := &side{gate: outer}
	for _, do := range []func(*side) error{set("BetaOff=true"), setEmulation("1.34"), addFlag, parse("--feature-gates=AlphaFeature=true")} {
		if a, b := errorMessages(do(up)), errorMessages(do(wr)); !reflect.DeepEqual(a, b) {
			t.Fatalf("errors differ: %q vs %q", a, b)
		}
		compareGates(t, "step", up, wr)
	}
	outer.Enabled(fAlpha)
	if _, ok := innerGate.Uses()[fAlpha]; !ok {
		t.Error("first use through the outer gate was not forwarded to the inner gate")
	}
}

func TestEnabledDoesNotAllocate(t *testing.T) {
	g := Wrap(newRegistered(t), "test")
	if err := g.SetFromMap(map[string]bool{string(fBetaOff): true}); err != nil {
		t.Fatal(err)
	}
	for name, feature := range map[string]featuregate.Feature{"explicit": fBetaOff, "default": fBetaOn} {
		if allocs := testing.AllocsPerRun(1000, func() { g.Enabled(feature) }); allocs != 0 {
			t.Errorf("%s: Enabled allocates %v times per call", name, allocs)
		}
	}
}

func TestConcurrentEnabledAndMutation(t *testing.T) {
	g := Wrap(newRegistered(t), "test")
	names := []featuregate.Feature{fAlpha, fGraduating, fBetaOff, fBetaOn, fDeprecated, fFuture, fCompatGated, fGALocked, fChild, fUnversioned, fUnversionedB}

	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := i; !stop.Load(); j++ {
				g.Enabled(names[j%len(names)])
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range g.Changed() {
			if stop.Load() {
				return
			}
			g.Uses()
			g.Known()
		}
	}()

	emulations := []string{"1.34", "1.35", "1.36"}
	for i := range 200 {
		if err := g.SetFromMap(map[string]bool{string(fBetaOn): i%2 == 0, string(fAlpha): i%3 == 0}); err != nil {
			t.Fatal(err)
		}
		if err := g.ResetFeatureValueToDefault(fAlpha); err != nil {
			t.Fatal(err)
		}
		if err := g.SetEmulationVersion(version.MustParse(emulations[i%len(emulations)])); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			g.Refresh()
			g.DeepCopy()
		}
	}
	stop.Store(true)
	g.signal()
	wg.Wait()

	if got, want := len(g.Uses()), len(names); got != want {
		t.Errorf("%d features used, want %d: %v", got, want, g.Uses())
	}
	cp := g.Inner().DeepCopy()
	for _, name := range names {
		if a, b := cp.Enabled(name), g.Enabled(name); a != b {
			t.Errorf("Enabled(%s) = %v, upstream says %v", name, b, a)
		}
	}
}
