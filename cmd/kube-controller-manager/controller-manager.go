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

// kube-controller-manager is upstream's kube-controller-manager, unchanged but
// for its feature gate: the reporting gate of KEP-3920, which records in
// features.k8s.io which gates the controllers checked and what they found.
package main

import (
	"os"
	_ "time/tzdata" // for CronJob Time Zone support, as upstream

	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"

	"k8s.io/featureflags/pkg/featurelifecycle/componentgate"
)

func main() {
	os.Exit(componentgate.Main("kube-controller-manager", app.NewControllerManagerCommand))
}
