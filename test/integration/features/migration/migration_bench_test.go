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

package migration

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	svmv1beta1 "k8s.io/api/storagemigration/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// The storage migration benchmark: clearing
// spec.updateStrategy.rollingUpdate.maxUnavailable from benchObjects
// StatefulSets.
const (
	// benchObjectsEnv overrides the number of StatefulSets.
	benchObjectsEnv = "FEATUREFLAGS_BENCH_N"
	// benchDefaultObjects is the default number of StatefulSets, the target
	// of the KEP's storage migration.
	benchDefaultObjects = 10000
	benchGate           = "MaxUnavailableStatefulSet"
	benchTask           = "clear-statefulset-max-unavailable"
	benchNamespace      = "bench-migration"
	// benchCreators create (and, between iterations, re-dirty) the
	// StatefulSets concurrently.
	benchCreators = 32
	// benchWaitForUses is the apiservers' WaitForUses period: short, it is
	// not measured.
	benchWaitForUses = time.Second
)

// benchMigrationFlags are the apiserver's flags of the benchmark, the same on
// both sides but for the gate: the features.k8s.io API and its controller,
// upstream's StorageVersionMigration API (beta, off by default in 1.36), and
// our migrator without a rate limit.
func benchMigrationFlags(t testing.TB, gateOn bool) []string {
	return []string{
		"--feature-gates=FeatureLifecycle=true,StorageVersionMigrator=true," + benchGate + "=" + strconv.FormatBool(gateOn),
		"--runtime-config=features.k8s.io/v1alpha1=true,storagemigration.k8s.io/v1beta1=true",
		harness.Lifecycle{WaitForUsesPeriod: benchWaitForUses, MigrationQPS: -1}.Flag(t),
	}
}

// benchObjects returns the number of StatefulSets of the benchmark.
func benchObjects(b *testing.B) int {
	s := os.Getenv(benchObjectsEnv)
	if s == "" {
		return benchDefaultObjects
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number of StatefulSets", benchObjectsEnv, s)
	}
	return n
}

// BenchmarkStatefulSetMigration compares, on the same kube-apiserver process
// and etcd, two ways of rewriting every stored StatefulSet (N of them,
// benchObjectsEnv, default 10,000), created with maxUnavailable while
// MaxUnavailableStatefulSet is on:
//
//   - upstream: a StorageVersionMigration of apps/statefulsets (v1beta1,
//     gate StorageVersionMigrator) run by our kube-controller-manager's
//     storage-version-migrator-controller (with the garbage collector, whose
//     caches it reads), as a user would: from creating the object until its
//     Succeeded condition. It sends one merge patch per object, one at a
//     time, holding only its apiVersion, kind and resourceVersion (a
//     precondition), which etcd does not see (nothing changes); it does not
//     clear maxUnavailable (the strategy keeps a field in use). It starts
//     patching once the garbage collector's cache has caught up with the
//     migration's resourceVersion, i.e. after a watch bookmark (about one a
//     minute), which it notices at its workqueue's next exponential backoff
//     retry: in our runs it waited either about 1 s or about 82 s. The log
//     says when the patches began.
//   - ours: the apiserver restarted with the gate off; the ClearFields task
//     clear-statefulset-max-unavailable of the Feature, without a rate limit,
//     from the status write that makes it the active task until the one that
//     removes it, as seen by a watch. Afterwards no StatefulSet has
//     maxUnavailable.
//
// One op is one object, so hack/bench-ratios.sh's ours/upstream of ns/op is
// upstream's objects/s over ours. The setup (apiserver, StatefulSets,
// kube-controller-manager, restarts) is not measured; an iteration after the
// first sets maxUnavailable again on every StatefulSet first. Run it with
// -benchtime=1x. Ours also reports the 99th percentile of an ordinary GET's
// latency on the same apiserver while the task ran, over the same once it
// is idle (get-p99-busy/idle).
//
// Then etcd: the same StatefulSets rewritten in raw etcd, bypassing the
// apiserver (see benchCluster.etcdRewrite), the physical limit of ours'
// rate and of what its writes cost an ordinary GET on this machine.
//
// Then customresources: as many custom resources of a third party, whose
// CRD binds a field to its Feature, cleared by their Disabling's task
// (through the API, see benchCluster.customResources), on the same
// apiserver; it reports its objects/s over ours' (customresources/builtin).
func BenchmarkStatefulSetMigration(b *testing.B) {
	n := benchObjects(b)
	benchQuietKlog(b)
	prefix := harness.SharedEtcd().Prefix
	apiserver := harness.StartAPIServerProcess(b, "apiserver", prefix, benchMigrationFlags(b, true)...)
	c := &benchCluster{apiserver: apiserver, etcdPrefix: prefix, kube: kubernetes.NewForConfigOrDie(apiserver.ClientConfig()),
		features: featuresclient.NewForConfigOrDie(apiserver.ClientConfig()), n: n, gateOn: true}
	start := time.Now()
	benchCreateStatefulSets(b, c.kube, n)
	// A benchmark with sub-benchmarks does not print its own log.
	setup := fmt.Sprintf("setup: created %d StatefulSets with maxUnavailable in %.1fs with %d clients", n, time.Since(start).Seconds(), benchCreators)
	name := fmt.Sprintf("statefulsets=%d", n)

	b.Run("upstream/"+name, func(b *testing.B) {
		b.Log(setup)
		c.upstream(b)
	})
	b.Run("ours/"+name, func(b *testing.B) {
		b.Log(setup)
		c.ours(b)
	})
	b.Run("etcd/"+name, c.etcdRewrite)
	b.Run(fmt.Sprintf("customresources/widgets=%d", n), c.customResources)
}

