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

package reporting

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"
	"k8s.io/features/options"
	"k8s.io/features/report"

	"k8s.io/kubernetes/pkg/featurelifecycle"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// The reporting scale harness: one apiserver process of ours and N
// simulated kubelets. Each simulated kubelet is what a real one is to the
// reporting layer: its own node credentials, its own client and TCP/TLS
// connection, component-base's gate with the real versioned specs, checking
// the gates a real kubelet checks (harness.KubeletCheckedGatesFile), and
// the real reporter (k8s.io/features/report) reporting under its node name; and a node lease renewed every 10 s, as the kubelet's lease
// controller does (through a separate pool of clients: that traffic is
// upstream's, not reporting's, and not counted as bytes sent to reporters).

// scaleTransitionGate is the kubelet-checked gate a transition turns off:
// beta and on by default, with no dependents.
const scaleTransitionGate = "KubeletCrashLoopBackOffMax"

// nodeLeaseRenewals bounds how many node leases the harness renews per
// second: a kubelet renews its lease every 10 s (a quarter of its 40 s
// duration), which for 5,000 nodes is 500 writes a second, more than this
// 2-core machine sustains next to everything else. Above 1,000 nodes the
// leases are renewed less often and last longer (always four renewals),
// so that no kubelet looks gone.
const nodeLeaseRenewals = 100

// nodeLeaseRenewInterval returns how often the harness renews each of n
// node leases: 10 s as a kubelet does, longer when that exceeds
// nodeLeaseRenewals a second.
func nodeLeaseRenewInterval(n int) time.Duration {
	return max(10*time.Second, time.Duration(n)*time.Second/nodeLeaseRenewals)
}

// scaleCluster is one apiserver process and its simulated kubelets.
type scaleCluster struct {
	apiserver *harness.APIServerProcess
	// prefix is the start of the apiserver's etcd keys.
	prefix string
	flags  []string
	admin  featuresclient.Interface
	kube   kubernetes.Interface
	etcd   *clientv3.Client
	// gates are the gates every simulated kubelet checks.
	gates []featuregate.Feature
	specs map[featuregate.Feature]featuregate.VersionedSpecs
	// defaults are the gates' values with nothing configured.
	defaults map[featuregate.Feature]bool
	nodes    []string
	// received counts the bytes the simulated kubelets read from their
	// connections to the apiserver (TLS records included); bodies counts
	// the bytes of the bodies of the apiserver's responses (watch streams
	// included), which is what the apiserver sends them whatever the
	// transport.
	received, bodies atomic.Int64
	// followed counts the bytes of the bodies of the lists and watches of
	// Features and FeatureTargets among bodies: what following desired
	// states costs.
	followed atomic.Int64
	// flow: the simulated kubelets follow desired states as well as report
	// (k8s.io/features/options, as a kubelet does), instead of only
	// reporting.
	flow bool

	mu       sync.Mutex
	kubelets map[string]*simKubelet

	stopLeases context.CancelFunc
	leasesDone chan struct{}
	// leaseDuration is how long a node lease lasts after its renewal;
	// longestGap is the longest time, in nanoseconds, a node lease went
	// without a successful renewal since the current phase began. A gap
	// longer than leaseDuration made a kubelet look gone to the apiserver:
	// a limit of the machine, not of reporting.
	leaseDuration time.Duration
	longestGap    atomic.Int64
}

// simKubelet is one simulated kubelet: its client (one connection, kept
// across restarts of its reporting), its gate and the context its reporter
// runs in.
type simKubelet struct {
	client featuresclient.Interface
	gate   featuregate.FeatureGate
	cancel context.CancelFunc
}

