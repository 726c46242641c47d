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

package features

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	"k8s.io/features/gatename"

	"k8s.io/featureflags/pkg/featurelifecycle/migrator"
	"k8s.io/featureflags/test/integration/features/lifecycle"
	"k8s.io/featureflags/test/integration/framework"
)

// The storage migration test: MaxUnavailableStatefulSet's ClearFields task
// over migrationObjects StatefulSets, at migrationQPS writes per second so
// that it lasts long enough (about 20 s) to write to the objects meanwhile
// and to kill its leader in the middle.
const (
	migrationGate      = "MaxUnavailableStatefulSet"
	migrationTask      = "clear-statefulset-max-unavailable"
	migrationResource  = "statefulsets.apps"
	migrationNamespace = "migration"
	migrationObjects   = 5000
	migrationQPS       = 250
	migrationPageSize  = 250
	// migrationCreators create the StatefulSets concurrently.
	migrationCreators = 16
	// migrationWriters update the StatefulSets during the migration, at
	// migrationWriteQPS updates per second in all.
	migrationWriters  = 16
	migrationWriteQPS = 150
	// counterAnnotation holds the value of a writer's last update.
	counterAnnotation = "migration.test.k8s.io/counter"
)

// migrationFlags are the flags of the test's apiservers, with the gate on or
// off.
func migrationFlags(on bool) []string {
	return []string{"--feature-gates=FeatureLifecycle=true," + migrationGate + "=" + strconv.FormatBool(on),
		"--runtime-config=features.k8s.io/v1alpha1=true",
		"--feature-lifecycle-wait-for-uses-period=3s",
		"--feature-lifecycle-liveness-window=" + multiLivenessWindow.String(),
		"--feature-migration-qps=" + strconv.Itoa(migrationQPS),
		"--feature-migration-burst=10",
		"--feature-migration-page-size=" + strconv.Itoa(migrationPageSize)}
}

// clearFieldsCheckpoint mirrors the JSON of the ClearFields task's
// checkpoint (status.tasks[].checkpoint, see
// pkg/featurelifecycle/tasks/clearfields.go): the resources still to clear
// and the migrator's checkpoint of the first.
type clearFieldsCheckpoint struct {
	Remaining []string            `json:"remaining"`
	Migration migrator.Checkpoint `json:"migration"`
	Seen      int64               `json:"seen,omitempty"`
	Cleared   int64               `json:"cleared,omitempty"`
	Retries   int64               `json:"retries,omitempty"`
}

// migrationCluster is the apiserver processes of the test and their clients;
// a killed apiserver is marked dead so that clients stop using it.
type migrationCluster struct {
	servers  []*framework.APIServerProcess
	kube     []kubernetes.Interface
	features []featuresclient.Interface
	dead     []atomic.Bool
}

// newMigrationCluster returns the cluster of servers with admin clients.
func newMigrationCluster(servers []*framework.APIServerProcess) *migrationCluster {
	c := &migrationCluster{servers: servers, dead: make([]atomic.Bool, len(servers))}
	for _, s := range servers {
		c.kube = append(c.kube, kubernetes.NewForConfigOrDie(s.ClientConfig()))
		c.features = append(c.features, featuresclient.NewForConfigOrDie(s.ClientConfig()))
	}
	return c
}

// pick returns the index of the n-th (modulo) apiserver not killed.
func (c *migrationCluster) pick(n int) int {
	var alive []int
	for i := range c.servers {
		if !c.dead[i].Load() {
			alive = append(alive, i)
		}
	}
	return alive[n%len(alive)]
}

// live returns the processes not killed, with nil in place of the killed.
func (c *migrationCluster) live() []*framework.APIServerProcess {
	out := slices.Clone(c.servers)
	for i := range out {
		if c.dead[i].Load() {
			out[i] = nil
		}
	}
	return out
}