// startStorageVersionMigrator starts kube-controller-manager with
// upstream's storage version migrator (and the garbage collector, whose
// caches it needs) against apiserver, and waits until its resource
// monitors have synced.
func startStorageVersionMigrator(b *testing.B, apiserver *harness.APIServerProcess) *harness.ComponentProcess {
	kcm := harness.StartComponentProcess(b, "kube-controller-manager", apiserver, harness.KubeControllerManagerToken,
		"--controllers=garbage-collector-controller,storage-version-migrator-controller",
		"--feature-gates=StorageVersionMigrator=true",
		"--use-service-account-credentials=true")
	const synced = "all resource monitors have synced"
	if err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		if kcm.Exited() {
			return false, fmt.Errorf("kube-controller-manager exited")
		}
		return strings.Contains(kcm.Log(), synced), nil
	}); err != nil {
		kcm.Stop()
		b.Fatalf("waiting for %q in the kube-controller-manager's log: %v\n%s", synced, err, harness.Tail(kcm.Log(), 4096))
	}
	return kcm
}

// benchQuietKlog discards this process's klog output until the benchmark
// ends. The harness logs etcd's warnings through klog to stderr, which go
// test prints with the benchmark's result lines: the restarts and the
// thousands of writes make etcd warn ("apply request took too long"), and a
// warning in the middle of a result line hides it from hack/bench-ratios.sh.
func benchQuietKlog(b *testing.B) {
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	toStderr := fs.Lookup("logtostderr").Value.String()
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	b.Cleanup(func() {
		klog.Flush()
		_ = fs.Set("logtostderr", toStderr)
		klog.SetOutput(os.Stderr)
	})
}

// benchCluster is the apiserver of the benchmark and where it stands, kept
// across the calls of a sub-benchmark (the testing package calls it again
// with a larger b.N when a run is shorter than -benchtime).
type benchCluster struct {
	apiserver *harness.APIServerProcess
	// etcdPrefix is the apiserver's --etcd-prefix.
	etcdPrefix string
	kube       kubernetes.Interface
	features   featuresclient.Interface
	// n is the number of StatefulSets.
	n int
	// gateOn is whether the apiserver runs with the gate on; then every
	// StatefulSet has maxUnavailable.
	gateOn bool
	// migrations counts the StorageVersionMigrations created, to name them.
	migrations int
	// oursRate is the objects/s of ours' last run, to compare custom
	// resources with.
	oursRate float64
}