// startScaleCluster starts the apiserver with tokens for n nodes and
// flags, waits for its Features and starts renewing the nodes' leases.
func startScaleCluster(t testing.TB, n int, flags ...string) *scaleCluster {
	t.Helper()
	c := &scaleCluster{kubelets: map[string]*simKubelet{}, flags: flags}
	for i := range n {
		c.nodes = append(c.nodes, fmt.Sprintf("node-%05d", i))
	}
	all := utilfeature.DefaultFeatureGate.DeepCopy().GetAllVersioned()
	c.specs = map[featuregate.Feature]featuregate.VersionedSpecs{}
	for _, g := range harness.KubeletCheckedGates(t) {
		specs, ok := all[featuregate.Feature(g)]
		if !ok {
			t.Fatalf("%s lists %s, which this release does not know", harness.KubeletCheckedGatesFile, g)
		}
		c.gates = append(c.gates, featuregate.Feature(g))
		c.specs[featuregate.Feature(g)] = specs
	}
	inner, err := c.newGate(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.defaults = map[featuregate.Feature]bool{}
	for _, g := range c.gates {
		c.defaults[g] = inner.Enabled(g)
	}
	storage := harness.SharedEtcd()
	c.apiserver = harness.StartAPIServerProcessWithNodes(t, "apiserver", storage.Prefix, c.nodes, flags...)
	// Restarts with thousands of clients reconnecting take longer.
	c.apiserver.ReadyTimeout = 10 * time.Minute
	// The apiserver's keys start with "/" and its prefix.
	c.prefix = "/" + strings.TrimPrefix(storage.Prefix, "/")
	c.admin = featuresclient.NewForConfigOrDie(c.apiserver.ClientConfig())
	c.kube = kubernetes.NewForConfigOrDie(c.apiserver.ClientConfig())
	c.etcd, err = clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.etcd.Close() })
	waitForFeatureCount(t, c.admin, len(harness.KnownGates()))
	c.startLeases(t)
	t.Cleanup(c.stop)
	return c
}

// waitForFeatureCount waits until kube-system holds want Features.
func waitForFeatureCount(t testing.TB, client featuresclient.Interface, want int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.FeaturesV1alpha1().Features(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) >= want, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d Features: %v", want, err)
	}
}

// startLeases creates every node's lease and renews each every
// nodeLeaseRenewInterval(n), spread over the interval, with a pool of clients
// that is not counted as reporting traffic.
func (c *scaleCluster) startLeases(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c.stopLeases, c.leasesDone = cancel, make(chan struct{})
	// Renewals are synchronous: enough workers that the apiserver's
	// latency under load does not stretch a worker's round past the
	// interval.
	const pool, workers = 8, 64
	clients := make([]kubernetes.Interface, pool)
	for i := range clients {
		clients[i] = kubernetes.NewForConfigOrDie(c.apiserver.ClientConfig())
	}
	leases := make([]*coordinationv1.Lease, len(c.nodes))
	renewed := make([]time.Time, len(c.nodes))
	interval := nodeLeaseRenewInterval(len(c.nodes))
	duration := int32(4 * interval / time.Second)
	c.leaseDuration = time.Duration(duration) * time.Second
	err := parallel(len(c.nodes), 32, func(i int) error {
		now := metav1.NewMicroTime(time.Now())
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: c.nodes[i], Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(c.nodes[i]), LeaseDurationSeconds: ptr.To(duration),
				RenewTime: &now},
		}
		created, err := clients[i%pool].CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, lease, metav1.CreateOptions{})
		leases[i], renewed[i] = created, now.Time
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.leasesDone)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				// Worker w renews leases w, w+workers, ...: each once per
				// interval, spread evenly over it.
				var mine []int
				for i := w; i < len(leases); i += workers {
					mine = append(mine, i)
				}
				if len(mine) == 0 {
					return
				}
				tick := time.NewTicker(interval / time.Duration(len(mine)))
				defer tick.Stop()
				for k := 0; ; k = (k + 1) % len(mine) {
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
					}
					i := mine[k]
					lease := leases[i].DeepCopy()
					now := metav1.NewMicroTime(time.Now())
					lease.Spec.RenewTime = &now
					client := clients[w%pool]
					updated, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Update(ctx, lease, metav1.UpdateOptions{})
					if err != nil {
						if got, gerr := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, lease.Name, metav1.GetOptions{}); gerr == nil {
							leases[i] = got
						}
						continue
					}
					c.noteGap(now.Sub(renewed[i]))
					leases[i], renewed[i] = updated, now.Time
				}
			})
		}
		wg.Wait()
	}()
}

