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
	"maps"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

// Gate is a drop-in featuregate.MutableVersionedFeatureGate that remembers which
// gates the process checked.
//
// Every mutating method passes through to the wrapped gate and then rebuilds an
// immutable snapshot of the value of every known feature; read-only methods
// other than Enabled pass through unchanged. Enabled answers from the snapshot
// and marks the feature as used with a single atomic load on the common path.
//
// Use Wrap to create a Gate; the zero value is not usable. A Gate is safe for
// concurrent use.
//
// Design notes:
//
//   - The snapshot values are computed on inner.DeepCopy(), never on inner, so
//     building a snapshot does not add to the set of features upstream's
//     gate remembers as "queried".
//   - Upstream's Enabled records each queried feature; the only use of that
//     record is a warning logged by SetEmulationVersion[AndMinCompatibilityVersion]
//     when a change of version flips an already-queried feature. To keep that
//     warning identical, the first check of a feature through the wrapper (and
//     the first check after each change of the emulation or min compatibility
//     version, which is when upstream forgets its record) is forwarded to
//     inner.Enabled. Later checks do not touch inner.
//   - AddMetrics passes through to inner; the checks it makes to record the
//     feature-info metric are not uses of the process and are not remembered.
type Gate struct {
	inner     featuregate.MutableVersionedFeatureGate
	component string

	// snap is the current snapshot. Snapshots are immutable; a new one is
	// stored, under mu, after every mutation.
	snap atomic.Pointer[snapshot]

	// changed receives a coalescing signal (capacity 1, non-blocking sends)
	// when a feature is used for the first time or a rebuild changes the
	// snapshot.
	changed chan struct{}

	// mu serializes mutations of inner with snapshot rebuilds, so snapshots
	// are published in the order of the mutations. It guards usage. Enabled
	// never takes it on its common path.
	mu sync.Mutex
	// usage holds one record per feature that ever appeared in a snapshot or
	// was checked through Enabled. Records are never removed or replaced, so
	// the marks they hold survive snapshot rebuilds.
	usage map[featuregate.Feature]*usage
	// configured holds the gates this process's own configuration set
	// (Set, SetFromMap: flags and configuration files); a followed Feature
	// does not override them. Guarded by mu.
	configured map[featuregate.Feature]bool
	// followed holds how each gate whose value follows a Feature's desired
	// state follows it (Follow). Guarded by mu.
	followed map[featuregate.Feature]Following
	// optedIn holds the management this process's configuration opts gates
	// into (kube-apiserver's --feature-lifecycle-*-gates), which it reports.
	// Guarded by mu.
	optedIn map[featuregate.Feature]featuresv1alpha1.FeatureManagement
}

// usage records whether, and in which query epoch, a feature was last
// checked through Gate.Enabled.
type usage struct {
	// epoch is 0 until the feature is first checked through Enabled. After
	// that it is the query epoch of the snapshot whose check was last
	// forwarded to inner.Enabled. Epochs only grow.
	epoch atomic.Uint64
}

// entry is the snapshot's answer for one feature.
type entry struct {
	use   *usage
	value bool
}

// snapshot is an immutable view of the values inner's Enabled answers.
type snapshot struct {
	entries map[featuregate.Feature]entry
	// epoch numbers the periods during which upstream's record of queried
	// features accumulates: it starts at 1 and grows by one whenever a
	// rebuild sees a different emulation or min compatibility version,
	// because upstream forgets its record exactly then.
	epoch                   uint64
	emulationVersion        *version.Version
	minCompatibilityVersion *version.Version
}

var (
	_ featuregate.MutableVersionedFeatureGate           = &Gate{}
	_ featuregate.MutableFeatureGateWithLogger          = &Gate{}
	_ featuregate.MutableVersionedFeatureGateWithLogger = &Gate{}
	_ pflag.Value                                       = &Gate{}
)