// upstream runs b.N StorageVersionMigrations of the StatefulSets with
// kube-controller-manager, one after the other.
func (c *benchCluster) upstream(b *testing.B) {
	apiserver, kube, n := c.apiserver, c.kube, c.n
	// The controller lists the objects to migrate from the garbage
	// collector's caches, so it needs the garbage collector, and patches any
	// resource, so it needs its own service account's role.
	kcm := startStorageVersionMigrator(b, apiserver)
	defer kcm.Stop()

	before := benchResourceVersions(b, kube)
	if len(before) != n {
		b.Fatalf("%d StatefulSets, want %d", len(before), n)
	}
	patchesBefore := benchStatefulSetPatches(b, kube)
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		c.migrations++
		elapsed += benchRunStorageVersionMigration(b, kube, fmt.Sprintf("bench-statefulsets-%d", c.migrations),
			metav1.GroupResource{Group: "apps", Resource: "statefulsets"}, n)
	}
	patches := benchStatefulSetPatches(b, kube)
	for code := range patches {
		patches[code] -= patchesBefore[code]
	}
	after := benchResourceVersions(b, kube)
	rewritten := 0
	for k, rv := range after {
		if before[k] != rv {
			rewritten++
		}
	}
	benchReport(b, n, elapsed)
	b.Logf("upstream: %d StatefulSets migrated %d time(s) in %.2fs; patches by verb and response code %v; %d objects written to etcd (new resourceVersion)",
		n, b.N, elapsed.Seconds(), patches, rewritten)
}

// benchRunStorageVersionMigration creates a StorageVersionMigration of the
// n objects of resource and returns the time until it succeeded. It logs
// when the first patches were seen: the controller patches only once the
// garbage collector's cache of the resource has caught up with the
// resourceVersion of the migration, which takes a watch bookmark when no
// object is written, and it rechecks with the workqueue's exponential
// backoff.
func benchRunStorageVersionMigration(b *testing.B, kube kubernetes.Interface, name string, resource metav1.GroupResource, n int) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	client := kube.StoragemigrationV1beta1().StorageVersionMigrations()
	// The controller sends apply patches to some resources, merge patches
	// to others.
	patched := func(p map[string]float64) float64 { return p["APPLY 200"] + p["PATCH 200"] }
	patchesBefore := patched(benchPatches(b, kube, resource.Resource))
	firstPatches := make(chan time.Time, 1)
	pollCtx, stopPolling := context.WithCancel(ctx)
	defer stopPolling()
	go func() {
		// Every second until the first patches: the apiserver is idle
		// meanwhile, so the scrapes do not slow the patches down.
		defer close(firstPatches)
		_ = wait.PollUntilContextCancel(pollCtx, time.Second, false, func(ctx context.Context) (bool, error) {
			patches, err := benchScrapePatches(ctx, kube, resource.Resource)
			if err == nil && patched(patches) > patchesBefore {
				firstPatches <- time.Now()
				return true, nil
			}
			return false, nil
		})
	}()
	start := time.Now()
	svm, err := client.Create(ctx, &svmv1beta1.StorageVersionMigration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       svmv1beta1.StorageVersionMigrationSpec{Resource: resource},
	}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(),
		ResourceVersion: svm.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	var running, rvSet time.Time
	for ev := range w.ResultChan() {
		s, ok := ev.Object.(*svmv1beta1.StorageVersionMigration)
		if !ok {
			b.Fatalf("watching %s: %v", name, ev.Object)
		}
		if c := meta.FindStatusCondition(s.Status.Conditions, string(svmv1beta1.MigrationFailed)); c != nil && c.Status == metav1.ConditionTrue {
			b.Fatalf("StorageVersionMigration %s failed: %s", name, c.Message)
		}
		if running.IsZero() && meta.IsStatusConditionTrue(s.Status.Conditions, string(svmv1beta1.MigrationRunning)) {
			running = time.Now()
		}
		if rvSet.IsZero() && s.Status.ResourceVersion != "" {
			rvSet = time.Now()
		}
		if meta.IsStatusConditionTrue(s.Status.Conditions, string(svmv1beta1.MigrationSucceeded)) {
			elapsed := time.Since(start)
			stopPolling()
			first, ok := <-firstPatches
			patching := "no patches seen before (the migration was short)"
			if ok {
				patching = fmt.Sprintf("first patches seen after %.0fs (±1s), then %.0f objects/s",
					first.Sub(start).Seconds(), float64(n)/start.Add(elapsed).Sub(first).Seconds())
			}
			b.Logf("%s: Running after %.2fs, status.resourceVersion after %.2fs, %s; Succeeded after %.2fs",
				name, benchSince(start, running), benchSince(start, rvSet), patching, elapsed.Seconds())
			return elapsed
		}
	}
	b.Fatalf("StorageVersionMigration %s did not succeed: %v", name, ctx.Err())
	return 0
}