// noteGap records the time a node lease went without renewal.
func (c *scaleCluster) noteGap(gap time.Duration) {
	for {
		old := c.longestGap.Load()
		if int64(gap) <= old || c.longestGap.CompareAndSwap(old, int64(gap)) {
			return
		}
	}
}

func (c *scaleCluster) stop() {
	c.mu.Lock()
	for _, k := range c.kubelets {
		k.cancel()
	}
	c.kubelets = map[string]*simKubelet{}
	c.mu.Unlock()
	if c.stopLeases != nil {
		c.stopLeases()
		<-c.leasesDone
		c.stopLeases = nil
	}
}

// startKubelets starts (or restarts, as a kubelet restarted with another
// configuration) the reporting of every node with the gates in off turned
// off, and returns when the last one has started.
func (c *scaleCluster) startKubelets(t testing.TB, off ...featuregate.Feature) time.Time {
	t.Helper()
	err := parallel(len(c.nodes), 32, func(i int) error { return c.startKubelet(c.nodes[i], off) })
	if err != nil {
		t.Fatal(err)
	}
	return time.Now()
}

func (c *scaleCluster) startKubelet(node string, off []featuregate.Feature) error {
	c.mu.Lock()
	k, ok := c.kubelets[node]
	c.mu.Unlock()
	if ok {
		k.cancel()
	} else {
		// Not connected by connectKubelets: connect now.
		client, err := c.newKubeletClient(node)
		if err != nil {
			return err
		}
		k = &simKubelet{client: client}
	}
	gate, err := c.newGate(off)
	if err != nil {
		return err
	}
	for _, g := range c.gates {
		gate.Enabled(g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if c.flow {
		opts := kubeletReporterOptions(node)
		// Each simulated kubelet is a process of its own, started now.
		component := options.Component{Name: opts.Component, Identity: opts.Identity, HolderLease: opts.HolderLease, StartTime: time.Now()}
		if err := (&options.Options{}).Start(ctx, gate, k.client, component); err != nil {
			cancel()
			return err
		}
	} else {
		reporter, err := report.NewReporter(gate, k.client, kubeletReporterOptions(node))
		if err != nil {
			cancel()
			return err
		}
		go reporter.Run(ctx)
	}
	c.mu.Lock()
	c.kubelets[node] = &simKubelet{client: k.client, gate: gate, cancel: cancel}
	c.mu.Unlock()
	return nil
}

// connectKubelets opens every kubelet's connection to the apiserver (as a
// kubelet has one for its node and pods anyway), so that the phases measure
// reporting and not TLS handshakes.
func (c *scaleCluster) connectKubelets(t testing.TB) {
	t.Helper()
	err := parallel(len(c.nodes), 32, func(i int) error {
		client, err := c.newKubeletClient(c.nodes[i])
		if err != nil {
			return err
		}
		if err := client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(context.Background()).Error(); err != nil {
			return err
		}
		c.mu.Lock()
		c.kubelets[c.nodes[i]] = &simKubelet{client: client, cancel: func() {}}
		c.mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newKubeletClient returns a client of node's own, with its credentials
// and its own connection, counted.
func (c *scaleCluster) newKubeletClient(node string) (featuresclient.Interface, error) {
	config := c.apiserver.ClientConfigFor(harness.NodeTokenFor(node))
	// A kubelet's client defaults.
	config.QPS, config.Burst = 50, 100
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	config.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: conn, read: &c.received}, nil
	}
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return bodyCounter{next: rt, read: &c.bodies, features: &c.followed}
	}
	return featuresclient.NewForConfig(config)
}

// bodyCounter counts the bytes of the bodies of responses, and apart
// those of requests for Features and FeatureTargets (lists, watches, gets):
// what following costs.
type bodyCounter struct {
	next     http.RoundTripper
	read     *atomic.Int64
	features *atomic.Int64
}

func (b bodyCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		body := &countingBody{ReadCloser: resp.Body, read: b.read}
		if p := req.URL.Path; strings.HasSuffix(p, "/features") || strings.Contains(p, "/features/") ||
			strings.HasSuffix(p, "/featuretargets") || strings.Contains(p, "/featuretargets/") {
			body.also = b.features
		}
		resp.Body = body
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	read, also *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.read.Add(int64(n))
	if c.also != nil {
		c.also.Add(int64(n))
	}
	return n, err
}

// newGate returns a gate of the kubelet-checked gates' real versioned specs
// at the binary's emulation version, with the gates in off turned off.
func (c *scaleCluster) newGate(off []featuregate.Feature) (featuregate.MutableVersionedFeatureGate, error) {
	inner := featuregate.NewVersionedFeatureGate(utilfeature.DefaultFeatureGate.DeepCopy().EmulationVersion())
	if err := inner.AddVersioned(c.specs); err != nil {
		return nil, err
	}
	overrides := map[string]bool{}
	for _, g := range off {
		overrides[string(g)] = false
	}
	return inner, inner.SetFromMap(overrides)
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.read.Add(int64(n))
	return n, err
}

// parallel runs f(0..n-1) with at most workers at once and returns the
// first error.
func parallel(n, workers int, f func(i int) error) error {
	var (
		next  atomic.Int64
		first error
		once  sync.Once
		wg    sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		})
	}
	wg.Wait()
	return first
}

