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

package report

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
)

func newTestGate(t *testing.T) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	g := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	err := g.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"AlphaGate": {{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha}},
		"BetaGate":  {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// fakeStore is a report store for the reporter's write and read.
type fakeStore struct {
	mu         sync.Mutex
	writes     []*featuresv1alpha1.FeatureReport
	generation int64
	missing    bool
}

func (s *fakeStore) write(_ context.Context, r *featuresv1alpha1.FeatureReport) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, r.DeepCopy())
	s.missing = false
	s.generation++
	return s.generation, nil
}

func (s *fakeStore) read(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.missing {
		return 0, apierrors.NewNotFound(featuresv1alpha1.Resource("featurereports"), "x")
	}
	return s.generation, nil
}

func (s *fakeStore) get() []*featuresv1alpha1.FeatureReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.writes)
}

// testReporter returns a reporter of g whose writes and reads go to a
// fakeStore and whose clock is *now (nil: the real clock).
func testReporter(t *testing.T, g featuregate.FeatureGate, opts Options, now *time.Time) (*Reporter, *fakeStore) {
	t.Helper()
	if opts.Component == "" {
		opts.Component = "kubelet"
	}
	if opts.Identity == "" {
		opts.Identity = "id-1"
	}
	r, err := NewReporter(g, fake.NewClientset(), opts)
	if err != nil {
		t.Fatal(err)
	}
	store := &fakeStore{}
	r.write, r.read = store.write, store.read
	if now != nil {
		r.now = func() time.Time { return *now }
	}
	return r, store
}

func gatesOf(r *featuresv1alpha1.FeatureReport) map[string]bool {
	out := map[string]bool{}
	for _, g := range r.Spec.Gates {
		out[g.Name] = g.Enabled
	}
	return out
}

func TestNewReporterValidates(t *testing.T) {
	g := newTestGate(t)
	for name, opts := range map[string]Options{
		"no component": {Identity: "a"},
		"no identity":  {Component: "kubelet"},
	} {
		if _, err := NewReporter(g, nil, opts); err == nil {
			t.Errorf("%s: NewReporter accepted %+v", name, opts)
		}
	}
	if _, err := NewReporter(nil, nil, Options{Component: "kubelet", Identity: "a"}); err == nil {
		t.Error("NewReporter accepted no gate")
	}
}

func TestReportWrittenWhenValuesChange(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newTestGate(t)
	lease := &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: "id-1"}
	r, store := testReporter(t, g, Options{HolderLease: lease}, &now)
	g.Enabled("AlphaGate")
	ctx := context.Background()

	next, err := r.sync(ctx)
	if err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	w := store.writes[0]
	if w.Name != "kubelet.id-1" || w.Namespace != "kube-system" || w.Spec.Component != "kubelet" || w.Spec.Identity != "id-1" ||
		!slices.Equal(w.Spec.Gates, []featuresv1alpha1.FeatureReportGate{{Name: "AlphaGate", Enabled: false}}) ||
		w.Spec.HolderLease == nil || *w.Spec.HolderLease != *lease || w.Spec.LeaseDurationSeconds != nil ||
		w.Spec.RenewTime == nil || !w.Spec.RenewTime.Time.Equal(now) ||
		w.Spec.StartTime == nil || !w.Spec.StartTime.Time.Equal(processStart) {
		t.Fatalf("first report: %+v", w)
	}
	if next < 4*time.Minute {
		t.Errorf("with a holder lease the next look is the verify interval, got %v", next)
	}

	// Nothing changed: nothing written, however late.
	now = now.Add(time.Minute)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 1 {
		t.Fatalf("unchanged values: %d writes, %v", len(store.writes), err)
	}

	// A new query is written, with every gate queried so far.
	g.Enabled("BetaGate")
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 2 {
		t.Fatalf("new query: %d writes, %v", len(store.writes), err)
	}
	if got := gatesOf(store.writes[1]); len(got) != 2 || got["AlphaGate"] || !got["BetaGate"] {
		t.Errorf("second report's gates: %v", got)
	}

	// A mutation of the gate changes a value: written.
	if err := g.SetFromMap(map[string]bool{"BetaGate": false}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 3 || gatesOf(store.writes[2])["BetaGate"] {
		t.Fatalf("changed value: %d writes, %v", len(store.writes), err)
	}
}

// TestQueriesBeforeTheReporterAreReported checks that the gates a process
// queried before it had a client are reported.
func TestQueriesBeforeTheReporterAreReported(t *testing.T) {
	g := newTestGate(t)
	g.Enabled("BetaGate")
	r, store := testReporter(t, g, Options{}, nil)
	if _, err := r.sync(context.Background()); err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	if got := gatesOf(store.writes[0]); len(got) != 1 || !got["BetaGate"] {
		t.Errorf("the report must hold the gates queried before the reporter existed: %v", got)
	}
}