// benchSince returns the seconds from start to at, or -1 when at is zero.
func benchSince(start, at time.Time) float64 {
	if at.IsZero() {
		return -1
	}
	return at.Sub(start).Seconds()
}

// ours turns the gate off b.N times and measures the ClearFields task each
// time. When the gate is off, it first turns it on again and sets
// maxUnavailable again on every StatefulSet.
func (c *benchCluster) ours(b *testing.B) {
	apiserver, kube, features, n := c.apiserver, c.kube, c.features, c.n
	feature := featuresv1alpha1.FeatureName(benchGate)
	var elapsed time.Duration
	var messages []string
	for range b.N {
		if !c.gateOn {
			apiserver.Restart(b, benchMigrationFlags(b, true)...)
			c.gateOn = true
			benchWaitForState(b, features, feature, featuresv1alpha1.FeatureStateEnabled)
			benchSetMaxUnavailable(b, kube, n)
		}
		benchWaitForState(b, features, feature, featuresv1alpha1.FeatureStateEnabled)
		w := benchWatchFeature(b, features, "kube-system", feature)
		c.gateOn = false // from the restart on; it may fail
		apiserver.Restart(b, benchMigrationFlags(b, false)...)
		ready := time.Now()
		busy := benchProbeGets(kube)
		benchWaitForState(b, features, feature, featuresv1alpha1.FeatureStateDisabled)
		w.stop()
		busySamples := busy.stop()
		active, firstPage, done, err := w.taskTimes(benchTask)
		if err != nil {
			b.Fatal(err)
		}
		elapsed += done.Sub(active)
		// Ordinary GETs on the same apiserver while the task ran, against
		// as many once it is idle again.
		during := benchWithin(busySamples, active, done)
		idle := benchProbeGets(kube)
		time.Sleep(time.Duration(max(len(during), benchMinProbes)) * benchProbeInterval)
		idleSamples := idle.stop()
		p99During, p99Idle := benchP99(during), benchP99(idleSamples)
		if p99Idle > 0 {
			b.ReportMetric(float64(p99During)/float64(p99Idle), "get-p99-busy/idle")
		}
		messages = append(messages, fmt.Sprintf("task active %+.2fs from the restarted apiserver's /readyz ok, first page stored %.2fs later, done %.2fs after active; "+
			"p99 of a GET %.1fms while it ran (%d GETs), %.1fms idle (%d GETs)",
			active.Sub(ready).Seconds(), firstPage.Sub(active).Seconds(), done.Sub(active).Seconds(),
			float64(p99During.Microseconds())/1000, len(during), float64(p99Idle.Microseconds())/1000, len(idleSamples)))

		// The task did the work: every StatefulSet lost maxUnavailable,
		// and the task says it cleared them all.
		left, total := benchCountMaxUnavailable(b, kube)
		if total != n || left != 0 {
			b.Fatalf("after the task: %d of %d StatefulSets still have maxUnavailable, want 0 of %d", left, total, n)
		}
		if msg := benchTaskCompleted(b, kube, feature); !strings.Contains(msg, fmt.Sprintf("cleared %d of %d stored objects", n, n)) {
			b.Fatalf("task %s completed with %q, want %d of %d cleared", benchTask, msg, n, n)
		}
	}
	benchReport(b, n, elapsed)
	c.oursRate = float64(n) * float64(b.N) / elapsed.Seconds()
	b.Logf("ours: %d StatefulSets cleared %d time(s) in %.2fs (%s)", n, b.N, elapsed.Seconds(), strings.Join(messages, "; "))
}

