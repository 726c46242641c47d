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

// Command sample-feature-controller is a third party's operator that
// declares its own feature gates as Features in its namespace, reports
// them, follows their desired state, gates a field, an enum value and a
// kind of its custom resources with them, and completes the task it owns
// when one turns off. See README.md.
package main

import (
	"context"
	goflag "flag"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"k8s.io/sample-feature-controller/pkg/features"
	"k8s.io/sample-feature-controller/pkg/operator"
)

func main() {
	gate := features.NewGate()
	o := operator.Options{
		Namespace: os.Getenv("POD_NAMESPACE"),
		Identity:  os.Getenv("POD_NAME"),
		Workers:   2,
		Resync:    10 * time.Minute,
	}
	var kubeconfig string
	fs := pflag.CommandLine
	fs.StringVar(&kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Only required if out-of-cluster.")
	o.AddFlags(fs)
	gate.AddFlag(fs)
	klogFlags := goflag.NewFlagSet("klog", goflag.ExitOnError)
	klog.InitFlags(klogFlags)
	fs.AddGoFlagSet(klogFlags)
	pflag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		klog.ErrorS(err, "Building the client configuration")
		os.Exit(1)
	}
	if err := operator.Run(ctx, config, gate, o); err != nil {
		klog.ErrorS(err, "Running the operator")
		os.Exit(1)
	}
}