// Wrap returns a reporting gate over inner for the named component
// (e.g. "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet").
// inner must not be nil. From then on inner should only be mutated through the
// returned Gate; see Refresh otherwise.
func Wrap(inner featuregate.MutableVersionedFeatureGate, component string) *Gate {
	g := &Gate{
		inner:      inner,
		component:  component,
		changed:    make(chan struct{}, 1),
		usage:      map[featuregate.Feature]*usage{},
		configured: map[featuregate.Feature]bool{},
		followed:   map[featuregate.Feature]Following{},
		optedIn:    map[featuregate.Feature]featuresv1alpha1.FeatureManagement{},
	}
	g.mu.Lock()
	g.rebuildLocked()
	g.mu.Unlock()
	return g
}

// Component returns the component name given to Wrap.
func (g *Gate) Component() string { return g.component }

// Inner returns the wrapped gate. Mutating it directly bypasses the snapshot;
// call Refresh afterwards.
func (g *Gate) Inner() featuregate.MutableVersionedFeatureGate { return g.inner }

// Uses returns, for every gate this process has checked through Enabled since
// Wrap (including before any client existed), the value Enabled answers now.
func (g *Gate) Uses() map[featuregate.Feature]bool {
	s := g.snap.Load()
	uses := make(map[featuregate.Feature]bool)
	for name, e := range s.entries {
		if e.use.epoch.Load() != 0 {
			uses[name] = e.value
		}
	}
	return uses
}

// Known returns the value Enabled answers now for every known gate, checked or
// not (kube-apiserver reports all of them). It lists every registered feature,
// including the AllAlpha and AllBeta pseudo-gates and features that are not
// yet available at the emulation version (those answer false); GetAll tells
// which of them are available.
func (g *Gate) Known() map[featuregate.Feature]bool {
	s := g.snap.Load()
	known := make(map[featuregate.Feature]bool, len(s.entries))
	for name, e := range s.entries {
		known[name] = e.value
	}
	return known
}

// Changed returns a channel that receives (non-blocking, capacity 1, so
// signals coalesce) whenever a gate is checked for the first time or a
// mutation changes the snapshot. It is never closed.
func (g *Gate) Changed() <-chan struct{} { return g.changed }

// Refresh rebuilds the snapshot from inner; callers use it after inner was
// mutated behind the wrapper's back (normally never needed).
func (g *Gate) Refresh() {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
}

// Enabled returns true if the key is enabled. It answers exactly what the
// wrapped gate's Enabled answers, and panics like it for unregistered
// features.
func (g *Gate) Enabled(key featuregate.Feature) bool {
	s := g.snap.Load()
	if e, ok := s.entries[key]; ok {
		if e.use.epoch.Load() == s.epoch {
			return e.value
		}
		return g.enabledFirstInEpoch(s, key, e)
	}
	return g.enabledUnknown(key)
}

// enabledFirstInEpoch handles the first check of a feature in a query epoch:
// it marks the feature as used, signals Changed on the very first use, and
// forwards the check to inner.Enabled so that inner records the feature as
// queried exactly as it would without the wrapper.
func (g *Gate) enabledFirstInEpoch(s *snapshot, key featuregate.Feature, e entry) bool {
	for {
		old := e.use.epoch.Load()
		if old >= s.epoch {
			// Recorded concurrently, or s is already stale.
			return e.value
		}
		if e.use.epoch.CompareAndSwap(old, s.epoch) {
			if old == 0 {
				g.signal()
			}
			// Only for its side effect; answer from the snapshot like Uses does.
			g.inner.Enabled(key)
			return e.value
		}
	}
}

