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

// Package componentgate installs the reporting feature gate of
// k8s.io/features/featuregate in a Kubernetes component's process and starts
// reporting once the component's flags are parsed and its kubeconfig is known.
// Our cmd/ wrappers of upstream commands use it so that the upstream command
// runs unchanged.
package componentgate

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/cli"
	basecompatibility "k8s.io/component-base/compatibility"
	nodeutil "k8s.io/component-helpers/node/util"
	"k8s.io/klog/v2"

	featuresclient "k8s.io/features/client/clientset/versioned"
	reportinggate "k8s.io/features/featuregate"
)

// Install wraps the process-wide feature gate of Kubernetes components
// (utilfeature.DefaultMutableFeatureGate) in a reporting gate for component,
// makes it the default gate, and registers it in place of the original in the
// default component globals registry, so that flag parsing and emulation
// version changes go through it. Call it before the component's options or
// command are built.
func Install(component string) *reportinggate.Gate {
	if g, ok := utilfeature.DefaultMutableFeatureGate.(*reportinggate.Gate); ok {
		return g
	}
	g := reportinggate.Wrap(utilfeature.DefaultMutableFeatureGate, component)
	utilfeature.DefaultMutableFeatureGate = g
	utilfeature.DefaultFeatureGate = g

	registry := utilcompatibility.DefaultComponentGlobalsRegistry
	ev, ok := registry.EffectiveVersionFor(basecompatibility.DefaultKubeComponent).(basecompatibility.MutableEffectiveVersion)
	if !ok {
		ev = utilcompatibility.DefaultBuildEffectiveVersion()
	}
	// At init only the kube component is registered; re-register it with the
	// reporting gate.
	registry.Reset()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, ev, g); err != nil {
		panic(fmt.Sprintf("registering the reporting feature gate: %v", err))
	}
	return g
}

// Identity returns a reporter identity for a process of a component that has
// no identity of its own (kube-controller-manager, kube-scheduler): the host
// name, lower-cased, with what a DNS subdomain cannot hold replaced by '-'.
// A process restarted on the same host keeps it, so its new report replaces
// the old one at once instead of waiting for the old one to expire.
func Identity() string {
	host, err := os.Hostname()
	if err != nil {
		host = ""
	}
	return DNSSubdomain(host)
}

// DNSSubdomain returns s lower-cased, with every character a DNS-1123
// subdomain cannot hold replaced by '-', trimmed of leading and trailing
// '-' and '.', and cut to 253 characters; "unknown" when nothing is left.
func DNSSubdomain(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-.")
	if len(out) > 253 {
		out = strings.Trim(out[:253], "-.")
	}
	if out == "" || len(validation.IsDNS1123Subdomain(out)) > 0 {
		return "unknown"
	}
	return out
}

// StartInBackground starts reporting with a client for config and returns at
// once. Reporting goes on until ctx ends; failures are logged, never fatal to
// the component.
func StartInBackground(ctx context.Context, g *reportinggate.Gate, config *rest.Config, identity string, opts reportinggate.ReporterOptions) {
	logger := klog.FromContext(ctx).WithValues("component", g.Component(), "identity", identity)
	config = rest.CopyConfig(config)
	config.UserAgent = g.Component() + "/feature-use-reporter"
	client, err := featuresclient.NewForConfig(config)
	if err != nil {
		logger.Error(err, "Cannot report feature gate uses")
		return
	}
	logger.Info("Reporting feature gate uses", "host", config.Host)
	go func() {
		if err := g.StartWithOptions(ctx, client, identity, opts); err != nil && ctx.Err() == nil {
			logger.Error(err, "Reporting feature gate uses stopped")
		}
	}()
}

// Main runs an upstream component command that takes --kubeconfig (such as
// kube-controller-manager and kube-scheduler) with the reporting gate: it
// installs the gate for component, builds the command, adds the reporter's
// flags and starts reporting once the flags are parsed. It returns the exit
// code.
func Main(component string, newCommand func() *cobra.Command) int {
	gate := Install(component)
	command := newCommand()
	var opts reportinggate.ReporterOptions
	AddFlags(command.Flags(), &opts)
	cacheFile := DefaultDesiredStateCacheFile(component)
	AddFollowFlags(command.Flags(), &cacheFile)
	ReportFromFlags(command, gate, &opts, &cacheFile)
	return cli.Run(command)
}

