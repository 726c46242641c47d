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

package componentreport

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/goleak"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/featuregate"
	featuresoptions "k8s.io/features/options"

	"k8s.io/kubernetes/pkg/features"
)

func newGate(t *testing.T, lifecycle bool) featuregate.MutableVersionedFeatureGate {
	t.Helper()
	g := featuregate.NewVersionedFeatureGate(version.MustParse("1.37"))
	err := g.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		features.FeatureLifecycle: {{Version: version.MustParse("1.34"), Default: false, PreRelease: featuregate.Alpha}},
		"AlphaGate":               {{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetFromMap(map[string]bool{string(features.FeatureLifecycle): lifecycle}); err != nil {
		t.Fatal(err)
	}
	return g
}

// centralAlphaGate is the target of AlphaGate's Central Feature, which
// components follow.
func centralAlphaGate() *featuresv1alpha1.FeatureTarget {
	return &featuresv1alpha1.FeatureTarget{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha-gate", Namespace: "kube-system"},
		Spec:       featuresv1alpha1.FeatureTargetSpec{Gate: "AlphaGate", DesiredState: featuresv1alpha1.FeatureDesiredStateEnabled, Management: featuresv1alpha1.FeatureManagementCentral},
	}
}

func TestDNSSubdomain(t *testing.T) {
	for in, want := range map[string]string{
		"Node-A":                 "node-a",
		"host_1.Example.COM":     "host-1.example.com",
		"-.weird..":              "weird",
		"":                       "unknown",
		"...":                    "unknown",
		"a..b":                   "unknown",
		strings.Repeat("a", 300): strings.Repeat("a", 253),
	} {
		if got := DNSSubdomain(in); got != want {
			t.Errorf("DNSSubdomain(%q) = %q, want %q", in, got, want)
		}
	}
	if Identity() == "" {
		t.Error("Identity must not be empty")
	}
}

func TestFlags(t *testing.T) {
	if got := NewOptions("kube-scheduler").DesiredStateCacheFile; got != "/var/lib/kube-scheduler/feature-desired-state.json" {
		t.Errorf("kube-scheduler's cache file: %q", got)
	}
	var o featuresoptions.Options
	fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
	AddKubeletFlags(fs, &o)
	if usage := fs.Lookup(featuresoptions.DesiredStateCacheFileFlag).Usage; !strings.HasSuffix(usage, "Default: <root-dir>/feature-desired-state.json.") {
		t.Errorf("the kubelet's cache file flag says %q", usage)
	}
	for _, name := range []string{"feature-use-report-qps", "feature-use-report-burst"} {
		if fs.Lookup(name) != nil {
			t.Errorf("the kubelet has --%s: the report's rate is the reporter's", name)
		}
	}
}

// TestOffDoesNothing checks that with the FeatureLifecycle gate off a
// component makes no API call and sets no gate.
func TestOffDoesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := newGate(t, false)
	client := fake.NewClientset(centralAlphaGate())
	running := goleak.IgnoreCurrent()
	Start(ctx, NewOptions("kube-scheduler"), gate, "kube-scheduler", client)
	k := StartKubelet(ctx, featuresoptions.Options{}, gate, t.TempDir())
	if k != nil {
		t.Fatal("StartKubelet must return nil with the gate off")
	}
	k.Connect(ctx, client, "node-1")
	// Nothing was started that could call the API later: no goroutine
	// besides those running before.
	goleak.VerifyNone(t, running)
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("API calls with the gate off: %v", actions)
	}
	if gate.Enabled("AlphaGate") {
		t.Error("a gate followed its Feature with FeatureLifecycle off")
	}
}

func waitForReport(ctx context.Context, t *testing.T, client *fake.Clientset, name string) *featuresv1alpha1.FeatureReport {
	t.Helper()
	var report *featuresv1alpha1.FeatureReport
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		report, err = client.FeaturesV1alpha1().FeatureReports("kube-system").Get(ctx, name, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("no report %s", name)
	}
	return report
}

func TestStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := newGate(t, true)
	client := fake.NewClientset(centralAlphaGate())
	o := NewOptions("kube-scheduler")
	o.DesiredStateCacheFile = filepath.Join(t.TempDir(), "cache.json")
	Start(ctx, o, gate, "kube-scheduler", client)
	if !gate.Enabled("AlphaGate") {
		t.Fatal("the gate must follow its Central Feature")
	}
	report := waitForReport(ctx, t, client, "kube-scheduler."+Identity())
	if report.Spec.HolderLease != nil || report.Spec.LeaseDurationSeconds == nil {
		t.Errorf("kube-scheduler renews its report: %+v", report.Spec)
	}
}

func TestStartKubelet(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rootDir := t.TempDir()
	client := fake.NewClientset(centralAlphaGate())
	// A previous run cached the desired state.
	k := StartKubelet(ctx, featuresoptions.Options{}, newGate(t, true), rootDir)
	k.Connect(ctx, client, "node-0")
	waitForReport(ctx, t, client, "kubelet.node-0")

	gate := newGate(t, true)
	k = StartKubelet(ctx, featuresoptions.Options{}, gate, rootDir)
	if k == nil || !gate.Enabled("AlphaGate") {
		t.Fatal("the kubelet must apply the cached desired state before it has a client")
	}
	k.Connect(ctx, nil, "node-1") // standalone
	k.Connect(ctx, client, "node-1")
	report := waitForReport(ctx, t, client, "kubelet.node-1")
	if l := report.Spec.HolderLease; l == nil || l.Namespace != "kube-node-lease" || l.Name != "node-1" {
		t.Errorf("the kubelet's node lease is its holder lease: %+v", l)
	}
}