// enabledUnknown handles a key the snapshot cannot answer. inner.Enabled panics
// for unregistered features, exactly as without the wrapper. If inner does
// answer, the feature was registered behind the wrapper's back: remember the
// use and rebuild the snapshot once, so that later checks are fast.
func (g *Gate) enabledUnknown(key featuregate.Feature) bool {
	v := g.inner.Enabled(key)

	g.mu.Lock()
	u, seen := g.usage[key]
	if !seen {
		u = &usage{}
		g.usage[key] = u
	}
	first := u.epoch.Load() == 0
	if first {
		u.epoch.Store(g.snap.Load().epoch)
	}
	if !seen {
		g.rebuildLocked()
	}
	g.mu.Unlock()

	if first {
		g.signal()
	}
	return v
}

// signal performs a non-blocking send on the Changed channel.
func (g *Gate) signal() {
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// rebuildAndUnlock rebuilds the snapshot and releases mu. Mutating methods
// defer it right after taking mu.
func (g *Gate) rebuildAndUnlock() {
	defer g.mu.Unlock()
	g.rebuildLocked()
}

// rebuildLocked computes a new snapshot from a deep copy of inner and
// publishes it. g.mu must be held.
func (g *Gate) rebuildLocked() {
	cp := g.inner.DeepCopy()
	emulationVersion, minCompatibilityVersion := cp.EmulationVersion(), cp.MinCompatibilityVersion()
	values := evaluate(cp)
	// Features checked through Enabled that inner answers for although it does
	// not list them (a gate implementation other than upstream's).
	for name := range g.usage {
		if _, ok := values[name]; !ok {
			if v, ok := tryEnabled(cp, name); ok {
				values[name] = v
			}
		}
	}

	old := g.snap.Load()
	epoch := uint64(1)
	if old != nil {
		epoch = old.epoch
		if !sameVersion(old.emulationVersion, emulationVersion) || !sameVersion(old.minCompatibilityVersion, minCompatibilityVersion) {
			epoch++
		}
	}

	entries := make(map[featuregate.Feature]entry, len(values))
	for name, v := range values {
		u := g.usage[name]
		if u == nil {
			u = &usage{}
			g.usage[name] = u
		}
		entries[name] = entry{use: u, value: v}
	}
	g.snap.Store(&snapshot{
		entries:                 entries,
		epoch:                   epoch,
		emulationVersion:        emulationVersion,
		minCompatibilityVersion: minCompatibilityVersion,
	})

	if old != nil && !sameValues(old.entries, entries) {
		g.signal()
	}
}

func sameVersion(a, b *version.Version) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.EqualTo(b)
}

func sameValues(a, b map[featuregate.Feature]entry) bool {
	if len(a) != len(b) {
		return false
	}
	for name, ea := range a {
		if eb, ok := b[name]; !ok || ea.value != eb.value {
			return false
		}
	}
	return true
}

// tryEnabled calls gate.Enabled, reporting false instead of panicking for
// features gate does not know.
func tryEnabled(gate featuregate.FeatureGate, name featuregate.Feature) (value, ok bool) {
	defer func() {
		if recover() != nil {
			value, ok = false, false
		}
	}()
	return gate.Enabled(name), true
}

// evaluate returns the value Enabled answers for every feature registered in
// cp. cp is a private copy: evaluate may query it freely.
func evaluate(cp featuregate.MutableVersionedFeatureGate) map[featuregate.Feature]bool {
	if wrapped, ok := cp.(*Gate); ok {
		return wrapped.Known()
	}
	if values, ok := evaluateUpstream(cp); ok {
		return values
	}
	return evaluateGeneric(cp)
}

// evaluateGeneric calls cp.Enabled for every registered feature. It is exact
// for any implementation, but on upstream's gate each first query of a
// feature clones the set of queried features, which makes it quadratic.
func evaluateGeneric(cp featuregate.MutableVersionedFeatureGate) map[featuregate.Feature]bool {
	known := cp.GetAllVersioned()
	values := make(map[featuregate.Feature]bool, len(known))
	for name := range known {
		values[name] = cp.Enabled(name)
	}
	return values
}

// upstreamGateType is the dynamic type of component-base's gate implementation.
var upstreamGateType = sync.OnceValue(func() reflect.Type {
	return reflect.TypeOf(featuregate.NewVersionedFeatureGate(version.MajorMinor(0, 0)))
})