// kubeletsSettled says whether every gate the kubelets check has exactly
// the kubelet entry with value want(gate), with a full sample of reporters,
// in its Feature's uses.
func (c *scaleCluster) kubeletsSettled(ctx context.Context, want func(featuregate.Feature) bool) (bool, string, error) {
	list, err := c.admin.FeaturesV1alpha1().Features(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, "", err
	}
	byGate := map[string]*featuresv1alpha1.Feature{}
	for i := range list.Items {
		byGate[list.Items[i].Spec.Gate] = &list.Items[i]
	}
	sample := min(len(c.nodes), featuresv1alpha1.MaxSampledReporters)
	for _, g := range c.gates {
		f, ok := byGate[string(g)]
		if !ok {
			return false, fmt.Sprintf("no Feature of %s", g), nil
		}
		var entries []string
		ok = false
		for _, u := range f.Status.Uses {
			if u.Component != "kubelet" {
				continue
			}
			entries = append(entries, fmt.Sprintf("enabled=%t(%d)", u.Enabled, len(u.Reporters)))
			ok = u.Enabled == want(g) && len(u.Reporters) == sample
		}
		if !ok || len(entries) != 1 {
			return false, fmt.Sprintf("%s: kubelet uses %v, want enabled=%t(%d)", g, entries, want(g), sample), nil
		}
	}
	return true, "", nil
}

// waitSettled waits until the kubelets' uses are settled with the values
// want gives (kubeletsSettled).
func (c *scaleCluster) waitSettled(t testing.TB, want func(featuregate.Feature) bool) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		ok, why, err := c.kubeletsSettled(ctx, want)
		last = why
		return ok, err
	})
	if err != nil {
		t.Fatalf("uses did not settle: %v: %s", err, last)
	}
}

// featureConverged says whether gate's Feature is in its final state want
// and Converged.
func (c *scaleCluster) featureConverged(ctx context.Context, gate string, want featuresv1alpha1.FeatureState) (bool, error) {
	f, err := c.admin.FeaturesV1alpha1().Features(metav1.NamespaceSystem).Get(ctx, featuresv1alpha1.FeatureName(gate), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return f.Status.State == want && meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged), nil
}

// phase is what one phase of a scenario cost.
type phase struct {
	name string
	// bytes is what the simulated kubelets read from their connections to
	// the apiserver; bodies the bodies of its responses among them.
	bytes, bodies int64
	// followed is the bodies of the lists and watches of Features and
	// FeatureTargets among bodies.
	followed int64
	// cpu is the apiserver's CPU time.
	cpu time.Duration
	// writes counts etcd writes by resource (the first key segment after
	// the apiserver's prefix).
	writes map[string]int
	// featureWrites counts the writes of each Feature.
	featureWrites map[string]int
	elapsed       time.Duration
	// longestGap is the longest a node lease went without renewal during
	// the phase, against leaseDuration.
	longestGap, leaseDuration time.Duration
}