// ReportFromFlags wraps cmd.RunE so that, once cobra has parsed the flags and
// before the upstream command runs, the gates whose Feature is Central or
// Dynamic take their value from it (Follow, with the desired states cached in
// *cacheFile), and reporting starts under Identity(), with a client built
// from the command's --kubeconfig and --master flags. The upstream RunE then
// runs unchanged, with the gates as the Features want them.
func ReportFromFlags(cmd *cobra.Command, g *reportinggate.Gate, opts *reportinggate.ReporterOptions, cacheFile *string) {
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		master, kubeconfig := flagValue(c.Flags(), "master"), flagValue(c.Flags(), "kubeconfig")
		if config, err := clientConfig(master, kubeconfig); err != nil {
			if master == "" && kubeconfig == "" {
				// Not in a cluster and no kubeconfig: --help, --version, or
				// a component that will fail on its own.
				klog.V(2).InfoS("Not reporting feature gate uses: no client configuration", "err", err)
			} else {
				klog.ErrorS(err, "Not reporting feature gate uses", "kubeconfig", kubeconfig, "master", master)
			}
		} else {
			ctx := c.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			Follow(ctx, g, config, *cacheFile)
			StartInBackground(ctx, g, config, Identity(), *opts)
		}
		return run(c, args)
	}
}

// Follow makes g follow the Features whose management is Central or
// Dynamic, with a client for config (nil: only the cache), before it
// returns; see reportinggate.Gate.Follow. Failures are logged: the
// component then runs with its own configuration.
func Follow(ctx context.Context, g *reportinggate.Gate, config *rest.Config, cacheFile string) {
	var client featuresclient.Interface
	if config != nil {
		config = rest.CopyConfig(config)
		config.UserAgent = g.Component() + "/feature-follower"
		var err error
		if client, err = featuresclient.NewForConfig(config); err != nil {
			klog.ErrorS(err, "Cannot follow the desired state of features")
		}
	}
	if err := g.Follow(ctx, client, reportinggate.FollowOptions{CacheFile: cacheFile}); err != nil {
		klog.ErrorS(err, "Cannot follow the desired state of features")
	}
}

// DefaultDesiredStateCacheFile is where a component caches the desired
// states it follows, unless --feature-desired-state-cache-file says
// otherwise.
func DefaultDesiredStateCacheFile(component string) string {
	return "/var/lib/" + component + "/feature-desired-state.json"
}

// AddFollowFlags adds the flag of the cache of followed desired states.
func AddFollowFlags(fs *pflag.FlagSet, cacheFile *string) {
	fs.StringVar(cacheFile, "feature-desired-state-cache-file", *cacheFile, "Where this process keeps the desired state of the Features managed Central or Dynamic that it follows (features.k8s.io, KEP-3920), to start with them when no kube-apiserver can be reached. Empty: no cache.")
}

func flagValue(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// clientConfig builds a client config from a kubeconfig path and master URL,
// or the in-cluster config when both are empty.
func clientConfig(master, kubeconfig string) (*rest.Config, error) {
	if master == "" && kubeconfig == "" {
		return rest.InClusterConfig()
	}
	return clientcmd.BuildConfigFromFlags(master, kubeconfig)
}

// AddFlags adds the reporter's flags to fs.
func AddFlags(fs *pflag.FlagSet, opts *reportinggate.ReporterOptions) {
	fs.Float32Var(&opts.QPS, "feature-use-report-qps", 0, "Maximum number of writes per second this process makes to report which feature gates it checked (features.k8s.io, KEP-3920). 0 means the default, 5.")
	fs.IntVar(&opts.Burst, "feature-use-report-burst", 0, "Maximum burst of writes to report which feature gates this process checked. 0 means the default, 10.")
}

// WaitForFile waits until a file exists, for clients whose kubeconfig is
// written after start (a kubelet's after TLS bootstrap).
func WaitForFile(ctx context.Context, path string) error {
	return wait.PollUntilContextCancel(ctx, 2*time.Second, true, func(context.Context) (bool, error) {
		_, err := os.Stat(path)
		return err == nil, nil
	})
}

// ArgValue returns the value of the flag --name among raw command-line
// arguments (--name=value or --name value), for commands that parse their own
// flags (the kubelet sets DisableFlagParsing).
func ArgValue(args []string, name string) string {
	flag := "--" + name
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, flag+"="):
			return strings.TrimPrefix(a, flag+"=")
		case a == flag && i+1 < len(args):
			return args[i+1]
		}
	}
	return ""
}

// NodeName returns the kubelet's node name from its arguments as the kubelet
// computes it (nodeutil.GetHostname): the value of --hostname-override, else
// the host name, trimmed and lower-cased; "" when it cannot be determined or
// is empty.
func NodeName(args []string) string {
	name, err := nodeutil.GetHostname(ArgValue(args, "hostname-override"))
	if err != nil {
		return ""
	}
	return name
}