// TestReportingIsNotAQuery checks that reading the values to report does not
// count as a query of the gate.
func TestReportingIsNotAQuery(t *testing.T) {
	for _, all := range []bool{false, true} {
		g := newTestGate(t)
		r, store := testReporter(t, g, Options{ReportAllKnown: all}, nil)
		g.Enabled("AlphaGate")
		var told []featuregate.Feature
		g.(featuregate.QueryObserver).ObserveQueries(func(f featuregate.Feature) { told = append(told, f) })
		told = nil // the replay
		if _, err := r.sync(context.Background()); err != nil || len(store.writes) != 1 {
			t.Fatalf("ReportAllKnown %t: %d writes, %v", all, len(store.writes), err)
		}
		if len(told) != 0 {
			t.Errorf("ReportAllKnown %t: reporting queried %v", all, told)
		}
	}
}

func TestReportRenewedWithoutHolderLease(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newTestGate(t)
	g.Enabled("BetaGate")
	r, store := testReporter(t, g, Options{Component: "kube-scheduler", LeaseDuration: 40 * time.Second}, &now)
	ctx := context.Background()
	next, err := r.sync(ctx)
	if err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	if d := store.writes[0].Spec.LeaseDurationSeconds; d == nil || *d != 40 || store.writes[0].Spec.HolderLease != nil {
		t.Fatalf("a report renewed by its reporter states its lease duration: %+v", store.writes[0].Spec)
	}
	if next < 9*time.Second || next > 11*time.Second {
		t.Errorf("next renewal in %v, want about 10s (a quarter of the lease)", next)
	}
	now = now.Add(5 * time.Second)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 1 {
		t.Fatalf("before the renewal: %d writes, %v", len(store.writes), err)
	}
	now = now.Add(5 * time.Second)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 2 {
		t.Fatalf("renewal due: %d writes, %v", len(store.writes), err)
	}
	if !store.writes[1].Spec.RenewTime.Time.Equal(now) {
		t.Errorf("a renewal moves renewTime to %v, got %v", now, store.writes[1].Spec.RenewTime)
	}
}

func TestReportVerifiedWhenNotRenewed(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newTestGate(t)
	g.Enabled("BetaGate")
	lease := &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: "id-1"}
	r, store := testReporter(t, g, Options{HolderLease: lease, VerifyInterval: time.Minute}, &now)
	ctx := context.Background()
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	// Verified as written: nothing to do.
	now = now.Add(time.Minute)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 1 {
		t.Fatalf("verified: %d writes, %v", len(store.writes), err)
	}
	// Deleted meanwhile: written again at the next verification.
	store.missing = true
	now = now.Add(30 * time.Second)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 1 {
		t.Fatalf("not yet due: %d writes, %v", len(store.writes), err)
	}
	now = now.Add(30 * time.Second)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 2 {
		t.Fatalf("a deleted report must be written again: %d writes, %v", len(store.writes), err)
	}
	// Changed by someone else (another generation): written again.
	store.generation += 5
	now = now.Add(time.Minute)
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 3 {
		t.Fatalf("a changed report must be written again: %d writes, %v", len(store.writes), err)
	}
}

func TestReportAllKnown(t *testing.T) {
	g := newTestGate(t)
	r, store := testReporter(t, g, Options{Component: featuresv1alpha1.APIServerComponent, ReportAllKnown: true,
		Annotations: map[string]string{featuresv1alpha1.EmulationVersionAnnotation: "1.36"}}, nil)
	if _, err := r.sync(context.Background()); err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	w := store.writes[0]
	// AllAlpha and AllBeta are not features of their own.
	if got := gatesOf(w); len(got) != 2 || got["AlphaGate"] || !got["BetaGate"] {
		t.Errorf("kube-apiserver reports every gate it knows, queried or not: %v", got)
	}
	if w.Annotations[featuresv1alpha1.EmulationVersionAnnotation] != "1.36" {
		t.Errorf("annotations not written: %v", w.Annotations)
	}
}

func TestReportManagement(t *testing.T) {
	g := newTestGate(t)
	g.Enabled("AlphaGate")
	g.Enabled("BetaGate")
	r, store := testReporter(t, g, Options{Management: func(f featuregate.Feature) (featuresv1alpha1.FeatureManagement, bool) {
		if f == "AlphaGate" {
			return featuresv1alpha1.FeatureManagementCentral, true
		}
		return "", false
	}}, nil)
	if _, err := r.sync(context.Background()); err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	want := []featuresv1alpha1.FeatureReportGate{
		{Name: "AlphaGate", Enabled: false, Management: featuresv1alpha1.FeatureManagementCentral, Cached: true},
		{Name: "BetaGate", Enabled: true},
	}
	if got := store.writes[0].Spec.Gates; !slices.Equal(got, want) {
		t.Errorf("gates %+v, want %+v", got, want)
	}
}

// hiddenGate is a feature gate that does not tell its queries.
type hiddenGate struct{ featuregate.FeatureGate }