// evaluateUpstream computes in linear time what evaluateGeneric computes, for
// component-base's own gate implementation only. Upstream's Enabled answers
// the feature's entry in the gate's resolved map of set features if there is
// one, otherwise the Default of the feature's spec at the emulation and min
// compatibility versions. The resolved map is what the gate's String method
// (it is the gate's pflag.Value) prints, and GetAll returns those specs for
// every feature that is available at the emulation version. The few features
// that are not available yet are asked through Enabled. ok is false when the
// shortcut does not apply; the caller then falls back to evaluateGeneric.
func evaluateUpstream(cp featuregate.MutableVersionedFeatureGate) (values map[featuregate.Feature]bool, ok bool) {
	if reflect.TypeOf(cp) != upstreamGateType() {
		return nil, false
	}
	stringer, ok := cp.(fmt.Stringer)
	if !ok {
		return nil, false
	}
	known := cp.GetAllVersioned()
	set, ok := parseResolved(stringer.String(), known)
	if !ok {
		return nil, false
	}
	specs := cp.GetAll()
	values = make(map[featuregate.Feature]bool, len(known))
	for name := range known {
		if v, ok := set[name]; ok {
			values[name] = v
		} else if spec, ok := specs[name]; ok {
			values[name] = spec.Default
		} else {
			values[name] = cp.Enabled(name)
		}
	}
	return values, true
}

// parseResolved parses upstream's String form "A=true,B=false". It reports
// false if anything is unexpected: a malformed pair, a name that is not
// registered (a name containing ',' or '=' cannot be told apart) or a
// duplicate.
func parseResolved(s string, known map[featuregate.Feature]featuregate.VersionedSpecs) (map[featuregate.Feature]bool, bool) {
	set := map[featuregate.Feature]bool{}
	if s == "" {
		return set, true
	}
	for pair := range strings.SplitSeq(s, ",") {
		i := strings.LastIndexByte(pair, '=')
		if i < 0 {
			return nil, false
		}
		name := featuregate.Feature(pair[:i])
		if _, ok := known[name]; !ok {
			return nil, false
		}
		if _, dup := set[name]; dup {
			return nil, false
		}
		switch pair[i+1:] {
		case "true":
			set[name] = true
		case "false":
			set[name] = false
		default:
			return nil, false
		}
	}
	return set, true
}

// KnownFeatures returns a slice of strings describing the FeatureGate's known
// features. It passes through to the wrapped gate.
func (g *Gate) KnownFeatures() []string { return g.inner.KnownFeatures() }

// Dependencies returns a copy of the known feature dependencies. It passes
// through to the wrapped gate.
func (g *Gate) Dependencies() map[featuregate.Feature][]featuregate.Feature {
	return g.inner.Dependencies()
}

// DeepCopy returns a new Gate, for the same component, over a deep copy of
// the wrapped gate. The copy is a different gate: it starts with no uses.
func (g *Gate) DeepCopy() featuregate.MutableVersionedFeatureGate {
	return Wrap(g.inner.DeepCopy(), g.component)
}

// DeepCopyAndReset returns a new Gate, for the same component, over the
// wrapped gate's DeepCopyAndReset. The copy starts with no uses.
func (g *Gate) DeepCopyAndReset() featuregate.MutableVersionedFeatureGate {
	return Wrap(g.inner.DeepCopyAndReset(), g.component)
}

// Validate checks if the flag gates are valid at the emulated version. It
// passes through to the wrapped gate.
func (g *Gate) Validate() []error { return g.inner.Validate() }