// measure runs run and returns what it cost. Quiet is how long no write to
// features (or a reporting resource) must be seen before the phase ends,
// once run returned.
func (c *scaleCluster) measure(t testing.TB, name string, quiet time.Duration, run func()) phase {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	status, err := c.etcd.Status(ctx, harness.EtcdURL())
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu            sync.Mutex
		writes        = map[string]int{}
		featureWrites = map[string]int{}
		lastWrite     = time.Now()
	)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		for resp := range c.etcd.Watch(clientv3.WithRequireLeader(ctx), c.prefix+"/", clientv3.WithPrefix(),
			clientv3.WithRev(status.Header.Revision+1), clientv3.WithPrevKV()) {
			mu.Lock()
			for _, ev := range resp.Events {
				resource, rest, _ := strings.Cut(strings.TrimPrefix(string(ev.Kv.Key), c.prefix+"/"), "/")
				writes[resource]++
				if resource == "features" {
					featureWrites[rest]++
				}
				if resource != "leases" && resource != "events" {
					lastWrite = time.Now()
				}
			}
			mu.Unlock()
		}
	}()
	bytes0, bodies0, followed0, cpu0, start := c.received.Load(), c.bodies.Load(), c.followed.Load(), c.apiserver.CPUTime(), time.Now()
	c.longestGap.Store(0)
	run()
	// The phase ends once nothing but leases and events was written for
	// quiet.
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 5*time.Minute, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return time.Since(lastWrite) >= quiet, nil
	})
	if err != nil {
		t.Fatalf("%s: writes did not stop: %v", name, err)
	}
	mu.Lock()
	end := lastWrite
	p := phase{name: name, bytes: c.received.Load() - bytes0, bodies: c.bodies.Load() - bodies0, followed: c.followed.Load() - followed0,
		cpu:    c.apiserver.CPUTime() - cpu0,
		writes: maps.Clone(writes), featureWrites: maps.Clone(featureWrites), elapsed: end.Sub(start),
		longestGap: time.Duration(c.longestGap.Load()), leaseDuration: c.leaseDuration}
	mu.Unlock()
	cancel()
	<-watching
	return p
}

func (p phase) String() string {
	var w []string
	for _, r := range slices.Sorted(maps.Keys(p.writes)) {
		w = append(w, fmt.Sprintf("%s=%d", r, p.writes[r]))
	}
	// The Features written most.
	keys := slices.Collect(maps.Keys(p.featureWrites))
	slices.SortFunc(keys, func(a, b string) int { return p.featureWrites[b] - p.featureWrites[a] })
	var most []string
	for _, k := range keys[:min(3, len(keys))] {
		most = append(most, fmt.Sprintf("%s=%d", k, p.featureWrites[k]))
	}
	gap := fmt.Sprintf("longest node lease renewal gap %.0fs of %.0fs", p.longestGap.Seconds(), p.leaseDuration.Seconds())
	if p.longestGap > p.leaseDuration {
		gap += " (kubelets looked gone: the harness could not renew in time)"
	}
	return fmt.Sprintf("%s: %d bytes to kubelets (%d in response bodies), apiserver CPU %.2fs, %s, etcd writes %s (%d Features written; most: %s); %s",
		p.name, p.bytes, p.bodies, p.cpu.Seconds(), p.elapsed.Round(100*time.Millisecond), strings.Join(w, " "), len(p.featureWrites), strings.Join(most, " "), gap)
}

// scaleFigures are the figures of one run of the scenario.
type scaleFigures struct {
	nodes                      int
	start, restart, transition phase
	// converged is the time from the last kubelet's switch to the
	// transitioned Feature's final state.
	converged time.Duration
	// rss and peak are the apiserver's memory after the start; base is
	// its resident set before, with every kubelet's connection open.
	rss, peak, base int64
}

