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

package lifecycle

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/pkg/features/lifecycle"
	"k8s.io/kubernetes/test/integration/features/harness"
)

func TestMain(m *testing.M) {
	harness.EtcdMain(m.Run)
}

// waitPeriod is WaitForUses' period in the harness: nothing else reports.
const waitPeriod = 3 * time.Second

// residueScanInterval is the pause between two passes of the scan for data
// of Disabled features (each pass reads a page every 2s).
const residueScanInterval = 2 * time.Second

// absenceMessage matches what WaitForAbsence asks an admin to delete, e.g.
// "3 pods in 2 namespaces use clusterTrustBundle volumes: ns/a, ns/b, ...".
var absenceMessage = regexp.MustCompile(`^\d+ \S+ (?:in \d+ namespaces? )?uses? .*?: (.*)$`)

// TestOnUseOff is the on -> use -> off harness of the lifecycle registry:
// for every registered gate, with no test code of its own, it starts our
// kube-apiserver with the gate on, creates the gate's fixture, restarts the
// apiserver with the gate off, waits for the Feature to reach Disabled (deleting
// what WaitForAbsence tasks ask for, as an admin would, and opting in to
// opt-in tasks), reads every stored object directly from etcd and checks
// that no task still finds what the feature added; then turns the gate on
// again and checks that the feature works. All gates go through it at once,
// grouped by the emulation version they run at (a gate locked at the
// binary's version runs where it can still change).
func TestOnUseOff(t *testing.T) {
	// Beside TestStricterWhenOn: each has its apiserver and etcd prefix,
	// and neither reads the other's gates (withGateOff changes this
	// process's feature gate, which TestStricterWhenOn does not read).
	t.Parallel()
	gates := registeredGates()
	exceptions, err := Exceptions(Dir())
	if err != nil {
		t.Fatal(err)
	}
	fixtures := map[featuregate.Feature][]*unstructured.Unstructured{}
	for _, g := range gates {
		objs, err := Load(Dir(), g)
		if err != nil {
			t.Errorf("registration %s: %v (add pkg/features/lifecycle/testdata/%s, see its README.md)", g, err, g)
			continue
		}
		fixtures[g] = objs
	}
	dirs, err := Gates(Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := registry[d]; !ok {
			t.Errorf("fixture %s has no registration in pkg/features, explicit or derived", d)
		}
	}
	derived, err := lifecycle.Derived(catalog)
	if err != nil {
		t.Fatal(err)
	}
	covered := 0
	for g := range derived {
		if _, explicit := lifecycle.Lifecycles[g]; !explicit && slices.Contains(gates, g) {
			covered++
		}
	}
	t.Logf("%d gates: %d explicit registrations, %d of the %d derived ones with a fixture", len(gates), len(lifecycle.Lifecycles), covered, len(derived))
	for _, g := range slices.Sorted(maps.Keys(exceptions)) {
		t.Logf("exception: %s has no generated fixture: %s", g, exceptions[g])
	}
	known, err := KnownFailures(Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range slices.Sorted(maps.Keys(known)) {
		if !slices.Contains(gates, g) {
			t.Errorf("%s lists %s, which has no fixture", KnownFailuresFile, g)
			continue
		}
		t.Logf("not run, known failure: %s: %s", g, known[g])
	}
	gates = slices.DeleteFunc(gates, func(g featuregate.Feature) bool { _, ok := known[g]; return ok })
	if only := os.Getenv(gatesEnv); only != "" {
		gates = slices.DeleteFunc(gates, func(g featuregate.Feature) bool { return !slices.Contains(strings.Split(only, ","), string(g)) })
		t.Logf("%s: only %v", gatesEnv, gates)
	}
	if t.Failed() {
		return
	}
	res := &results{failed: map[featuregate.Feature]string{}, ran: map[featuregate.Feature]bool{}, done: map[featuregate.Feature]bool{}}
	defer res.report(t, gates, len(known))

	// A gate locked at the binary's version (GA) is turned on and off at
	// the newest version the binary emulates where it can change, with
	// --emulated-version, as a cluster that rolled back an upgrade would.
	byVersion := map[string][]featuregate.Feature{}
	for _, g := range gates {
		v, ok := ChangeableAt(utilfeature.DefaultFeatureGate.DeepCopy(), g)
		if !ok {
			t.Fatalf("%s cannot change at any version this binary emulates: it needs no registration", g)
		}
		byVersion[v.String()] = append(byVersion[v.String()], g)
	}
	current := utilfeature.DefaultFeatureGate.DeepCopy().EmulationVersion().String()
	for _, v := range slices.Sorted(maps.Keys(byVersion)) {
		for i, batch := range batches(byVersion[v], batchSize()) {
			t.Run(fmt.Sprintf("emulated-%s/batch-%d", v, i), func(t *testing.T) {
				var extra []string
				if v != current {
					extra = []string{"--emulated-version=" + v}
				}
				extra = append(extra, runtimeConfig(batch, fixtures, v == current))
				start := time.Now()
				for _, g := range batch {
					res.ran[g] = true
				}
				defer func() {
					if t.Failed() {
						res.failBatch(batch)
					}
					t.Logf("%d gates on -> use -> off -> on in %.1fs: %v", len(batch), time.Since(start).Seconds(), batch)
				}()
				onUseOff(t, batch, fixtures, extra, res)
			})
		}
	}
}

// gatesEnv, when set, lists the gates (comma-separated) the harness runs,
// for working on some: the checks of the whole registry (every fixture
// registered, known failures listed) still run.
const gatesEnv = "FEATUREFLAGS_LIFECYCLE_GATES"

// batchSizeEnv bounds how many gates one apiserver runs at once (0 or
// unset: every gate of an emulation version in one batch, one apiserver
// and one restart per direction for all of them).
const batchSizeEnv = "FEATUREFLAGS_LIFECYCLE_BATCH"

func batchSize() int {
	n, err := strconv.Atoi(os.Getenv(batchSizeEnv))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// batches splits gates into batches of at most n gates (n 0: one batch).
func batches(gates []featuregate.Feature, n int) [][]featuregate.Feature {
	if n <= 0 || n >= len(gates) {
		return [][]featuregate.Feature{gates}
	}
	var out [][]featuregate.Feature
	for len(gates) > 0 {
		k := min(n, len(gates))
		out = append(out, gates[:k])
		gates = gates[k:]
	}
	return out
}

// results are the harness's verdicts per gate.
type results struct {
	// failed maps a gate to its first failure.
	failed map[featuregate.Feature]string
	// done are the gates that went through every step.
	done map[featuregate.Feature]bool
	// ran are the gates a batch ran.
	ran map[featuregate.Feature]bool
}

// fail records that gate failed and fails the test.
func (r *results) fail(t *testing.T, gate featuregate.Feature, format string, args ...interface{}) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if _, ok := r.failed[gate]; !ok {
		r.failed[gate] = msg
	}
	t.Error(msg)
}

// failBatch marks the gates of a failed batch that no check blamed as
// failed: the batch did not get to the end.
func (r *results) failBatch(gates []featuregate.Feature) {
	blamed := false
	for _, g := range gates {
		if _, ok := r.failed[g]; ok {
			blamed = true
		}
	}
	if blamed {
		return
	}
	for _, g := range gates {
		r.failed[g] = "its batch failed"
	}
}

// report logs what the issue asks to measure: gates examined by the
// inventory, gates with a footprint, gates registered, gates with a
// fixture, gates passing on -> use -> off.
func (r *results) report(t *testing.T, gates []featuregate.Feature, known int) {
	inv, err := inventory.Load()
	if err != nil {
		t.Error(err)
		return
	}
	derived, _ := lifecycle.Derived(catalog)
	footprint := 0
	for _, lc := range derived {
		if len(lc.OnDisable)+len(lc.OnEnable) > 0 {
			footprint++
		}
	}
	passing := 0
	for _, g := range gates {
		if r.done[g] && r.failed[g] == "" {
			passing++
		}
	}
	t.Logf("gates examined by the inventory: %d; with a storage footprint (tasks derived): %d; registered (derived and explicit): %d; with a fixture: %d; known failures not run: %d; run: %d; passing on -> use -> off -> on: %d",
		inv.GatesExamined, footprint, len(registry), len(gates)+known, known, len(r.ran), passing)
	for _, g := range slices.Sorted(maps.Keys(r.failed)) {
		t.Logf("failed: %s: %s", g, r.failed[g])
	}
}

// onUseOff runs the harness for gates on one apiserver, started with extra
// flags.
func onUseOff(t *testing.T, gates []featuregate.Feature, fixtures map[featuregate.Feature][]*unstructured.Unstructured, extra []string, res *results) {
	ctx := context.Background()
	flags := func(gates []featuregate.Feature, on bool) []string {
		return append(flags(t, gates, on), extra...)
	}
	prefix := harness.SharedEtcd().Prefix
	apiserver := harness.StartAPIServerProcess(t, "lifecycle", prefix, flags(gates, true)...)
	defer func() {
		if t.Failed() {
			t.Logf("the end of the apiserver's log:\n%s", apiserver.LogTail(12000))
		}
	}()
	config := apiserver.ClientConfig()
	// Many gates are polled at once: client-go's default 5 QPS would make
	// every poll of every Feature wait.
	config.QPS, config.Burst = 200, 400
	admin := featuresclient.NewForConfigOrDie(config)
	dyn := dynamic.NewForConfigOrDie(config)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(config)))

	// A gate whose fixture the apiserver refuses fails; the others go on.
	all := gates
	gates = nil
	for _, g := range all {
		ok := true
		for _, obj := range fixtures[g] {
			if err := createObject(dyn, mapper, obj); err != nil {
				res.fail(t, g, "%s: creating fixture %s %s/%s: %v", g, obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				ok = false
				break
			}
		}
		if ok {
			gates = append(gates, g)
		}
	}
	// An admin opts in to the opt-in tasks before turning the gates off.
	for _, g := range gates {
		var optIn []string
		for _, task := range registry[g].OnDisable {
			if tasks.IsOptIn(task) {
				optIn = append(optIn, task.Name())
			}
		}
		if len(optIn) > 0 {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, tasks.OptInAnnotation, strings.Join(optIn, ","))
			if _, err := admin.FeaturesV1alpha1().Features("kube-system").Patch(ctx, featuresv1alpha1.FeatureName(string(g)), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatalf("opting in to %v of %s: %v", optIn, g, err)
			}
		}
	}
	// Every task must find what its fixture stored, or the fixture does not
	// exercise the feature.
	stored := readEtcd(t, prefix)
	backup := stored
	using := gates[:0:0]
	for _, g := range gates {
		ok := true
		for _, task := range registry[g].OnDisable {
			in, isIn := task.(tasks.Inspector)
			if !isIn {
				continue
			}
			held := holding(g, task.Name(), stored, in)
			if len(held) == 0 {
				res.fail(t, g, "%s: task %s finds nothing in the stored fixture; the fixture must use the feature", g, task.Name())
				ok = false
				continue
			}
			t.Logf("%s: with the gate on, etcd holds what task %s looks for in %d objects: %s", g, task.Name(), len(held), strings.Join(held[:min(len(held), 3)], ", "))
		}
		if ok {
			using = append(using, g)
		}
	}
	gates = using

	// Disabled: every Feature reaches Disabled; delete what WaitForAbsence asks for.
	apiserver.Restart(t, flags(all, false)...)
	start := time.Now()
	waitForStates(t, res, admin, gates, featuresv1alpha1.FeatureStateDisabled, func(f *featuresv1alpha1.Feature) {
		deleteWhatIsAskedFor(t, dyn, mapper, f)
	})
	t.Logf("every registered Feature reached Disabled %.1fs after the apiserver restarted with the gates off (wait period %s)", time.Since(start).Seconds(), waitPeriod)

	stored = readEtcd(t, prefix)
	for _, g := range gates {
		for _, task := range registry[g].OnDisable {
			in, ok := task.(tasks.Inspector)
			if !ok {
				continue
			}
			if left := holding(g, task.Name(), stored, in); len(left) > 0 {
				res.fail(t, g, "%s is Disabled but etcd still holds what task %s clears or waits for: %s", g, task.Name(), strings.Join(left, ", "))
			} else {
				t.Logf("%s is Disabled: etcd holds nothing task %s looks for", g, task.Name())
			}
		}
	}
	checkControls(ctx, t, res, dyn, mapper, gates, fixtures, backup, readEtcd(t, prefix))

	// The third state: restore, as from a backup taken while the gates were
	// on, what the tasks cleared or waited for. The residue scan finds it,
	// the Features go back to Disabling with StoredDataRemains naming it,
	// the tasks run again, and the Features end Disabled with nothing left.
	restored := restore(t, backup, gates)
	start = time.Now()
	// The scan reads each resource at 100 objects every 2 s (scan
	// interval 2 s), Feature after Feature: with 40 gates and the cores
	// shared, a pass takes minutes.
	var notFound []featuregate.Feature
	cleanedUp := map[featuregate.Feature]bool{}
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		notFound = nil
		for _, g := range gates {
			if len(restored[g]) == 0 {
				continue
			}
			f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(string(g)), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			deleteWhatIsAskedFor(t, dyn, mapper, f)
			if meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains) != nil || cleanedUp[g] {
				continue
			}
			// Objects two gates hold (a pod ClusterTrustBundle's and
			// ClusterTrustBundleProjection's tasks both wait for) may be
			// gone, deleted as the other gate's Feature asked, before a
			// pass finds them for this one: then there is nothing left
			// for it to find.
			if !anyStored(t, restored[g]) {
				cleanedUp[g] = true
				t.Logf("%s: its restored objects were deleted as another Feature asked before the scan found them for it", g)
				continue
			}
			notFound = append(notFound, g)
		}
		return len(notFound) == 0, nil
	})
	if err != nil {
		var detail []string
		for _, g := range notFound {
			detail = append(detail, fmt.Sprintf("%s (%s)", g, strings.Join(restored[g], ", ")))
		}
		t.Fatalf("after %.0fs the residue scan had not found the restored data of %d gates: %s: %v", time.Since(start).Seconds(), len(notFound), strings.Join(detail, "; "), err)
	}
	waitForStates(t, res, admin, gates, featuresv1alpha1.FeatureStateDisabled, func(f *featuresv1alpha1.Feature) {
		deleteWhatIsAskedFor(t, dyn, mapper, f)
	})
	for _, g := range gates {
		if len(restored[g]) == 0 || cleanedUp[g] {
			continue
		}
		f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(string(g)), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionStoredDataRemains)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "TasksRanAgain" {
			res.fail(t, g, "%s: after restoring %v, StoredDataRemains must show that the tasks ran again: %+v", g, restored[g], c)
		}
	}
	stored = readEtcd(t, prefix)
	for _, g := range gates {
		for _, task := range registry[g].OnDisable {
			if in, ok := task.(tasks.Inspector); ok {
				if left := holding(g, task.Name(), stored, in); len(left) > 0 {
					res.fail(t, g, "%s is Disabled again after the restore but etcd holds what task %s clears or waits for: %s", g, task.Name(), strings.Join(left, ", "))
				}
			}
		}
	}
	t.Logf("the restored data was found and cleaned up, every Feature Disabled again, %.1fs after the restore", time.Since(start).Seconds())

	// On again: the Features reach Enabled and the features work: the fixture's
	// objects are accepted again and stored with what the feature adds.
	apiserver.Restart(t, flags(all, true)...)
	waitForStates(t, res, admin, gates, featuresv1alpha1.FeatureStateEnabled, nil)
	for _, g := range gates {
		for _, obj := range fixtures[g] {
			if obj.GetKind() == "Namespace" || obj.GetKind() == "ServiceAccount" {
				continue
			}
			if err := dynamicDelete(ctx, dyn, mapper, obj); err != nil {
				t.Fatal(err)
			}
			create(t, dyn, mapper, obj)
		}
	}
	stored = readEtcd(t, prefix)
	for _, g := range gates {
		for _, task := range registry[g].OnDisable {
			if in, ok := task.(tasks.Inspector); ok && len(holding(g, task.Name(), stored, in)) == 0 {
				res.fail(t, g, "%s is Enabled again but its fixture no longer stores what task %s looks for", g, task.Name())
			}
		}
		res.done[g] = true
	}
}