// featureObservation is one version of the Feature, seen by a watch.
type featureObservation struct {
	at    time.Time
	state featuresv1alpha1.FeatureState
	// task and checkpoint are those of the active task, if any.
	task, checkpoint string
}

// featureWatcher records every version of a Feature through a watch that
// resumes on another apiserver when one goes away.
type featureWatcher struct {
	mu  sync.Mutex
	obs []featureObservation
}

// watchFeature records the versions of Feature name until the test ends.
func watchFeature(t *testing.T, c *migrationCluster, name string) *featureWatcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	w := &featureWatcher{}
	go func() {
		defer close(done)
		rv := ""
		for attempt := 0; ctx.Err() == nil; attempt++ {
			client := c.features[c.pick(attempt)].FeaturesV1alpha1().Features("kube-system")
			if rv == "" {
				f, err := client.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				w.add(f)
				rv = f.ResourceVersion
			}
			fw, err := client.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(),
				ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range fw.ResultChan() {
				if ev.Type == watch.Error {
					rv = "" // e.g. too old a resource version: read again
					break
				}
				if f, ok := ev.Object.(*featuresv1alpha1.Feature); ok {
					rv = f.ResourceVersion
					if ev.Type != watch.Bookmark {
						w.add(f)
					}
				}
			}
			fw.Stop()
		}
	}()
	return w
}

// add records f.
func (w *featureWatcher) add(f *featuresv1alpha1.Feature) {
	o := featureObservation{at: time.Now(), state: f.Status.State}
	if len(f.Status.Tasks) > 0 {
		o.task, o.checkpoint = f.Status.Tasks[0].Name, f.Status.Tasks[0].Checkpoint
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.obs = append(w.obs, o)
}

// log logs the observed states, tasks and checkpoints, with their time
// relative to since.
func (w *featureWatcher) log(t *testing.T, since time.Time) {
	t.Helper()
	for _, o := range w.get() {
		t.Logf("%+7.2fs %s %s %.200s", o.at.Sub(since).Seconds(), o.state, o.task, o.checkpoint)
	}
}

// get returns the observations so far.
func (w *featureWatcher) get() []featureObservation {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.obs)
}

// checkpoints returns the observed checkpoints of the ClearFields task that
// have stored at least one page, decoded, with when they were seen.
func (w *featureWatcher) checkpoints(t *testing.T) ([]clearFieldsCheckpoint, []time.Time) {
	t.Helper()
	var cps []clearFieldsCheckpoint
	var ats []time.Time
	for _, o := range w.get() {
		if o.task != migrationTask || o.checkpoint == "" {
			continue
		}
		var cp clearFieldsCheckpoint
		if err := json.Unmarshal([]byte(o.checkpoint), &cp); err != nil {
			t.Fatalf("unreadable checkpoint of %s: %v: %s", migrationTask, err, o.checkpoint)
		}
		if cp.Migration.Pages == 0 {
			continue
		}
		if len(cps) > 0 && reflect.DeepEqual(cps[len(cps)-1].Migration, cp.Migration) {
			continue // the same checkpoint in another status write
		}
		cps = append(cps, cp)
		ats = append(ats, o.at)
	}
	return cps, ats
}

// migrationWriterSet is the writers that update random StatefulSets through
// the API while the migration runs: each writer owns the objects whose index is its own
// modulo migrationWriters, writes them one at a time (a write is retried on
// conflict against the fresh object, and on another apiserver when one goes
// away, until it succeeds) and records the value of the last successful write
// of each.
type migrationWriterSet struct {
	cluster *migrationCluster
	limiter flowcontrol.RateLimiter
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// last is the value of the last successful write of each object, 0
	// when none; attempted the last value tried. An index is only used by
	// the writer that owns it.
	last, attempted []int64
	// writes are the times of the successful writes of each writer.
	writes [migrationWriters][]time.Time

	conflicts, transportErrors, failures atomic.Int64
}