// AddFlag adds a flag for setting global feature gates to the specified
// FlagSet. The flag is the one the wrapped gate's AddFlag defines (same name,
// usage, type and default), except that values parsed from it go through the
// Gate, so the snapshot follows them. Like upstream's, it closes the gate.
func (g *Gate) AddFlag(fs *pflag.FlagSet) {
	scratch := pflag.NewFlagSet("", pflag.ContinueOnError)
	g.inner.AddFlag(scratch)
	scratch.VisitAll(func(f *pflag.Flag) {
		flag := *f
		flag.Value = &flagValue{gate: g, inner: f.Value}
		fs.AddFlag(&flag)
	})
}

// flagValue is the pflag.Value of a flag defined by the wrapped gate's
// AddFlag, routed through the Gate.
type flagValue struct {
	gate  *Gate
	inner pflag.Value
}

// Set sets the wrapped flag value and rebuilds the snapshot.
func (v *flagValue) Set(s string) error {
	v.gate.mu.Lock()
	defer v.gate.rebuildAndUnlock()
	return v.inner.Set(s)
}

// String returns the wrapped flag value's String.
func (v *flagValue) String() string { return v.inner.String() }

// Type returns the wrapped flag value's Type.
func (v *flagValue) Type() string { return v.inner.Type() }

// Close sets closed to true, and prevents subsequent calls to Add. It passes
// through to the wrapped gate; values do not change, so the snapshot is kept.
func (g *Gate) Close() { g.inner.Close() }

// Set parses and stores flag gates for known features from a string like
// feature1=true,feature2=false,...
func (g *Gate) Set(value string) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	g.recordConfigured(value)
	return g.inner.Set(value)
}

// recordConfigured records the gates a flag value such as
// "feature1=true,feature2=false" sets. g.mu must be held.
func (g *Gate) recordConfigured(value string) {
	for _, pair := range strings.Split(value, ",") {
		if name, _, ok := strings.Cut(strings.TrimSpace(pair), "="); ok && name != "" {
			g.configured[featuregate.Feature(strings.TrimSpace(name))] = true
		}
	}
}

// recordConfiguredMap records the gates m sets. g.mu must be held.
func (g *Gate) recordConfiguredMap(m map[string]bool) {
	for name := range m {
		g.configured[featuregate.Feature(name)] = true
	}
}

// SetWithLogger is Set with a logger, as upstream's gate offers. It falls back
// to Set if the wrapped gate has no logger variant.
func (g *Gate) SetWithLogger(logger klog.Logger, value string) error {
	helper, logger := logger.WithCallStackHelper()
	helper()
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	g.recordConfigured(value)
	if l, ok := g.inner.(featuregate.MutableFeatureGateWithLogger); ok {
		return l.SetWithLogger(logger, value)
	}
	return g.inner.Set(value)
}

// String returns the wrapped gate's String (upstream's lists the features set
// explicitly or through AllAlpha/AllBeta), so that a Gate is a pflag.Value
// like upstream's gate.
func (g *Gate) String() string {
	if s, ok := g.inner.(fmt.Stringer); ok {
		return s.String()
	}
	return ""
}

// Type returns the wrapped gate's pflag type name ("mapStringBool" for
// upstream's gate).
func (g *Gate) Type() string {
	if v, ok := g.inner.(pflag.Value); ok {
		return v.Type()
	}
	return "mapStringBool"
}

// SetFromMap stores flag gates for known features from a map[string]bool or
// returns an error.
func (g *Gate) SetFromMap(m map[string]bool) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	g.recordConfiguredMap(m)
	return g.inner.SetFromMap(m)
}

// SetFromMapWithLogger is SetFromMap with a logger, as upstream's gate offers.
// It falls back to SetFromMap if the wrapped gate has no logger variant.
func (g *Gate) SetFromMapWithLogger(logger klog.Logger, m map[string]bool) error {
	helper, logger := logger.WithCallStackHelper()
	helper()
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	g.recordConfiguredMap(m)
	if l, ok := g.inner.(featuregate.MutableFeatureGateWithLogger); ok {
		return l.SetFromMapWithLogger(logger, m)
	}
	return g.inner.SetFromMap(m)
}

