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
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
	reportinggate "k8s.io/features/featuregate"

	"k8s.io/featureflags/test/integration/framework"
)

// writeCounter counts status writes (PUT/PATCH of features/status) that a set
// of clients sends, by outcome.
type writeCounter struct {
	ok, conflict, other atomic.Int64
}

func (c *writeCounter) wrap(config *restclient.Config) *restclient.Config {
	config = restclient.CopyConfig(config)
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if (req.Method == http.MethodPut || req.Method == http.MethodPatch) && strings.HasSuffix(req.URL.Path, "/status") {
				switch {
				case err == nil && resp.StatusCode < 300:
					c.ok.Add(1)
				case err == nil && resp.StatusCode == http.StatusConflict:
					c.conflict.Add(1)
				default:
					c.other.Add(1)
				}
			}
			return resp, err
		})
	}
	return config
}

func (c *writeCounter) reset() { c.ok.Store(0); c.conflict.Store(0); c.other.Store(0) }

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

const simulatedGate = "SimulatedGate"

// simulation runs n in-process reporters of one component, each with its own
// identity, gate and client, reporting SimulatedGate to a namespace of its own.
type simulation struct {
	namespace string
	admin     featuresclient.Interface
	counter   writeCounter
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

func newSimulation(t testing.TB, apiserver *framework.APIServerProcess, namespace string) *simulation {
	t.Helper()
	ctx := context.Background()
	kube := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := &simulation{namespace: namespace, admin: featuresclient.NewForConfigOrDie(apiserver.ClientConfig())}
	f := &featuresv1alpha1.Feature{ObjectMeta: metav1.ObjectMeta{Name: "simulated-gate"}, Spec: featuresv1alpha1.FeatureSpec{Gate: simulatedGate}}
	if _, err := s.admin.FeaturesV1alpha1().Features(namespace).Create(ctx, f, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// start starts n reporters of component with identities <prefix>-<i>.
func (s *simulation) start(t testing.TB, config *restclient.Config, component, prefix string, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	config = s.counter.wrap(config)
	client := featuresclient.NewForConfigOrDie(config)
	for i := range n {
		inner := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
		if err := inner.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
			simulatedGate: {{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Beta}},
		}); err != nil {
			t.Fatal(err)
		}
		g := reportinggate.Wrap(inner, component)
		g.Enabled(simulatedGate)
		s.wg.Go(func() {
			opts := reportinggate.ReporterOptions{Namespace: s.namespace}
			if err := g.StartWithOptions(ctx, client, fmt.Sprintf("%s-%d", prefix, i), opts); err != nil && ctx.Err() == nil {
				t.Errorf("reporter %d: %v", i, err)
			}
		})
	}
}

func (s *simulation) stop() {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
}

// resetAndSettle clears uses, waits until an entry of component is back and
// no write has happened for quiet, and returns the writes by outcome.
func (s *simulation) resetAndSettle(t testing.TB, component string, quiet time.Duration) (ok, conflicts, other int64) {
	t.Helper()
	ctx := context.Background()
	client := s.admin.FeaturesV1alpha1().Features(s.namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		f, err := client.Get(ctx, "simulated-gate", metav1.GetOptions{})
		if err != nil {
			return err
		}
		f.Status.Uses = nil
		f.Status.UsesResetTime = ptrTime(metav1.Now())
		s.counter.reset()
		_, err = client.UpdateStatus(ctx, f, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	last, lastChange := int64(-1), time.Now()
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		total := s.counter.ok.Load() + s.counter.conflict.Load() + s.counter.other.Load()
		if total != last {
			last, lastChange = total, time.Now()
			return false, nil
		}
		if time.Since(lastChange) < quiet {
			return false, nil
		}
		f, err := client.Get(ctx, "simulated-gate", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, u := range f.Status.Uses {
			if u.Component == component {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("uses of %s did not settle after a reset: %v", component, err)
	}
	return s.counter.ok.Load(), s.counter.conflict.Load(), s.counter.other.Load()
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// TestManyReportersWriteLittle: after a reset of uses, 1000 reporters of one
// component write at most twice what one reporter writes.
func TestManyReportersWriteLittle(t *testing.T) {
	apiserver := framework.StartAPIServerProcess(t, "apiserver", framework.SharedEtcd().Prefix, lifecycleFlags...)
	quiet := 3 * time.Second // longer than the default first-write delay (2 s)

	one := newSimulation(t, apiserver, "sim-one")
	one.start(t, apiserver.ClientConfig(), "kube-scheduler", "one", 1)
	defer one.stop()
	one.resetAndSettle(t, "kube-scheduler", quiet) // first report
	ok1, conflicts1, other1 := one.resetAndSettle(t, "kube-scheduler", quiet)

	many := newSimulation(t, apiserver, "sim-many")
	many.start(t, apiserver.ClientConfig(), "kube-scheduler", "many", 1000)
	defer many.stop()
	many.resetAndSettle(t, "kube-scheduler", quiet)
	ok, conflicts, other := many.resetAndSettle(t, "kube-scheduler", quiet)
	t.Logf("writes after a reset: 1 reporter: %d ok, %d conflicts, %d other; 1000 reporters: %d ok, %d conflicts, %d other",
		ok1, conflicts1, other1, ok, conflicts, other)
	if ok1 != 1 {
		t.Fatalf("one reporter wrote %d times after a reset, want 1", ok1)
	}
	if ok > 2*ok1 {
		t.Fatalf("1000 reporters wrote %d times after a reset, more than twice one reporter's %d", ok, ok1)
	}
	if other != 0 {
		t.Fatalf("%d writes failed other than by conflict", other)
	}
	// Conflicts are rejected by the resourceVersion precondition before any
	// etcd write; a few percent of the reporters race the first write's watch
	// event. A quarter would mean the first-write delay does not spread them.
	if conflicts > 250 {
		t.Fatalf("%d conflicting writes: the first-write delay does not spread 1000 reporters", conflicts)
	}
	f, err := many.admin.FeaturesV1alpha1().Features("sim-many").Get(context.Background(), "simulated-gate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Status.Uses) != 1 || len(f.Status.Uses[0].Reporters) != 1 || !f.Status.Uses[0].Enabled {
		t.Fatalf("uses after the reset: %+v", f.Status.Uses)
	}
}