// startWriters starts the writers; stop them with stop.
func startWriters(t *testing.T, c *migrationCluster) *migrationWriterSet {
	ctx, cancel := context.WithCancel(context.Background())
	ws := &migrationWriterSet{cluster: c, cancel: cancel,
		limiter: flowcontrol.NewTokenBucketRateLimiter(migrationWriteQPS, migrationWriters),
		last:    make([]int64, migrationObjects), attempted: make([]int64, migrationObjects)}
	for g := range migrationWriters {
		ws.wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3920))
			var owned []int
			for i := g; i < migrationObjects; i += migrationWriters {
				owned = append(owned, i)
			}
			cache := map[int]*appsv1.StatefulSet{}
			for ws.limiter.Wait(ctx) == nil {
				i := owned[rng.IntN(len(owned))]
				if err := ws.write(g, i, cache); err != nil {
					ws.failures.Add(1)
					t.Errorf("writer %d: %v", g, err)
					return
				}
			}
		})
	}
	return ws
}

// write sets the counter annotation of object i to its next value, retrying
// until it succeeds. It starts from the object of its last write (as a
// controller starts from its cache) and reads the object again after a
// conflict.
func (ws *migrationWriterSet) write(g, i int, cache map[int]*appsv1.StatefulSet) error {
	ctx := context.Background()
	name := migrationObjectName(i)
	deadline := time.Now().Add(time.Minute)
	for attempt := 0; ; attempt++ {
		if time.Now().After(deadline) {
			return fmt.Errorf("could not update %s within a minute", name)
		}
		client := ws.cluster.kube[ws.cluster.pick(g+attempt)].AppsV1().StatefulSets(migrationNamespace)
		ss := cache[i]
		if ss == nil {
			var err error
			if ss, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
				ws.transportErrors.Add(1)
				time.Sleep(50 * time.Millisecond)
				continue
			}
		}
		ws.attempted[i]++
		value := ws.attempted[i]
		updated := ss.DeepCopy()
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		updated.Annotations[counterAnnotation] = strconv.FormatInt(value, 10)
		out, err := client.Update(ctx, updated, metav1.UpdateOptions{})
		switch {
		case err == nil:
			ws.last[i] = value
			cache[i] = out
			ws.writes[g] = append(ws.writes[g], time.Now())
			return nil
		case apierrors.IsConflict(err):
			ws.conflicts.Add(1)
		default:
			// The outcome is unknown (the apiserver may have been killed
			// after writing): a later successful write supersedes it.
			ws.transportErrors.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
		delete(cache, i)
	}
}

// stop stops the writers and waits for their writes under way.
func (ws *migrationWriterSet) stop() {
	ws.cancel()
	ws.wg.Wait()
}

// between counts the successful writes in (from, to).
func (ws *migrationWriterSet) between(from, to time.Time) (n, total int) {
	for _, times := range ws.writes {
		for _, at := range times {
			total++
			if at.After(from) && at.Before(to) {
				n++
			}
		}
	}
	return n, total
}

// migrationObjectName is the name of the i-th StatefulSet.
func migrationObjectName(i int) string { return fmt.Sprintf("ss-%05d", i) }

// maxUnavailableStatefulSet is a valid StatefulSet named name in namespace,
// labelled app=app, that uses MaxUnavailableStatefulSet: rolling updates
// replace up to 2 pods at a time.
func maxUnavailableStatefulSet(namespace, name, app string) *appsv1.StatefulSet {
	labels := map[string]string{"app": app}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To[int32](3),
			ServiceName:         app,
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(2))}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}

// createStatefulSets creates the test's StatefulSets with a few concurrent
// clients spread over the apiservers.
func createStatefulSets(t *testing.T, c *migrationCluster) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.kube[0].CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: migrationNamespace}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	forEach(t, migrationCreators, migrationObjects, func(worker, i int) error {
		client := c.kube[c.pick(worker)].AppsV1().StatefulSets(migrationNamespace)
		if _, err := client.Create(ctx, maxUnavailableStatefulSet(migrationNamespace, migrationObjectName(i), "migration"), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s: %w", migrationObjectName(i), err)
		}
		return nil
	})
}

