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

package componentgate

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"k8s.io/apimachinery/pkg/util/version"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
)

func TestArgValueAndNodeName(t *testing.T) {
	args := []string{"--v=2", "--kubeconfig", "/etc/kubelet.conf", "--hostname-override=Node-A"}
	if got := ArgValue(args, "kubeconfig"); got != "/etc/kubelet.conf" {
		t.Errorf("kubeconfig = %q", got)
	}
	if got := ArgValue(args, "v"); got != "2" {
		t.Errorf("v = %q", got)
	}
	if got := ArgValue(args, "missing"); got != "" {
		t.Errorf("missing = %q", got)
	}
	if got := NodeName(args); got != "node-a" {
		t.Errorf("NodeName = %q", got)
	}
	host, _ := os.Hostname()
	if got := NodeName(nil); got != strings.ToLower(host) {
		t.Errorf("NodeName without override = %q, want the host name %q", got, host)
	}
}

// TestInstall checks that the reporting gate becomes the default gate and the
// one the component globals registry mutates when flags are parsed.
func TestInstall(t *testing.T) {
	g := Install("kube-scheduler")
	if utilfeature.DefaultFeatureGate != featuregate.FeatureGate(g) || utilfeature.DefaultMutableFeatureGate != g {
		t.Fatal("the reporting gate is not the default gate")
	}
	if Install("kube-scheduler") != g {
		t.Fatal("a second Install must return the installed gate")
	}
	registry := utilcompatibility.DefaultComponentGlobalsRegistry
	if registry.FeatureGateFor(basecompatibility.DefaultKubeComponent) != featuregate.FeatureGate(g) {
		t.Fatal("the registry still holds the original gate")
	}
	// --feature-gates goes through the registry to the reporting gate.
	const gate = "ComponentGateTestGate"
	if err := g.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		gate: {{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Beta}},
	}); err != nil {
		t.Fatal(err)
	}
	if g.Enabled(gate) {
		t.Fatal("the test gate must start off")
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	registry.AddFlags(fs)
	if err := fs.Parse([]string{"--feature-gates=" + gate + "=true"}); err != nil {
		t.Fatal(err)
	}
	if err := registry.Set(); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled(gate) || !g.Uses()[gate] {
		t.Fatalf("after --feature-gates the reporting gate answers %t, uses %v", g.Enabled(gate), g.Uses())
	}
}