// Add adds features to the featureGate.
func (g *Gate) Add(features map[featuregate.Feature]featuregate.FeatureSpec) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.Add(features)
}

// GetAll returns a copy of the map of known feature names to feature specs.
// It passes through to the wrapped gate.
func (g *Gate) GetAll() map[featuregate.Feature]featuregate.FeatureSpec {
	return g.inner.GetAll()
}

// AddMetrics adds feature enablement metrics. It passes through to the
// wrapped gate; its checks are not remembered as uses.
func (g *Gate) AddMetrics() { g.inner.AddMetrics() }

// OverrideDefault sets a local override for the registered default value of a
// named feature.
func (g *Gate) OverrideDefault(name featuregate.Feature, override bool) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.OverrideDefault(name, override)
}

// OverrideDefaultWithLogger is OverrideDefault with a logger, as upstream's
// gate offers. It falls back to OverrideDefault if the wrapped gate has no
// logger variant.
func (g *Gate) OverrideDefaultWithLogger(logger klog.Logger, name featuregate.Feature, override bool) error {
	helper, logger := logger.WithCallStackHelper()
	helper()
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	if l, ok := g.inner.(featuregate.MutableFeatureGateWithLogger); ok {
		return l.OverrideDefaultWithLogger(logger, name, override)
	}
	return g.inner.OverrideDefault(name, override)
}

// EmulationVersion returns the version the feature gate is set to emulate. It
// passes through to the wrapped gate.
func (g *Gate) EmulationVersion() *version.Version { return g.inner.EmulationVersion() }

// MinCompatibilityVersion returns the minimum version of all control plane
// components that the current server must maintain compatibility with. It
// passes through to the wrapped gate.
func (g *Gate) MinCompatibilityVersion() *version.Version {
	return g.inner.MinCompatibilityVersion()
}

// SetEmulationVersion overrides the emulationVersion of the feature gate, and
// the minCompatibilityVersion to 1 minor before it.
func (g *Gate) SetEmulationVersion(emulationVersion *version.Version) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.SetEmulationVersion(emulationVersion)
}

// SetEmulationVersionWithLogger is SetEmulationVersion with a logger, as
// upstream's gate offers. It falls back to SetEmulationVersion if the wrapped
// gate has no logger variant.
func (g *Gate) SetEmulationVersionWithLogger(logger klog.Logger, emulationVersion *version.Version) error {
	helper, logger := logger.WithCallStackHelper()
	helper()
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	if l, ok := g.inner.(featuregate.MutableVersionedFeatureGateWithLogger); ok {
		return l.SetEmulationVersionWithLogger(logger, emulationVersion)
	}
	return g.inner.SetEmulationVersion(emulationVersion)
}

// SetEmulationVersionAndMinCompatibilityVersion overrides the emulationVersion
// and minCompatibilityVersion of the feature gate.
func (g *Gate) SetEmulationVersionAndMinCompatibilityVersion(emulationVersion *version.Version, minCompatibilityVersion *version.Version) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.SetEmulationVersionAndMinCompatibilityVersion(emulationVersion, minCompatibilityVersion)
}

// SetEmulationVersionAndMinCompatibilityVersionWithLogger is
// SetEmulationVersionAndMinCompatibilityVersion with a logger, as upstream's
// gate offers. It falls back to the variant without logger if the wrapped
// gate has no logger variant.
func (g *Gate) SetEmulationVersionAndMinCompatibilityVersionWithLogger(logger klog.Logger, emulationVersion *version.Version, minCompatibilityVersion *version.Version) error {
	helper, logger := logger.WithCallStackHelper()
	helper()
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	if l, ok := g.inner.(featuregate.MutableVersionedFeatureGateWithLogger); ok {
		return l.SetEmulationVersionAndMinCompatibilityVersionWithLogger(logger, emulationVersion, minCompatibilityVersion)
	}
	return g.inner.SetEmulationVersionAndMinCompatibilityVersion(emulationVersion, minCompatibilityVersion)
}