// catalog is kube-apiserver's store catalog, built without one (the
// apiservers run as processes), as standalone's test against a
// kube-apiserver checks it is.
var catalog = func() *storecatalog.Catalog {
	c, err := standalone.Catalog()
	if err != nil {
		panic(fmt.Sprintf("building kube-apiserver's store catalog: %v", err))
	}
	return c
}()

// registry is the lifecycle registry the apiserver plans from: derived
// and explicit registrations.
var registry = lifecycle.Registry(catalog)

// registeredGates returns the gates the harness runs, sorted: every
// explicit registration (a fixture is required) and every gate with a
// derived registration that has a fixture.
func registeredGates() []featuregate.Feature {
	gates := slices.Collect(maps.Keys(lifecycle.Lifecycles))
	dirs, _ := Gates(Dir()) // read again, and checked, by TestOnUseOff
	for _, d := range dirs {
		if _, ok := registry[d]; ok && !slices.Contains(gates, d) {
			gates = append(gates, d)
		}
	}
	slices.Sort(gates)
	return gates
}

// flags turns every registered gate on (with what it takes to use all it
// guards, TurnsOn: what it depends on, and the gates that depend on it, whose
// fields the inventory records under it) or off (with what depends on it).
func flags(t testing.TB, gates []featuregate.Feature, on bool) []string {
	values := map[featuregate.Feature]bool{"FeatureLifecycle": true}
	known := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	for _, g := range gates {
		related := Dependents(utilfeature.DefaultFeatureGate, g)
		if on {
			related = TurnsOn(utilfeature.DefaultFeatureGate, g)
		}
		for _, d := range related {
			if spec, ok := known[d]; ok && !spec.LockToDefault {
				values[d] = on
			}
		}
		values[g] = on
	}
	var list []string
	for g, v := range values {
		list = append(list, fmt.Sprintf("%s=%t", g, v))
	}
	slices.Sort(list)
	return []string{"--feature-gates=" + strings.Join(list, ","),
		harness.Lifecycle{WaitForUsesPeriod: waitPeriod, ResidueScanInterval: residueScanInterval,
			ResidueScanPageInterval: 200 * time.Millisecond}.Flag(t)}
}

