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

// kube-scheduler is upstream's kube-scheduler, unchanged but for its feature
// gate: the reporting gate of KEP-3920, which records in features.k8s.io
// which gates the scheduler checked and what it found.
package main

import (
	"os"

	"github.com/spf13/cobra"

	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"k8s.io/featureflags/pkg/featurelifecycle/componentgate"
)

func main() {
	os.Exit(componentgate.Main("kube-scheduler", func() *cobra.Command { return app.NewSchedulerCommand() }))
}