func TestGateWithoutQueryObserver(t *testing.T) {
	g := newTestGate(t)
	g.Enabled("AlphaGate")
	r, store := testReporter(t, hiddenGate{g}, Options{}, nil)
	if _, err := r.sync(context.Background()); err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	if got := store.writes[0].Spec.Gates; len(got) != 0 {
		t.Errorf("a gate that does not tell its queries has nothing to report, got %v", got)
	}
	r, store = testReporter(t, hiddenGate{g}, Options{ReportAllKnown: true}, nil)
	if _, err := r.sync(context.Background()); err != nil || len(gatesOf(store.writes[0])) != 2 {
		t.Fatalf("ReportAllKnown needs no observer: %v, %v", store.writes, err)
	}
}

// TestRun checks that Run writes the report at once, and again shortly
// after a first query or a call of Changed, until its context ends.
func TestRun(t *testing.T) {
	g := newTestGate(t)
	r, store := testReporter(t, g, Options{Coalesce: 10 * time.Millisecond, HolderLease: &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: "id-1"}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		r.Run(ctx)
		close(done)
	}()
	waitFor := func(what string, cond func([]*featuresv1alpha1.FeatureReport) bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return cond(store.get()), nil
		}); err != nil {
			t.Fatalf("%s: %d writes", what, len(store.get()))
		}
	}
	waitFor("first write", func(w []*featuresv1alpha1.FeatureReport) bool { return len(w) == 1 })
	g.Enabled("BetaGate")
	waitFor("a first query is written", func(w []*featuresv1alpha1.FeatureReport) bool {
		return len(w) == 2 && gatesOf(w[1])["BetaGate"]
	})
	if err := g.SetFromMap(map[string]bool{"BetaGate": false}); err != nil {
		t.Fatal(err)
	}
	r.Changed()
	waitFor("a change is written", func(w []*featuresv1alpha1.FeatureReport) bool {
		return len(w) == 3 && !gatesOf(w[2])["BetaGate"]
	})
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
}

// TestApplyAsksForMetadataOnly checks the request a report is stored with:
// a server-side apply by the component, forced, that asks for the
// object's metadata only in the answer.
func TestApplyAsksForMetadataOnly(t *testing.T) {
	var got *http.Request
	var body []byte
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		got = req
		body, _ = io.ReadAll(req.Body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: metav1.ObjectMeta{Name: "kubelet.node-1", Generation: 7},
		})
	}))
	defer server.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	g := newTestGate(t)
	g.Enabled("AlphaGate")
	r, err := NewReporter(g, client, Options{Component: "kubelet", Identity: "node-1"})
	if err != nil {
		t.Fatal(err)
	}
	generation, err := r.apply(context.Background(), r.report(r.gates(), time.Now()))
	if err != nil || generation != 7 {
		t.Fatalf("apply: generation %d, %v", generation, err)
	}
	if got.Method != http.MethodPatch || got.URL.Path != "/apis/features.k8s.io/v1alpha1/namespaces/kube-system/featurereports/kubelet.node-1" ||
		got.URL.Query().Get("fieldManager") != "kubelet" || got.URL.Query().Get("force") != "true" ||
		got.Header.Get("Content-Type") != "application/apply-patch+yaml" || got.Header.Get("Accept") != partialObjectMetadata {
		t.Fatalf("request: %s %s, Content-Type %q, Accept %q", got.Method, got.URL, got.Header.Get("Content-Type"), got.Header.Get("Accept"))
	}
	var sent featuresv1alpha1.FeatureReport
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Kind != "FeatureReport" || sent.APIVersion != "features.k8s.io/v1alpha1" || sent.Spec.Identity != "node-1" || len(sent.Spec.Gates) != 1 {
		t.Errorf("sent %+v", sent)
	}

	// The verification reads the metadata only, too.
	generation, err = r.readGeneration(context.Background())
	if err != nil || generation != 7 || got.Method != http.MethodGet || got.Header.Get("Accept") != partialObjectMetadata {
		t.Errorf("read: generation %d, %v, %s Accept %q", generation, err, got.Method, got.Header.Get("Accept"))
	}
}

// TestRunWithFakeClientset checks that a reporter writes through a fake
// clientset, which has no REST client, as third parties' tests use.
func TestRunWithFakeClientset(t *testing.T) {
	g := newTestGate(t)
	g.Enabled("AlphaGate")
	client := fake.NewClientset()
	r, err := NewReporter(g, client, Options{Component: "my-operator", Identity: "pod-1", Namespace: "my-system", Coalesce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx)
	g.Enabled("BetaGate")
	var stored *featuresv1alpha1.FeatureReport
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		stored, err = client.FeaturesV1alpha1().FeatureReports("my-system").Get(ctx, "my-operator.pod-1", metav1.GetOptions{})
		return err == nil && len(stored.Spec.Gates) == 2, nil
	}); err != nil {
		t.Fatalf("the report was not written: %+v, %v", stored, err)
	}
}