// runtimeConfig returns the --runtime-config flag that serves our group and
// every API version the fixtures of gates are written in (alpha and new
// beta versions are not served by default), for the whole run: an admin
// who turns a gate off keeps the API versions configured. At the binary's
// own version (inventory true) it also serves every version the gate
// inventory compared a resource in: a feature may need an API it stores
// nothing in (CoordinatedLeaderElection's apiserver controllers watch
// coordination.k8s.io/v1beta1 LeaseCandidates, and the server is not
// ready without them).
func runtimeConfig(gates []featuregate.Feature, fixtures map[featuregate.Feature][]*unstructured.Unstructured, withInventory bool) string {
	versions := map[string]bool{"features.k8s.io/v1alpha1": true}
	if withInventory {
		inv, err := inventory.Load()
		if err == nil {
			for _, gv := range inv.Resources {
				if strings.Contains(gv, "/") {
					versions[gv] = true
				}
			}
		}
	}
	for _, g := range gates {
		for _, obj := range fixtures[g] {
			if gv := obj.GroupVersionKind().GroupVersion(); gv.Group != "" {
				versions[gv.String()] = true
			}
		}
	}
	var list []string
	for _, v := range slices.Sorted(maps.Keys(versions)) {
		list = append(list, v+"=true")
	}
	return "--runtime-config=" + strings.Join(list, ",")
}