// runScaleScenario runs, for n kubelets: (a) the reporters' start until the
// uses are settled; (c) an apiserver restart with the same flags until
// settled; (b) one transition of scaleTransitionGate: the apiserver
// restarted with it off, then every kubelet restarted with it off, until
// the Feature is Disabled and Converged; converged is the time from the last
// kubelet's restart to then.
func runScaleScenario(t testing.TB, n int, flags ...string) scaleFigures {
	t.Helper()
	c := startScaleCluster(t, n, flags...)
	fig := scaleFigures{nodes: n}
	ctx := context.Background()
	settled := func(want func(featuregate.Feature) bool) { c.waitSettled(t, want) }
	// Every kubelet starts with every gate at its default.
	defaults := func(g featuregate.Feature) bool { return c.defaults[g] }
	c.connectKubelets(t)
	fig.base, _, _ = c.apiserver.Memory()
	fig.start = c.measure(t, "start", 5*time.Second, func() {
		c.startKubelets(t)
		settled(defaults)
	})
	fig.rss, fig.peak, _ = c.apiserver.Memory()
	t.Logf("%d nodes: %s; apiserver RSS %d MiB (peak %d MiB; %d MiB before, with the kubelets connected)", n, fig.start, fig.rss>>20, fig.peak>>20, fig.base>>20)
	fig.restart = c.measure(t, "restart", 5*time.Second, func() {
		c.apiserver.Restart(t, c.flags...)
		waitForFeatureCount(t, c.admin, len(harness.KnownGates()))
		settled(defaults)
	})
	t.Logf("%d nodes: %s", n, fig.restart)
	off := append(slices.Clone(c.flags), "--feature-gates=FeatureLifecycle=true,"+scaleTransitionGate+"=false")
	var lastSwitch time.Time
	transitionDefaults := func(g featuregate.Feature) bool { return g != scaleTransitionGate && c.defaults[g] }
	fig.transition = c.measure(t, "transition", 5*time.Second, func() {
		c.apiserver.Restart(t, off...)
		lastSwitch = c.startKubelets(t, scaleTransitionGate)
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
			return c.featureConverged(ctx, scaleTransitionGate, featuresv1alpha1.FeatureStateDisabled)
		})
		if err != nil {
			t.Fatalf("%s did not reach Disabled: %v", scaleTransitionGate, err)
		}
		fig.converged = time.Since(lastSwitch)
		settled(transitionDefaults)
	})
	return fig
}

// reportingResources are the etcd key segments of what reporting writes.
var reportingResources = []string{"features", "featurereports"}

func (p phase) reportingWrites() (total int) {
	for _, r := range reportingResources {
		total += p.writes[r]
	}
	return total
}

// BenchmarkReportingScale runs the reporting scale scenario
// (runScaleScenario) for 100, 1,000 and 5,000 simulated kubelets
// (FEATUREFLAGS_SCALE_NODES, comma-separated, to change) with the
// apiserver's default lifecycle flags, and reports per node: the bytes the
// apiserver sent to the kubelets and its CPU time for the reporters' start,
// an apiserver restart and one transition; the etcd writes of reporting
// (Features and reports) per phase; the time from the last kubelet's switch
// to the Feature's final state; and the apiserver's memory.
func BenchmarkReportingScale(b *testing.B) {
	for _, n := range scaleNodeCounts(b, "100,1000,5000") {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			var fig scaleFigures
			for b.Loop() {
				fig = runScaleScenario(b, n, harness.LifecycleFlags...)
			}
			// The scenario logged the start, the memory and the restart.
			b.Logf("%d nodes: %s; converged %.1fs after the last kubelet switched", n, fig.transition, fig.converged.Seconds())
			perNode := func(v float64) float64 { return v / float64(n) }
			b.ReportMetric(perNode(float64(fig.start.bytes)), "start-B/node")
			b.ReportMetric(perNode(float64(fig.start.bodies)), "start-body-B/node")
			b.ReportMetric(perNode(fig.start.cpu.Seconds()*1000), "start-cpu-ms/node")
			b.ReportMetric(float64(fig.start.reportingWrites()), "start-writes")
			b.ReportMetric(perNode(float64(fig.restart.bytes)), "restart-B/node")
			b.ReportMetric(perNode(float64(fig.restart.bodies)), "restart-body-B/node")
			b.ReportMetric(perNode(fig.restart.cpu.Seconds()*1000), "restart-cpu-ms/node")
			b.ReportMetric(float64(fig.restart.reportingWrites()), "restart-writes")
			b.ReportMetric(perNode(float64(fig.transition.bytes)), "transition-B/node")
			b.ReportMetric(perNode(float64(fig.transition.bodies)), "transition-body-B/node")
			b.ReportMetric(perNode(fig.transition.cpu.Seconds()*1000), "transition-cpu-ms/node")
			b.ReportMetric(float64(fig.transition.writes["features"]), "transition-feature-writes")
			b.ReportMetric(float64(fig.transition.reportingWrites()), "transition-writes")
			b.ReportMetric(fig.converged.Seconds(), "converge-s")
			b.ReportMetric(float64(fig.rss>>20), "rss-MiB")
			b.ReportMetric(float64(fig.base>>20), "rss-before-MiB")
		})
	}
}

