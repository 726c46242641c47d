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
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	featuresclient "k8s.io/features/client/clientset/versioned"
)

func newTestGate(t *testing.T, component string) *Gate {
	t.Helper()
	inner := featuregate.NewVersionedFeatureGate(version.MustParse("1.36"))
	err := inner.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		"AlphaGate": {{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha}},
		"BetaGate":  {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return Wrap(inner, component)
}

// fakeStore is a report store for the reporter's write and read.
type fakeStore struct {
	writes     []*featuresv1alpha1.FeatureReport
	generation int64
	missing    bool
}

func (s *fakeStore) write(_ context.Context, r *featuresv1alpha1.FeatureReport) (int64, error) {
	s.writes = append(s.writes, r.DeepCopy())
	s.missing = false
	s.generation++
	return s.generation, nil
}

func (s *fakeStore) read(context.Context) (int64, error) {
	if s.missing {
		return 0, apierrors.NewNotFound(featuresv1alpha1.Resource("featurereports"), "x")
	}
	return s.generation, nil
}

// testReporter returns a reporter of g whose writes and reads go to a
// fakeStore and whose clock is *now.
func testReporter(t *testing.T, g *Gate, opts ReporterOptions, now *time.Time) (*reporter, *fakeStore) {
	t.Helper()
	r, err := newReporter(g, nil, "id-1", opts)
	if err != nil {
		t.Fatal(err)
	}
	store := &fakeStore{}
	r.write, r.read, r.now = store.write, store.read, func() time.Time { return *now }
	return r, store
}

func gatesOf(r *featuresv1alpha1.FeatureReport) map[string]bool {
	out := map[string]bool{}
	for _, g := range r.Spec.Gates {
		out[g.Name] = g.Enabled
	}
	return out
}

func TestReportWrittenWhenValuesChange(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newTestGate(t, "kubelet")
	lease := &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: "id-1"}
	r, store := testReporter(t, g, ReporterOptions{HolderLease: lease}, &now)
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
		w.Spec.RenewTime == nil || !w.Spec.RenewTime.Time.Equal(now) {
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

	// A new check is written, with every gate checked so far.
	g.Enabled("BetaGate")
	if _, err := r.sync(ctx); err != nil || len(store.writes) != 2 {
		t.Fatalf("new check: %d writes, %v", len(store.writes), err)
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

func TestReportRenewedWithoutHolderLease(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newTestGate(t, "kube-scheduler")
	g.Enabled("BetaGate")
	r, store := testReporter(t, g, ReporterOptions{LeaseDuration: 40 * time.Second}, &now)
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
	g := newTestGate(t, "kubelet")
	g.Enabled("BetaGate")
	lease := &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: "id-1"}
	r, store := testReporter(t, g, ReporterOptions{HolderLease: lease, VerifyInterval: time.Minute}, &now)
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

func TestAPIServerReportsEveryKnownGate(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	g := newTestGate(t, APIServerComponent)
	r, store := testReporter(t, g, ReporterOptions{}, &now)
	if _, err := r.sync(context.Background()); err != nil || len(store.writes) != 1 {
		t.Fatalf("first sync: %d writes, %v", len(store.writes), err)
	}
	if got := gatesOf(store.writes[0]); len(got) != 2 || got["AlphaGate"] || !got["BetaGate"] {
		t.Errorf("kube-apiserver reports every gate it knows, checked or not: %v", got)
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
	client, err := featuresclient.NewForConfig(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	g := newTestGate(t, "kubelet")
	g.Enabled("AlphaGate")
	r, err := newReporter(g, client, "node-1", ReporterOptions{})
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
}

func TestRetryBackoff(t *testing.T) {
	for n, base := range map[int]time.Duration{1: retryBase, 2: 2 * retryBase, 3: 4 * retryBase, 9: retryCap, 100: retryCap} {
		lo, hi := 2*base, time.Duration(0)
		for range 200 {
			limiter := newRetryRateLimiter[string]()
			for range n - 1 {
				limiter.When("f")
			}
			d := limiter.When("f")
			if got := limiter.NumRequeues("f"); got != n {
				t.Fatalf("failure %d: NumRequeues %d, want %d", n, got, n)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo < base || hi > 2*base {
			t.Errorf("failure %d: backoff in [%v, %v], want within [%v, %v]", n, lo, hi, base, 2*base)
		}
		if hi-lo < base/4 {
			t.Errorf("failure %d: backoff in [%v, %v] is not jittered", n, lo, hi)
		}
	}
	// Forget starts the backoff again from retryBase.
	limiter := newRetryRateLimiter[string]()
	for range 5 {
		limiter.When("f")
	}
	limiter.Forget("f")
	if got := limiter.NumRequeues("f"); got != 0 {
		t.Errorf("NumRequeues after Forget: %d, want 0", got)
	}
	if d := limiter.When("f"); d < retryBase || d > 2*retryBase {
		t.Errorf("backoff after Forget: %v, want within [%v, %v]", d, retryBase, 2*retryBase)
	}
}
