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

// Command testgate-apiserver is kube-apiserver with one more feature gate,
// TestCanaryOnAPIServers, which the lifecycle registry declares Dynamic,
// applying while running, and safe to canary on apiservers. No gate of
// v1.37.2 can canary on apiservers (rollout.Gates says why), so the
// integration test of rollouts on apiservers brings its own. The gate
// guards nothing: the test watches the apiservers' reports of it.
package main

import (
	"os"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/featuregate"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"

	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// Gate is the test-only gate.
const Gate featuregate.Feature = "TestCanaryOnAPIServers"

func main() {
	if err := utilfeature.DefaultMutableFeatureGate.AddVersioned(map[featuregate.Feature]featuregate.VersionedSpecs{
		Gate: {{Version: version.MajorMinor(1, 37), Default: false, PreRelease: featuregate.Alpha}},
	}); err != nil {
		panic(err)
	}
	lifecycle.Managements[Gate] = lifecycle.Management{Dynamic: true, AppliesWhileRunning: true}
	rollout.Gates[Gate] = rollout.APIServers
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