// waitForStates waits until every gate's Feature is converged in state,
// calling each(f) on the Features that are not yet.
func waitForStates(t *testing.T, res *results, admin featuresclient.Interface, gates []featuregate.Feature, state featuresv1alpha1.FeatureState, each func(*featuresv1alpha1.Feature)) {
	t.Helper()
	pending := map[featuregate.Feature]*featuresv1alpha1.Feature{}
	last := map[featuregate.Feature]*featuresv1alpha1.Feature{}
	reached := map[featuregate.Feature]bool{}
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		clear(pending)
		for _, g := range gates {
			if reached[g] {
				continue
			}
			f, err := admin.FeaturesV1alpha1().Features("kube-system").Get(ctx, featuresv1alpha1.FeatureName(string(g)), metav1.GetOptions{})
			if err != nil {
				pending[g] = last[g] // the last one seen, if any
				continue
			}
			last[g] = f
			if f.Status.State == state && string(f.Spec.DesiredState) == string(state) &&
				meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged) {
				reached[g] = true
				continue
			}
			pending[g] = f
			if each != nil {
				each(f)
			}
		}
		return len(pending) == 0, nil
	})
	if err != nil {
		for g, f := range pending {
			if f == nil {
				res.fail(t, g, "%s: no Feature", g)
				continue
			}
			res.fail(t, g, "%s did not reach %s: desired %s, state %s, tasks %+v", g, state, f.Spec.DesiredState, f.Status.State, f.Status.Tasks)
		}
		t.FailNow()
	}
}

