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

// kubelet is upstream's kubelet, unchanged but for its feature gate: the
// reporting gate of KEP-3920, which records in features.k8s.io which gates
// the kubelet checked and what it found, under its node name.
package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kubelet/app"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
	reportinggate "k8s.io/features/featuregate"

	"k8s.io/featureflags/pkg/featurelifecycle/componentgate"
)

// kubeconfigRetry is how often the kubelet tries again to read a
// kubeconfig whose client certificate is not written yet.
const kubeconfigRetry = 2 * time.Second

// rootDir returns the kubelet's --root-dir from its arguments, or its
// default.
func rootDir(args []string) string {
	if dir := componentgate.ArgValue(args, "root-dir"); dir != "" {
		return dir
	}
	return "/var/lib/kubelet"
}

func main() {
	gate := componentgate.Install("kubelet")
	command := app.NewKubeletCommand(context.Background())
	run := command.RunE
	// The kubelet parses its own flags (DisableFlagParsing); read the two we
	// need from the arguments and report in the background, once the
	// kubeconfig exists (after TLS bootstrap it is written later).
	command.RunE = func(c *cobra.Command, args []string) error {
		ctx := c.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		cacheFile := filepath.Join(rootDir(args), "feature-desired-state.json")
		kubeconfig := componentgate.ArgValue(args, "kubeconfig")
		var config *rest.Config
		if kubeconfig != "" {
			if _, err := os.Stat(kubeconfig); err == nil {
				if config, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
					klog.ErrorS(err, "Not following the desired state of features", "kubeconfig", kubeconfig)
				}
			}
		}
		// Before the kubelet reads its gates: the Features managed Central
		// or Dynamic give them their value (the cache when the kubeconfig
		// does not exist yet, before TLS bootstrap, or no apiserver
		// answers). The kubelet's own configuration still wins for the
		// gates it sets.
		componentgate.Follow(ctx, gate, config, cacheFile)
		following := config != nil
		if kubeconfig != "" {
			go func() {
				if err := componentgate.WaitForFile(ctx, kubeconfig); err != nil {
					return
				}
				// The kubeconfig may name a client certificate TLS
				// bootstrap has not written yet (kubeadm join writes the
				// kubeconfig first): try again until it reads.
				var config *rest.Config
				logged := false
				if err := wait.PollUntilContextCancel(ctx, kubeconfigRetry, true, func(context.Context) (bool, error) {
					var err error
					if config, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
						if !logged {
							klog.InfoS("Waiting for the kubeconfig to be usable before reporting feature gate uses", "kubeconfig", kubeconfig, "err", err)
							logged = true
						}
						return false, nil
					}
					return true, nil
				}); err != nil {
					return
				}
				node := componentgate.NodeName(args)
				if !following {
					// Written after TLS bootstrap: follow from now on.
					componentgate.Follow(ctx, gate, config, cacheFile)
				}
				// The kubelet's node lease says it is alive: the report is
				// written only when its values change.
				componentgate.StartInBackground(ctx, gate, config, node, reportinggate.ReporterOptions{
					HolderLease: &featuresv1alpha1.FeatureReportLease{Namespace: corev1.NamespaceNodeLease, Name: node},
				})
			}()
		}
		return run(c, args)
	}
	os.Exit(cli.Run(command))
}
