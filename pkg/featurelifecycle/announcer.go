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

// Package featurelifecycle is the server flow of KEP-3920: it announces a
// Feature for every gate kube-apiserver knows and, in later stages, leads
// transitions and runs their tasks.
package featurelifecycle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/features/inventory"
)

// KubeNamespace is the namespace of Kubernetes' own Features.
const KubeNamespace = metav1.NamespaceSystem

// pseudoGates are registered in every gate but switch groups of gates; they
// are not features of their own.
var pseudoGates = map[featuregate.Feature]bool{"AllAlpha": true, "AllBeta": true}

// Announcer creates a Feature in its namespace for every gate of a feature
// gate set and records the gate's spec and configured value in its status.
// It is idempotent, and several apiservers may announce at once: creation
// tolerates AlreadyExists and status writes retry on conflict.
type Announcer struct {
	Client    featuresclient.Interface
	Gate      featuregate.MutableVersionedFeatureGate
	Namespace string
	// Workers bounds the number of Features written concurrently.
	Workers int
}

// Gates returns the gates to announce, sorted, leaving out pseudo-gates and
// every gate whose Feature name collides with another's (logged).
func (a *Announcer) Gates() []featuregate.Feature {
	all := a.Gate.GetAll()
	names := make([]string, 0, len(all))
	for f, spec := range all {
		// A PreAlpha gate does not exist yet at the emulation version.
		if !pseudoGates[f] && spec.PreRelease != featuregate.PreAlpha {
			names = append(names, string(f))
		}
	}
	refused := sets.New[string]()
	for _, c := range nameCollisions(names) {
		klog.ErrorS(c, "Refusing to announce feature gates whose Feature names collide", "name", c.Name, "gates", c.Gates)
		refused.Insert(c.Gates...)
	}
	announced := sets.List(sets.New(names...).Difference(refused))
	gates := make([]featuregate.Feature, 0, len(announced))
	for _, n := range announced {
		gates = append(gates, featuregate.Feature(n))
	}
	return gates
}

// Run announces every gate, retrying with backoff until all are announced or
// ctx ends.
func (a *Announcer) Run(ctx context.Context) error {
	backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: math.MaxInt32, Cap: 30 * time.Second}
	return wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		if err := a.AnnounceAll(ctx); err != nil {
			klog.FromContext(ctx).Info("Announcing features failed, will retry", "err", err)
			return false, nil
		}
		return true, nil
	})
}

// errNotAttempted marks a gate AnnounceAll did not get to.
var errNotAttempted = errors.New("not attempted")