// deleteWhatIsAskedFor deletes, as an admin would, the objects the active
// WaitForAbsence task of f names in its message.
func deleteWhatIsAskedFor(t *testing.T, dyn dynamic.Interface, mapper meta.RESTMapper, f *featuresv1alpha1.Feature) {
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || len(f.Status.Tasks) == 0 {
		return
	}
	active := f.Status.Tasks[0]
	m := absenceMessage.FindStringSubmatch(active.Message)
	if m == nil {
		return
	}
	var resource schema.GroupResource
	for _, task := range registry[featuregate.Feature(f.Spec.Gate)].OnDisable {
		if in, ok := task.(tasks.Inspector); ok && task.Name() == active.Name {
			resource = in.Resources()[0]
		}
	}
	gvr, err := mapper.ResourceFor(resource.WithVersion(""))
	if err != nil {
		t.Errorf("task %s asks to delete %s: %v", active.Name, resource, err)
		return
	}
	for _, name := range strings.Split(m[1], ", ") {
		if strings.HasPrefix(name, "...") || strings.HasSuffix(name, "...") { // the end of a long list
			continue
		}
		ns, n, ok := strings.Cut(name, "/")
		client := dyn.Resource(gvr).Namespace(ns)
		if !ok { // cluster-scoped
			n, client = name, dyn.Resource(gvr).Namespace("")
		}
		// Background: with the default (orphan for Jobs) the object would
		// wait for a garbage collector, which the harness does not run.
		background := metav1.DeletePropagationBackground
		err := client.Delete(context.Background(), n, metav1.DeleteOptions{GracePeriodSeconds: ptrTo(int64(0)), PropagationPolicy: &background})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s %s/%s as task %s asks: %v", resource, ns, n, active.Name, err)
			continue
		}
		// A finalizer whose controller does not run (it is gated too, as
		// PodGroups' protection) holds the object terminating: remove it,
		// as an admin would (the only write served while Disabling for
		// a resource served only with the gate).
		obj, err := client.Get(context.Background(), n, metav1.GetOptions{})
		if err != nil || obj.GetDeletionTimestamp() == nil || len(obj.GetFinalizers()) == 0 {
			continue
		}
		if _, err := client.Patch(context.Background(), n, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing the finalizers %v of %s %s/%s, deleted as task %s asks: %v", obj.GetFinalizers(), resource, ns, n, active.Name, err)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// storedObject is an object read from etcd, decoded to its internal type.
type storedObject struct {
	key      string
	resource schema.GroupResource
	obj      runtime.Object
	// value is the stored bytes (encoded, maybe encrypted), to write back.
	value []byte
}

// readEtcd reads every key under prefix directly from etcd and decodes the
// objects of the resources the migrator supports into internal objects.
func readEtcd(t *testing.T, prefix string) []storedObject {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	// kube-apiserver keys objects under "/" + --etcd-prefix.
	resp, err := client.Get(context.Background(), path.Join("/", prefix)+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[schema.GroupKind]schema.GroupResource{}
	for _, gr := range catalog.GroupResources() {
		obj, err := catalog.NewObject(gr)
		if err != nil {
			t.Fatal(err)
		}
		gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
		if err != nil {
			t.Fatal(err)
		}
		kinds[gvks[0].GroupKind()] = gr
	}
	var out []storedObject
	for _, kv := range resp.Kvs {
		obj, gvk, err := DecodeStored(kv.Value)
		if err != nil || gvk == nil {
			continue // not a built-in object of the legacy scheme
		}
		if gr, ok := kinds[gvk.GroupKind()]; ok {
			out = append(out, storedObject{key: string(kv.Key), resource: gr, obj: obj, value: kv.Value})
		}
	}
	return out
}

// restore writes back into etcd, as a restore from a backup would, the
// objects of backup that a task of one of gates held, and returns their
// keys by gate.
// anyStored reports whether any of keys is stored in etcd.
func anyStored(t *testing.T, keys []string) bool {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	for _, k := range keys {
		resp, err := client.Get(context.Background(), k, clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Count > 0 {
			return true
		}
	}
	return false
}

func restore(t *testing.T, backup []storedObject, gates []featuregate.Feature) map[featuregate.Feature][]string {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	out := map[featuregate.Feature][]string{}
	for _, g := range gates {
		for _, task := range registry[g].OnDisable {
			in, ok := task.(tasks.Inspector)
			if !ok {
				continue
			}
			for _, s := range backup {
				if !slices.Contains(in.Resources(), s.resource) || !holds(g, task.Name(), in, s.obj) || slices.Contains(out[g], s.key) {
					continue
				}
				if _, err := client.Put(context.Background(), s.key, string(s.value)); err != nil {
					t.Fatal(err)
				}
				out[g] = append(out[g], s.key)
			}
		}
	}
	return out
}

// holding returns the keys of the stored objects in in's resources that in
// finds what the feature added in.
func holding(g featuregate.Feature, task string, stored []storedObject, in tasks.Inspector) []string {
	var keys []string
	for _, s := range stored {
		if slices.Contains(in.Resources(), s.resource) && holds(g, task, in, s.obj) {
			keys = append(keys, s.key)
		}
	}
	return keys
}

// resourceOf maps obj's kind to its resource.
func resourceOf(mapper meta.RESTMapper, obj *unstructured.Unstructured) (schema.GroupVersionResource, bool, error) {
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

func resourceClient(dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvr, namespaced, err := resourceOf(mapper, obj)
	if err != nil {
		return nil, err
	}
	if namespaced {
		return dyn.Resource(gvr).Namespace(obj.GetNamespace()), nil
	}
	return dyn.Resource(gvr), nil
}

// create creates a copy of a fixture object; an existing Namespace or
// ServiceAccount is fine.
func create(t *testing.T, dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) {
	t.Helper()
	if err := createObject(dyn, mapper, obj); err != nil {
		t.Fatalf("creating fixture %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
}

// createObject creates a copy of a fixture object; an existing Namespace,
// ServiceAccount or Node (fixtures of several gates may share them) is fine.
func createObject(dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) error {
	client, err := resourceClient(dyn, mapper, obj)
	if err != nil {
		return err
	}
	// Admission plugins read other objects from informers (a ResourceSlice's
	// Node): an object created just before may not be there yet.
	var (
		created *unstructured.Unstructured
		err2    error
	)
	// Created without its status, as Prepare does (nodes keep a status on
	// create).
	status, hasStatus := obj.Object["status"]
	withoutStatus := obj.DeepCopy()
	delete(withoutStatus.Object, "status")
	_ = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		created, err2 = client.Create(ctx, withoutStatus.DeepCopy(), metav1.CreateOptions{})
		return !apierrors.IsForbidden(err2), nil
	})
	if apierrors.IsAlreadyExists(err2) && (obj.GetKind() == "Namespace" || obj.GetKind() == "ServiceAccount" || obj.GetKind() == "Node") {
		return nil
	}
	if err2 != nil {
		return err2
	}
	// A fixture's status is written as a controller or the kubelet writes
	// it, through the status subresource, or the object itself when it has
	// none (as Prepare checked).
	if !hasStatus || apiequality.Semantic.DeepEqual(created.Object["status"], status) {
		return nil
	}
	created.Object["status"] = runtime.DeepCopyJSONValue(status)
	_, err2 = client.UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err2) {
		_, err2 = client.Update(context.Background(), created, metav1.UpdateOptions{})
	}
	return err2
}

func get(ctx context.Context, dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	client, err := resourceClient(dyn, mapper, obj)
	if err != nil {
		return nil, err
	}
	return client.Get(ctx, obj.GetName(), metav1.GetOptions{})
}

// dynamicDelete deletes obj at once and waits until it is gone.
func dynamicDelete(ctx context.Context, dyn dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) error {
	client, err := resourceClient(dyn, mapper, obj)
	if err != nil {
		return err
	}
	policy := metav1.DeletePropagationBackground
	if err := client.Delete(ctx, obj.GetName(), metav1.DeleteOptions{GracePeriodSeconds: ptrTo(int64(0)), PropagationPolicy: &policy}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err == nil && got.GetDeletionTimestamp() != nil && len(got.GetFinalizers()) > 0 {
			// No controller runs here to finish what admission's finalizers
			// wait for (a PersistentVolumeClaim's pvc-protection): an admin
			// removes them.
			_, _ = client.Patch(ctx, obj.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			return false, nil
		}
		return apierrors.IsNotFound(err), nil
	})
}