// forEach runs do(worker, i) for every i in [0, n) on workers goroutines
// (worker in [0, workers)) and fails tb at the first error, after which no
// further i starts.
func forEach(tb testing.TB, workers, n int, do func(worker, i int) error) {
	tb.Helper()
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for worker := range workers {
		wg.Go(func() {
			for i := range next {
				if err := do(worker, i); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// storedStatefulSets reads the test's StatefulSets directly from etcd and
// decodes them to internal objects, by name.
func storedStatefulSets(t *testing.T, prefix string) map[string]*apps.StatefulSet {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{framework.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	// kube-apiserver keys objects under "/" + --etcd-prefix.
	resp, err := client.Get(context.Background(), path.Join("/", prefix, "statefulsets", migrationNamespace)+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*apps.StatefulSet{}
	for _, kv := range resp.Kvs {
		obj, _, err := lifecycle.DecodeStored(kv.Value)
		if err != nil {
			t.Fatalf("decoding %s: %v", kv.Key, err)
		}
		ss, ok := obj.(*apps.StatefulSet)
		if !ok {
			t.Fatalf("%s holds a %T", kv.Key, obj)
		}
		out[ss.Name] = ss
	}
	return out
}

// brief describes a migrator checkpoint without its continue token.
func brief(m migrator.Checkpoint) string {
	return fmt.Sprintf("pass %d, page %d, %d/%d seen, %d cleared, %d conflicts, %d failed, done=%t",
		m.Pass, m.Pages, m.Seen, m.Total, m.Changed, m.Conflicts, m.Failed, m.Done)
}

// hasMaxUnavailable reports whether ss still has what the feature added.
func hasMaxUnavailable(ss *apps.StatefulSet) bool {
	ru := ss.Spec.UpdateStrategy.RollingUpdate
	return ru != nil && ru.MaxUnavailable != nil
}

// migrationCounters are the migrator's metrics of the migrated resource on
// one apiserver.
type migrationCounters struct {
	seen, changed, conflicts, failures float64
}

// scrapeMigrationCounters reads the migrator's metrics of migrationResource
// from the apiserver behind config.
func scrapeMigrationCounters(ctx context.Context, config *restclient.Config) (migrationCounters, error) {
	body, err := kubernetes.NewForConfigOrDie(config).CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return migrationCounters{}, err
	}
	var m migrationCounters
	values := map[string]*float64{"seen": &m.seen, "changed": &m.changed, "conflicts": &m.conflicts, "failures": &m.failures}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		for name, v := range values {
			prefix := fmt.Sprintf("apiserver_feature_migration_objects_%s_total{resource=%q} ", name, migrationResource)
			if s, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				if *v, err = strconv.ParseFloat(s, 64); err != nil {
					return m, err
				}
			}
		}
	}
	return m, nil
}

// TestStorageMigration runs MaxUnavailableStatefulSet's ClearFields task over
// 5,000 StatefulSets while clients keep updating them, with our
// kube-apiservers as processes against one etcd:
//
//   - the StatefulSets are created with maxUnavailable while the gate is on;
//     the apiservers are restarted (killed and started again) with it off
//     and a migration rate that makes the migration last about 20 s;
//   - meanwhile writers update random StatefulSets through the API (an
//     annotation with an increasing counter, retried on conflict) and record
//     the last value they wrote to each;
//   - with two apiservers (each its own host), the Feature's leader is
//     killed in the middle of the migration: the other takes over and
//     finishes from the stored checkpoint, without starting over;
//   - once the Feature is Off, etcd, read directly, holds every StatefulSet
//     without maxUnavailable, with the last value written to it, and with
//     its spec changed exactly once (generation 2).
//
// Without UTS namespaces (root, or an unprivileged user namespace) it runs on
// one apiserver, without the failover, and records that skip.
func TestStorageMigration(t *testing.T) {
	ctx := context.Background()
	begin := time.Now()
	prefix := framework.SharedEtcd().Prefix
	hosts := []string{"migration-a", "migration-b"}
	if !framework.SeparateHosts() {
		framework.RecordSkip(t, "the leader failover half", "unshare(1) cannot give processes their own host names here (no UTS or user namespaces)")
		hosts = hosts[:1]
	}
	servers := make([]*framework.APIServerProcess, len(hosts))
	for i, h := range hosts {
		servers[i] = framework.StartAPIServerProcess(t, h, prefix, migrationFlags(true)...)
	}
	c := newMigrationCluster(servers)
	name := gatename.ObjectName(migrationGate)
	key := "kube-system/" + name
	waitForConverged(t, c.features[0], name, featuresv1alpha1.FeatureStateOn, 2*time.Minute)

	start := time.Now()
	createStatefulSets(t, c)
	t.Logf("created %d StatefulSets with maxUnavailable in %.1fs with %d clients", migrationObjects, time.Since(start).Seconds(), migrationCreators)
	stored := storedStatefulSets(t, prefix)
	if len(stored) != migrationObjects {
		t.Fatalf("etcd holds %d StatefulSets, want %d", len(stored), migrationObjects)
	}
	for n, ss := range stored {
		if !hasMaxUnavailable(ss) {
			t.Fatalf("%s was stored without maxUnavailable while the gate is on", n)
		}
	}

	// Write to the StatefulSets until the Feature is Off, and turn the gate
	// off through the apiservers, one at a time. They are killed and
	// started again rather than stopped: an apiserver that shuts down
	// gracefully deletes its identity lease, so the others stop counting its
	// configured value at once (not after the forget window), and the
	// transition would start while the last one restarts.
	w := watchFeature(t, c, name)
	writers := startWriters(t, c)
	t.Cleanup(writers.stop)
	for _, s := range servers {
		start := time.Now()
		s.Kill()
		s.Flags = migrationFlags(false)
		s.Start(t)
		t.Logf("%s restarted with %s=false in %.1fs", s.Name, migrationGate, time.Since(start).Seconds())
	}
	restarted := time.Now()

	// Kill the Feature's leader in the middle of the migration.
	var (
		killed        = -1
		killedAt      time.Time
		killedCP      clearFieldsCheckpoint
		killedCounter migrationCounters
		failover      time.Duration
	)
	if len(servers) > 1 {
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			cps, _ := w.checkpoints(t)
			if len(cps) == 0 {
				return false, nil
			}
			killedCP = cps[len(cps)-1]
			return killedCP.Migration.Seen >= 2*migrationObjects/5, nil
		})
		if err != nil {
			w.log(t, restarted)
			t.Fatalf("the migration did not get 40%% through: %v; last checkpoint %s", err, brief(killedCP.Migration))
		}
		if killedCP.Migration.Done || killedCP.Migration.Seen >= migrationObjects-2*migrationPageSize {
			w.log(t, restarted)
			t.Fatalf("the migration is (almost) over before the kill, so the failover is not tested: %s", brief(killedCP.Migration))
		}
		killed = leaderOf(t, servers, key, 30*time.Second)
		if killedCounter, err = scrapeMigrationCounters(ctx, servers[killed].ClientConfig()); err != nil {
			t.Fatal(err)
		}
		t.Logf("killing the leader %s in the middle of the migration: checkpoint %s; its counters %+v", hosts[killed], brief(killedCP.Migration), killedCounter)
		killedAt = time.Now()
		servers[killed].Kill()
		c.dead[killed].Store(true)
		next := leaderOf(t, c.live(), key, time.Minute)
		failover = time.Since(killedAt)
		t.Logf("leader failover: %s took over %.1fs after %s was killed (liveness window %s)", hosts[next], failover.Seconds(), hosts[killed], multiLivenessWindow)
	}

	waitForConverged(t, c.features[c.pick(0)], name, featuresv1alpha1.FeatureStateOff, 3*time.Minute)
	off := time.Now()
	writers.stop()
	if writers.failures.Load() > 0 {
		t.FailNow()
	}

	// When the migration ran, and that it never went back.
	var taskStart, taskEnd time.Time
	for _, o := range w.get() {
		if o.task == migrationTask && taskStart.IsZero() {
			taskStart = o.at
		}
		if o.state == featuresv1alpha1.FeatureStateOff && taskEnd.IsZero() {
			taskEnd = o.at
		}
	}
	if taskEnd.IsZero() {
		taskEnd = off
	}
	cps, ats := w.checkpoints(t)
	var (
		leaderless time.Duration
		resumedAt  int64
	)
	if taskStart.IsZero() || len(cps) < 2 {
		t.Fatalf("the watch saw %d checkpoints of %s (task start %v); the migration must take several pages", len(cps), migrationTask, taskStart)
	}
	for i, cp := range cps {
		m := cp.Migration
		if len(cp.Remaining) != 1 || m.Pass != 1 || m.Failed != 0 || m.Done {
			t.Errorf("checkpoint %d: %v %s; want one pass over %s without failures", i, cp.Remaining, brief(m), migrationResource)
		}
		if i == 0 {
			continue
		}
		prev := cps[i-1].Migration
		if m.Pass != prev.Pass || m.Seen < prev.Seen || m.Pages < prev.Pages || m.Changed < prev.Changed {
			t.Errorf("the migration went back from %s to %s (at %.1fs)", brief(prev), brief(m), ats[i].Sub(taskStart).Seconds())
		}
		if !killedAt.IsZero() && ats[i].After(killedAt) && !ats[i-1].After(killedAt) {
			leaderless, resumedAt = ats[i].Sub(ats[i-1]), prev.Seen
			t.Logf("first checkpoint after the kill, %.1fs after it: %s (last before: %s)", ats[i].Sub(killedAt).Seconds(), brief(m), brief(prev))
			if m.Seen < killedCP.Migration.Seen {
				t.Errorf("the new leader started over: %d seen after the kill, %d before", m.Seen, killedCP.Migration.Seen)
			}
		}
	}
	last := cps[len(cps)-1]

	// The writes overlapped the migration.
	during, total := writers.between(ats[0], ats[len(ats)-1])
	if during == 0 {
		t.Errorf("none of the %d writes happened between the first and the last checkpoint of the migration (%v, %v)", total, ats[0], ats[len(ats)-1])
	}

	// The counters of the apiserver that finished the migration: it read
	// what was left after the stored checkpoint, not everything again.
	finisher := c.pick(0)
	counters, err := scrapeMigrationCounters(ctx, servers[finisher].ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	if counters.failures != 0 {
		t.Errorf("%s failed to clear %v StatefulSets", hosts[finisher], counters.failures)
	}
	// A page is read again when the controller steps the task from a copy
	// of the Feature older than its own last status write (its informer has
	// not caught up; the status write then fails with a conflict), which
	// happens when the Feature is queued while a step runs. A new pass, or a
	// new leader starting over, would read all the objects again.
	if killed < 0 {
		if counters.seen < migrationObjects || counters.seen >= 2*migrationObjects || counters.changed != migrationObjects {
			t.Errorf("%s read %v and cleared %v StatefulSets; want to read each of the %d once (a few pages twice at most) and clear each once",
				hosts[finisher], counters.seen, counters.changed, migrationObjects)
		}
		t.Logf("%s read %v pages twice", hosts[finisher], (counters.seen-migrationObjects)/migrationPageSize)
	} else {
		if counters.seen == 0 || counters.seen >= migrationObjects {
			t.Errorf("%s read %v StatefulSets after taking over from a checkpoint at %d seen; want fewer than %d: it must resume, not start over",
				hosts[finisher], counters.seen, resumedAt, migrationObjects)
		}
		t.Logf("%s resumed at %d seen and read %v pages twice", hosts[finisher], resumedAt, (counters.seen-float64(migrationObjects-resumedAt))/migrationPageSize)
		// What the killed leader cleared is not cleared again (the
		// generations below show that every object was cleared once).
		if counters.changed+killedCounter.changed > migrationObjects {
			t.Errorf("%s cleared %v StatefulSets after %s had cleared at least %v: more than %d in all",
				hosts[finisher], counters.changed, hosts[killed], killedCounter.changed, migrationObjects)
		}
	}

	// etcd holds every StatefulSet cleared, with the last value written.
	stored = storedStatefulSets(t, prefix)
	if len(stored) != migrationObjects {
		t.Fatalf("etcd holds %d StatefulSets, want %d", len(stored), migrationObjects)
	}
	var lost, left, generations, written []string
	for i := range migrationObjects {
		n := migrationObjectName(i)
		ss, ok := stored[n]
		if !ok {
			t.Fatalf("%s is not in etcd", n)
		}
		if hasMaxUnavailable(ss) {
			left = append(left, n)
		}
		want := ""
		if writers.last[i] > 0 {
			want = strconv.FormatInt(writers.last[i], 10)
			written = append(written, n)
		}
		if got := ss.Annotations[counterAnnotation]; got != want {
			lost = append(lost, fmt.Sprintf("%s: stored %q, last written %q", n, got, want))
		}
		if ss.Generation != 2 {
			generations = append(generations, fmt.Sprintf("%s: %d", n, ss.Generation))
		}
	}
	for _, e := range []struct {
		what string
		list []string
	}{
		{"lost an update", lost},
		{"still have maxUnavailable", left},
		{"have a generation other than 2 (created, then cleared once)", generations},
	} {
		if len(e.list) > 0 {
			t.Errorf("%d StatefulSets %s: %s", len(e.list), e.what, strings.Join(e.list[:min(len(e.list), 10)], "; "))
		}
	}

	events, err := c.kube[finisher].CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{
		FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", name), fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
	if err != nil {
		t.Fatal(err)
	}
	completed := 0
	for _, e := range events.Items {
		t.Logf("event %s: %s", e.Reason, e.Message)
		if strings.HasPrefix(e.Message, "task "+migrationTask+":") {
			completed++
		}
	}
	// Events are recorded once the status write that completes the task is
	// stored, so a step from a stale copy of the Feature (see above) whose
	// write fails records none: exactly one, whichever apiserver finished.
	if completed != 1 {
		t.Errorf("%d TaskCompleted events of %s, want exactly 1", completed, migrationTask)
	}
	t.Logf("Feature %s Off %.1fs after the last apiserver was restarted with the gate off", name, off.Sub(restarted).Seconds())
	t.Logf("migration of %d StatefulSets at %d writes/s: %.1fs from the task's start to Off (%.1fs between checkpoints without a leader); %d checkpoints observed, the last %s",
		migrationObjects, migrationQPS, taskEnd.Sub(taskStart).Seconds(), leaderless.Seconds(), len(cps), brief(last.Migration))
	t.Logf("writers: %d updates to %d StatefulSets (%d between the first and the last checkpoint), %d conflicts, %d transport errors",
		total, len(written), during, writers.conflicts.Load(), writers.transportErrors.Load())
	t.Logf("migrator counters of %s: %+v", hosts[finisher], counters)
	if killed >= 0 {
		t.Logf("failover: killed %s at %.1fs into the migration with %d seen; %s took over after %.1fs and read %v more",
			hosts[killed], killedAt.Sub(taskStart).Seconds(), killedCP.Migration.Seen, hosts[finisher], failover.Seconds(), counters.seen)
	}
	t.Logf("whole test: %.1fs", time.Since(begin).Seconds())
}