// scaleNodeCounts returns the node counts of FEATUREFLAGS_SCALE_NODES, or
// of def.
func scaleNodeCounts(t testing.TB, def string) []int {
	t.Helper()
	spec := def
	if v := strings.TrimSpace(os.Getenv("FEATUREFLAGS_SCALE_NODES")); v != "" {
		spec = v
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			t.Fatalf("FEATUREFLAGS_SCALE_NODES: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out
}

// TestReportingScale is the small variant of BenchmarkReportingScale that
// make test runs: for 10 and 40 simulated kubelets it asserts how the cost
// of reporting grows, not how long it takes. A transition of a gate the
// kubelets check sends each kubelet at most 1 KiB, no more per kubelet for
// 40 than for 10; etcd sees one write per kubelet whose value changed and a
// number of writes of the Feature that does not grow with the kubelets; an
// apiserver restart sends the kubelets nothing; and the Feature reaches Disabled
// within the liveness window plus 5 s of the last kubelet's switch.
func TestReportingScale(t *testing.T) {
	const small, large = 10, 40
	figs := map[int]scaleFigures{}
	for _, n := range []int{small, large} {
		figs[n] = runScaleScenario(t, n, harness.LifecycleFlags...)
		fig := figs[n]
		t.Logf("%d nodes: %s; converged %.1fs after the last kubelet switched", n, fig.transition, fig.converged.Seconds())
	}
	perNode := func(v int64, n int) float64 { return float64(v) / float64(n) }
	for _, n := range []int{small, large} {
		fig := figs[n]
		if b := perNode(fig.transition.bodies, n); b > 1024 {
			t.Errorf("%d nodes: a transition sent %.0f bytes per kubelet, want at most 1 KiB", n, b)
		}
		// The restarted apiserver recomputes every Feature's uses from the
		// reports; with an index that had seen them all, the kubelets'
		// uses do not change. (A few writes of kube-apiserver's own gates
		// were seen at 40 nodes; one per kubelet gate, 54, is the failure
		// this guards against.)
		if w := fig.restart.writes["features"]; w > 10 {
			t.Errorf("%d nodes: an apiserver restart wrote Features %d times, want a few at most: the kubelets changed nothing", n, w)
		}
		if b := perNode(fig.restart.bodies, n); b > 0 {
			t.Errorf("%d nodes: an apiserver restart sent %.0f bytes per kubelet, want none: kubelets read nothing of the Features", n, b)
		}
		// One report write per kubelet whose value changed, and the
		// apiserver's own.
		if w := fig.transition.writes["featurereports"]; w < n || w > n+2 {
			t.Errorf("%d nodes: %d report writes in a transition, want one per kubelet and the apiserver's (%d..%d)", n, w, n, n+2)
		}
		if w := fig.transition.writes["features"]; w > 20 {
			t.Errorf("%d nodes: %d writes of Features in a transition, want a number that does not grow with the kubelets (at most 20)", n, w)
		}
		if window := featurelifecycle.DefaultConfig().LivenessWindow; fig.converged > window+5*time.Second {
			t.Errorf("%d nodes: Disabled %v after the last kubelet switched, want within the liveness window (%v) plus 5s", n, fig.converged, window)
		}
	}
	if s, l := perNode(figs[small].transition.bodies, small), perNode(figs[large].transition.bodies, large); l > 1.5*s+64 {
		t.Errorf("bytes per kubelet in a transition grow with the kubelets: %.0f for %d, %.0f for %d", s, small, l, large)
	}
	if s, l := figs[small].transition.writes["features"], figs[large].transition.writes["features"]; l > s+5 {
		t.Errorf("writes of Features in a transition grow with the kubelets: %d for %d, %d for %d", s, small, l, large)
	}
}