// benchProbeInterval is the period of benchProbeGets' GETs; benchMinProbes
// the fewest GETs an idle measurement makes.
const (
	benchProbeInterval = 10 * time.Millisecond
	benchMinProbes     = 200
)

// benchSample is one GET of benchProbeGets: when it started, how long it
// took (failed GETs are not recorded).
type benchSample struct {
	at   time.Time
	took time.Duration
}

// benchProber GETs one StatefulSet every benchProbeInterval, as an ordinary
// client, until stopped.
type benchProber struct {
	cancel  context.CancelFunc
	done    chan struct{}
	samples []benchSample
}

func benchProbeGets(kube kubernetes.Interface) *benchProber {
	ctx, cancel := context.WithCancel(context.Background())
	p := &benchProber{cancel: cancel, done: make(chan struct{})}
	name := benchStatefulSet(0).Name
	go func() {
		defer close(p.done)
		tick := time.NewTicker(benchProbeInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			if _, err := kube.AppsV1().StatefulSets(benchNamespace).Get(ctx, name, metav1.GetOptions{}); err == nil {
				p.samples = append(p.samples, benchSample{at: start, took: time.Since(start)})
			}
		}
	}()
	return p
}

// stop stops the GETs and returns them.
func (p *benchProber) stop() []benchSample {
	p.cancel()
	<-p.done
	return p.samples
}

// benchWithin returns the samples that started from from to to.
func benchWithin(samples []benchSample, from, to time.Time) []benchSample {
	var out []benchSample
	for _, s := range samples {
		if !s.at.Before(from) && !s.at.After(to) {
			out = append(out, s)
		}
	}
	return out
}

// benchP99 returns the 99th percentile of the samples' durations (0 for
// none).
func benchP99(samples []benchSample) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	took := make([]time.Duration, len(samples))
	for i, s := range samples {
		took[i] = s.took
	}
	slices.Sort(took)
	return took[min(len(took)-1, len(took)*99/100)]
}

// benchReport reports the objects per second and, as ns/op, the time per
// object, over b.N migrations of n objects that took elapsed in all.
func benchReport(b *testing.B, n int, elapsed time.Duration) {
	objects := float64(n) * float64(b.N)
	b.ReportMetric(float64(elapsed.Nanoseconds())/objects, "ns/op")
	b.ReportMetric(objects/elapsed.Seconds(), "objects/s")
}

// benchStatefulSet is the benchmark's i-th StatefulSet, which uses the feature.
func benchStatefulSet(i int) *appsv1.StatefulSet {
	return featuretest.MaxUnavailableStatefulSet(benchNamespace, fmt.Sprintf("sts-%05d", i), "bench", 3)
}

// benchParallel runs do(0) ... do(n-1) with benchCreators goroutines and
// fails at the first error.
func benchParallel(b *testing.B, n int, do func(i int) error) {
	b.Helper()
	featuretest.ForEach(b, benchCreators, n, func(_, i int) error { return do(i) })
}