// GetAllVersioned returns a copy of the map of known feature names to
// versioned feature specs. It passes through to the wrapped gate.
func (g *Gate) GetAllVersioned() map[featuregate.Feature]featuregate.VersionedSpecs {
	return g.inner.GetAllVersioned()
}

// AddVersioned adds versioned feature specs to the featureGate.
func (g *Gate) AddVersioned(features map[featuregate.Feature]featuregate.VersionedSpecs) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.AddVersioned(features)
}

// AddDependencies marks features that depend on other features.
func (g *Gate) AddDependencies(features map[featuregate.Feature][]featuregate.Feature) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.AddDependencies(features)
}

// OverrideDefaultAtVersion sets a local override for the registered default
// value of a named feature for the prerelease lifecycle the given version is
// at.
func (g *Gate) OverrideDefaultAtVersion(name featuregate.Feature, override bool, ver *version.Version) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.OverrideDefaultAtVersion(name, override, ver)
}

// OverrideDefaultAtVersionWithLogger is OverrideDefaultAtVersion with a
// logger, as upstream's gate offers. It falls back to OverrideDefaultAtVersion
// if the wrapped gate has no logger variant.
func (g *Gate) OverrideDefaultAtVersionWithLogger(logger klog.Logger, name featuregate.Feature, override bool, ver *version.Version) error {
	helper, logger := logger.WithCallStackHelper()
	helper()
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	if l, ok := g.inner.(featuregate.MutableVersionedFeatureGateWithLogger); ok {
		return l.OverrideDefaultAtVersionWithLogger(logger, name, override, ver)
	}
	return g.inner.OverrideDefaultAtVersion(name, override, ver)
}

// ExplicitlySet returns true if the feature value is explicitly set instead of
// being derived from the default values or special features. It passes
// through to the wrapped gate.
func (g *Gate) ExplicitlySet(name featuregate.Feature) bool { return g.inner.ExplicitlySet(name) }

// ResetFeatureValueToDefault resets the value of the feature back to the
// default value.
func (g *Gate) ResetFeatureValueToDefault(name featuregate.Feature) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	return g.inner.ResetFeatureValueToDefault(name)
}

// configuredExplicitly reports whether this process's own configuration
// (Set, SetFromMap) set the gate.
func (g *Gate) configuredExplicitly(name featuregate.Feature) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.configured[name]
}

// setFollowed sets the values of followed gates, which are not recorded as
// configured, and replaces the record of how gates follow their Features.
func (g *Gate) setFollowed(values map[string]bool, following map[featuregate.Feature]Following) error {
	g.mu.Lock()
	defer g.rebuildAndUnlock()
	g.followed = following
	g.signal()
	if len(values) == 0 {
		return nil
	}
	return g.inner.SetFromMap(values)
}

// Followed returns how each gate whose value follows a Feature follows it.
func (g *Gate) Followed() map[featuregate.Feature]Following {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.followed)
}

// OptIn records the management this process's configuration opts gates
// into, which its report states (kube-apiserver's
// --feature-lifecycle-central-gates and --feature-lifecycle-dynamic-gates).
func (g *Gate) OptIn(modes map[featuregate.Feature]featuresv1alpha1.FeatureManagement) {
	g.mu.Lock()
	g.optedIn = maps.Clone(modes)
	g.mu.Unlock()
	g.signal()
}

// Management returns what the report of a gate says about where its value
// comes from: the management the gate is opted into, or follows, unless
// the process's own configuration set it; and whether the value came from
// the local cache.
func (g *Gate) Management(name featuregate.Feature) (featuresv1alpha1.FeatureManagement, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if mode, ok := g.optedIn[name]; ok {
		return mode, false
	}
	if f, ok := g.followed[name]; ok && !g.configured[name] {
		return f.Management, f.Cached
	}
	return "", false
}
