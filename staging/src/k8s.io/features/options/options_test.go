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

package options

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
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

// centralFeature returns the target of AlphaGate's Central Feature, which
// components follow.
func centralFeature(namespace string, desired featuresv1alpha1.FeatureDesiredState) *featuresv1alpha1.FeatureTarget {
	return &featuresv1alpha1.FeatureTarget{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha-gate", Namespace: namespace},
		Spec:       featuresv1alpha1.FeatureTargetSpec{Gate: "AlphaGate", DesiredState: desired, Management: featuresv1alpha1.FeatureManagementCentral},
	}
}

func TestAddFlags(t *testing.T) {
	o := &Options{DesiredStateCacheFile: "/var/lib/x/cache.json"}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if got := fs.Lookup(DesiredStateCacheFileFlag).DefValue; got != "/var/lib/x/cache.json" {
		t.Errorf("the cache file's default is %q", got)
	}
	if err := fs.Parse([]string{"--feature-desired-state-cache-file="}); err != nil {
		t.Fatal(err)
	}
	if o.DesiredStateCacheFile != "" {
		t.Errorf("parsed %+v", o)
	}
	for _, name := range []string{"feature-use-report-qps", "feature-use-report-burst"} {
		if fs.Lookup(name) != nil {
			t.Errorf("--%s is a flag: the report's rate is the reporter's", name)
		}
	}
}

// waitForReport waits for the component's report to hold gates.
func waitForReport(ctx context.Context, t *testing.T, client *fake.Clientset, namespace, name string, gates int) *featuresv1alpha1.FeatureReport {
	t.Helper()
	var report *featuresv1alpha1.FeatureReport
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		report, err = client.FeaturesV1alpha1().FeatureReports(namespace).Get(ctx, name, metav1.GetOptions{})
		return err == nil && len(report.Spec.Gates) == gates, nil
	}); err != nil {
		t.Fatalf("report %s/%s: %+v", namespace, name, report)
	}
	return report
}

// TestStart is a third party's adoption: its gates follow its Features and
// its report names the gates it queried.
func TestStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := newTestGate(t)
	gate.Enabled("BetaGate") // before any client exists
	client := fake.NewClientset(centralFeature("my-system", featuresv1alpha1.FeatureDesiredStateEnabled))
	o := &Options{DesiredStateCacheFile: filepath.Join(t.TempDir(), "cache.json")}
	if err := o.Start(ctx, gate, client, Component{Name: "my-operator", Namespace: "my-system", Identity: "pod-1"}); err != nil {
		t.Fatal(err)
	}
	if !gate.Enabled("AlphaGate") {
		t.Fatal("the gate must follow its Central Feature when Start returns")
	}
	report := waitForReport(ctx, t, client, "my-system", "my-operator.pod-1", 2)
	want := map[string]featuresv1alpha1.FeatureReportGate{
		"AlphaGate": {Name: "AlphaGate", Enabled: true, Management: featuresv1alpha1.FeatureManagementCentral},
		"BetaGate":  {Name: "BetaGate", Enabled: true},
	}
	for _, g := range report.Spec.Gates {
		if g != want[g.Name] {
			t.Errorf("reported %+v, want %+v", g, want[g.Name])
		}
	}
	if report.Spec.LeaseDurationSeconds == nil || report.Spec.HolderLease != nil {
		t.Errorf("without a holder lease the report is renewed: %+v", report.Spec)
	}
}

// TestFlowApplyCached is a kubelet's start: the cached desired states before
// it has a client, then its Features and its report.
func TestFlowApplyCached(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cacheFile := filepath.Join(t.TempDir(), "cache.json")
	client := fake.NewClientset(centralFeature("kube-system", featuresv1alpha1.FeatureDesiredStateEnabled))
	// A previous run cached the desired state.
	o := &Options{DesiredStateCacheFile: cacheFile}
	if err := o.Start(ctx, newTestGate(t), client, Component{Name: "kubelet", Identity: "node-0"}); err != nil {
		t.Fatal(err)
	}

	gate := newTestGate(t)
	flow := o.NewFlow(gate, "kubelet", "")
	if err := flow.ApplyCached(ctx); err != nil {
		t.Fatal(err)
	}
	if !gate.Enabled("AlphaGate") {
		t.Fatal("ApplyCached must apply the cached desired state")
	}
	lease := &featuresv1alpha1.FeatureReportLease{Namespace: "kube-node-lease", Name: "node-1"}
	if err := flow.Start(ctx, client, "node-1", lease); err != nil {
		t.Fatal(err)
	}
	report := waitForReport(ctx, t, client, "kube-system", "kubelet.node-1", 1)
	if g := report.Spec.Gates[0]; g.Name != "AlphaGate" || !g.Enabled || g.Management != featuresv1alpha1.FeatureManagementCentral {
		t.Errorf("reported %+v", g)
	}
	if report.Spec.HolderLease == nil || *report.Spec.HolderLease != *lease {
		t.Errorf("holder lease %+v", report.Spec.HolderLease)
	}
	if err := flow.Start(ctx, nil, "node-1", nil); err == nil {
		t.Error("Start without a client must fail")
	}
}