// benchCreateStatefulSets creates the benchmark's namespace and n
// StatefulSets with maxUnavailable.
func benchCreateStatefulSets(b *testing.B, kube kubernetes.Interface, n int) {
	ctx := context.Background()
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}},
		metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	client := kube.AppsV1().StatefulSets(benchNamespace)
	benchParallel(b, n, func(i int) error {
		ss, err := client.Create(ctx, benchStatefulSet(i), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating StatefulSet %d: %w", i, err)
		}
		if ru := ss.Spec.UpdateStrategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil {
			return fmt.Errorf("%s was created without maxUnavailable: is %s on?", ss.Name, benchGate)
		}
		return nil
	})
}

// benchSetMaxUnavailable sets maxUnavailable again on the n StatefulSets,
// with the gate on.
func benchSetMaxUnavailable(b *testing.B, kube kubernetes.Interface, n int) {
	client := kube.AppsV1().StatefulSets(benchNamespace)
	patch := []byte(`{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":2}}}}`)
	benchParallel(b, n, func(i int) error {
		ss, err := client.Patch(context.Background(), benchStatefulSet(i).Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			return err
		}
		if ru := ss.Spec.UpdateStrategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil {
			return fmt.Errorf("%s was not given maxUnavailable: is %s on?", ss.Name, benchGate)
		}
		return nil
	})
}

// benchListStatefulSets calls do with every StatefulSet of the benchmark,
// page by page.
func benchListStatefulSets(b *testing.B, kube kubernetes.Interface, do func(*appsv1.StatefulSet)) {
	opts := metav1.ListOptions{Limit: 1000}
	for {
		list, err := kube.AppsV1().StatefulSets(benchNamespace).List(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		for i := range list.Items {
			do(&list.Items[i])
		}
		if list.Continue == "" {
			return
		}
		opts.Continue = list.Continue
	}
}

// benchResourceVersions returns the resourceVersions of the StatefulSets by
// name.
func benchResourceVersions(b *testing.B, kube kubernetes.Interface) map[string]string {
	rvs := map[string]string{}
	benchListStatefulSets(b, kube, func(ss *appsv1.StatefulSet) { rvs[ss.Name] = ss.ResourceVersion })
	return rvs
}

// benchCountMaxUnavailable returns how many StatefulSets still have
// maxUnavailable, of how many.
func benchCountMaxUnavailable(b *testing.B, kube kubernetes.Interface) (left, total int) {
	benchListStatefulSets(b, kube, func(ss *appsv1.StatefulSet) {
		total++
		if ru := ss.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			left++
		}
	})
	return left, total
}

// benchStatefulSetPatches returns the apiserver's count of patch requests
// (apply or other) to StatefulSets, by verb and response code.
func benchStatefulSetPatches(b *testing.B, kube kubernetes.Interface) map[string]float64 {
	return benchPatches(b, kube, "statefulsets")
}

// benchPatches returns the apiserver's count of patch requests (apply or
// other) to resource (e.g. "statefulsets"), by verb and response code.
func benchPatches(b *testing.B, kube kubernetes.Interface, resource string) map[string]float64 {
	out, err := benchScrapePatches(context.Background(), kube, resource)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// benchScrapePatches is benchPatches, returning errors.
func benchScrapePatches(ctx context.Context, kube kubernetes.Interface, resource string) (map[string]float64, error) {
	body, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="`+resource+`"`) ||
			!strings.Contains(line, `subresource=""`) {
			continue
		}
		verb, code := benchLabel(line, "verb"), benchLabel(line, "code")
		if verb != "APPLY" && verb != "PATCH" {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		out[verb+" "+code] += v
	}
	return out, nil
}

// benchLabel returns the value of a label of a Prometheus text line.
func benchLabel(line, label string) string {
	_, rest, ok := strings.Cut(line, label+`="`)
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(rest, `"`)
	return value
}

// benchWaitForState waits until the Feature is in state (final, desired and
// converged).
func benchWaitForState(b *testing.B, client featuresclient.Interface, name string, state featuresv1alpha1.FeatureState) {
	var f *featuresv1alpha1.Feature
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		f, err = client.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return f.Status.State == state && string(f.Spec.DesiredState) == string(state) &&
			meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged), nil
	})
	if err != nil {
		b.Fatalf("%s did not converge to %s: %v; %+v", name, state, err, f)
	}
}