// AnnounceAll announces every gate once and returns the errors it met.
func (a *Announcer) AnnounceAll(ctx context.Context) error {
	gates := a.Gates()
	specs := a.Gate.GetAll()
	// One list tells which Features exist and are described already: a
	// restart of an apiserver whose Features all exist writes nothing (it
	// was two requests per gate).
	list, err := a.Client.FeaturesV1alpha1().Features(a.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	existing := make(map[string]*featuresv1alpha1.Feature, len(list.Items))
	for i := range list.Items {
		existing[list.Items[i].Name] = &list.Items[i]
	}
	// errs[i] is the error of gates[i]; a gate that ParallelizeUntil did not
	// get to because ctx ended keeps errNotAttempted.
	errs := make([]error, len(gates))
	for i := range errs {
		errs[i] = errNotAttempted
	}
	workqueue.ParallelizeUntil(ctx, max(a.Workers, 1), len(gates), func(i int) {
		errs[i] = a.announce(ctx, gates[i], specs[gates[i]], existing[featuresv1alpha1.FeatureName(string(gates[i]))])
	})
	var failed []error
	for i, err := range errs {
		if err == errNotAttempted && ctx.Err() != nil {
			err = ctx.Err() // ParallelizeUntil skips pieces only once ctx has ended
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", gates[i], err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d features not announced: %w", len(failed), len(gates), utilerrors.NewAggregate(failed))
	}
	klog.FromContext(ctx).Info("Announced features", "count", len(gates), "namespace", a.Namespace)
	return nil
}

// Announce makes sure the Feature of one gate exists and that its status
// holds the gate's spec at the current emulation version. A Feature without a
// state gets the configured value; a Feature that has a state and a version
// is left to its leader (the lifecycle controller), which keeps it current.
func (a *Announcer) Announce(ctx context.Context, gate featuregate.Feature, spec featuregate.FeatureSpec) error {
	return a.announce(ctx, gate, spec, nil)
}

// announce is Announce, given the Feature as a list found it (nil: not
// found, or not listed).
func (a *Announcer) announce(ctx context.Context, gate featuregate.Feature, spec featuregate.FeatureSpec, listed *featuresv1alpha1.Feature) error {
	features := a.Client.FeaturesV1alpha1().Features(a.Namespace)
	name := featuresv1alpha1.FeatureName(string(gate))
	if listed != nil && listed.Spec.Gate == string(gate) && listed.Status.State != "" && listed.Status.Version != "" {
		return nil // announced: its leader keeps it current
	}
	enabled := a.Gate.Enabled(gate)
	desired := featuresv1alpha1.FeatureDesiredStateDisabled
	if enabled {
		desired = featuresv1alpha1.FeatureDesiredStateEnabled
	}
	if listed == nil {
		_, err := features.Create(ctx, &featuresv1alpha1.Feature{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: featuresv1alpha1.FeatureSpec{
				Gate:         string(gate),
				DesiredState: desired,
				Management:   featuresv1alpha1.FeatureManagementCommandLine,
			},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}

	version := VersionOf(a.Gate)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		f, err := features.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if f.Spec.Gate != string(gate) {
			return fmt.Errorf("feature %s/%s belongs to gate %q, not %q", a.Namespace, name, f.Spec.Gate, gate)
		}
		// The description of an announced Feature is kept current by the
		// Feature's leader, so that apiservers of different versions do not
		// take turns rewriting it during a rolling upgrade.
		if f.Status.State != "" && f.Status.Version != "" {
			return nil
		}
		status := f.Status.DeepCopy()
		if status.State == "" {
			status.State = featuresv1alpha1.FeatureStateDisabled
			if enabled {
				status.State = featuresv1alpha1.FeatureStateEnabled
			}
		}
		if status.Version == "" {
			Describe(status, spec, version)
		}
		status.ObservedGeneration = f.Generation
		f.Status = *status
		_, err = features.UpdateStatus(ctx, f, metav1.UpdateOptions{})
		return err
	})
}

// VersionOf returns the emulation version of gate as "major.minor", the
// version a Feature's status records.
func VersionOf(gate featuregate.MutableVersionedFeatureGate) string {
	v := gate.EmulationVersion()
	return fmt.Sprintf("%d.%d", v.Major(), v.Minor())
}

// Describe writes the gate's spec at version into status: default,
// preRelease, lockToDefault and version. It reports whether anything changed.
func Describe(status *featuresv1alpha1.FeatureStatus, spec featuregate.FeatureSpec, version string) bool {
	changed := !ptr.Equal(status.Default, &spec.Default) || status.PreRelease != inventory.PreRelease(spec) ||
		status.LockToDefault != spec.LockToDefault || status.Version != version
	status.Default = ptr.To(spec.Default)
	status.PreRelease = inventory.PreRelease(spec)
	status.LockToDefault = spec.LockToDefault
	status.Version = version
	return changed
}

// nameCollision is a set of distinct gates that map to the same Feature name.
type nameCollision struct {
	// Name is the object name the gates share.
	Name string
	// Gates are the gate names, sorted.
	Gates []string
}

func (c nameCollision) Error() string {
	return fmt.Sprintf("feature gates %s all map to the Feature name %q", strings.Join(c.Gates, ", "), c.Name)
}

// nameCollisions returns, sorted by name, every Feature name that more than one
// of the distinct gates maps to. Callers must refuse to announce those gates:
// two gates cannot share one Feature.
func nameCollisions(gates []string) []nameCollision {
	byName := map[string]map[string]struct{}{}
	for _, g := range gates {
		n := featuresv1alpha1.FeatureName(g)
		if byName[n] == nil {
			byName[n] = map[string]struct{}{}
		}
		byName[n][g] = struct{}{}
	}
	var out []nameCollision
	for name, set := range byName {
		if len(set) < 2 {
			continue
		}
		c := nameCollision{Name: name}
		for g := range set {
			c.Gates = append(c.Gates, g)
		}
		sort.Strings(c.Gates)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