// benchObservation is a version of the Feature seen by the watch: its
// active task and that task's checkpoint.
type benchObservation struct {
	at               time.Time
	task, checkpoint string
	// first is true for the first version a watch delivered: the Feature
	// may have been like this for a while.
	first bool
}

// benchFeatureWatcher records the active task of a Feature through a watch
// that starts again (from a fresh read) when the apiserver restarts.
type benchFeatureWatcher struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	obs    []benchObservation
}

func benchWatchFeature(b *testing.B, client featuresclient.Interface, namespace, name string) *benchFeatureWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &benchFeatureWatcher{cancel: cancel, done: make(chan struct{})}
	b.Cleanup(w.stop)
	features := client.FeaturesV1alpha1().Features(namespace)
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			fw, err := features.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
			if err != nil {
				time.Sleep(50 * time.Millisecond) // the apiserver is restarting
				continue
			}
			first := true
			for ev := range fw.ResultChan() {
				if ev.Type == watch.Error {
					break
				}
				if f, ok := ev.Object.(*featuresv1alpha1.Feature); ok {
					w.add(f, first)
					first = false
				}
			}
			fw.Stop()
		}
	}()
	return w
}

func (w *benchFeatureWatcher) add(f *featuresv1alpha1.Feature, first bool) {
	o := benchObservation{at: time.Now(), first: first}
	if len(f.Status.Tasks) > 0 {
		o.task, o.checkpoint = f.Status.Tasks[0].Name, f.Status.Tasks[0].Checkpoint
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.obs = append(w.obs, o)
}

func (w *benchFeatureWatcher) stop() {
	w.cancel()
	<-w.done
}

// taskTimes returns when the watch saw task become the active task
// (without a checkpoint), store its first page, and go away. It fails when
// the watch did not see the task start, e.g. because it connected after the
// apiserver's restart only once the task was active.
func (w *benchFeatureWatcher) taskTimes(task string) (active, firstPage, done time.Time, err error) {
	w.mu.Lock()
	obs := slices.Clone(w.obs)
	w.mu.Unlock()
	for _, o := range obs {
		switch {
		case o.task == task && active.IsZero():
			if o.checkpoint != "" || o.first {
				return active, firstPage, done, fmt.Errorf("the watch did not see %s start: first seen with checkpoint %q when the watch connected: %t",
					task, o.checkpoint, o.first)
			}
			active = o.at
		case o.task == task && firstPage.IsZero() && o.checkpoint != "":
			var cp struct{ Migration migrator.Checkpoint }
			if json.Unmarshal([]byte(o.checkpoint), &cp) == nil && cp.Migration.Pages > 0 {
				firstPage = o.at
			}
		case o.task != task && !active.IsZero() && done.IsZero():
			done = o.at
		}
	}
	if active.IsZero() || done.IsZero() {
		return active, firstPage, done, fmt.Errorf("the watch saw %s from %v to %v in %d versions of the Feature", task, active, done, len(obs))
	}
	if firstPage.IsZero() {
		firstPage = done // one page: it is stored with the end of the task
	}
	return active, firstPage, done, nil
}

// benchTaskCompleted returns the message of the last TaskCompleted event of
// benchTask on the Feature, waiting a little for it: events are written
// asynchronously.
func benchTaskCompleted(b *testing.B, kube kubernetes.Interface, feature string) string {
	var last *corev1.Event
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := kube.CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{
			FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", feature),
				fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
		if err != nil {
			return false, err
		}
		for i := range events.Items {
			e := &events.Items[i]
			if strings.HasPrefix(e.Message, "task "+benchTask+":") && (last == nil || !e.LastTimestamp.Before(&last.LastTimestamp)) {
				last = e
			}
		}
		return last != nil, nil
	})
	if err != nil {
		b.Fatalf("no TaskCompleted event of %s on %s: %v", benchTask, feature, err)
	}
	return last.Message
}
