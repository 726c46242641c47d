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

// Package app composes our kube-apiserver from upstream's exported pieces:
// upstream's options, flags and configuration, with the features.k8s.io group
// added to the scheme, the OpenAPI definitions, the installed APIs and the
// aggregator's APIService priorities.
package app

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/flagz"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/notfoundhandler"
	"k8s.io/client-go/rest"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	utilversion "k8s.io/component-base/version"
	"k8s.io/component-base/version/verflag"
	"k8s.io/klog/v2"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	upstreamapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"

	reportinggate "k8s.io/features/featuregate"

	// Registers features.k8s.io into legacyscheme.Scheme before options are
	// validated, so that --runtime-config knows the group.
	_ "k8s.io/featureflags/pkg/apis/features/install"
	"k8s.io/featureflags/pkg/featurelifecycle"
	"k8s.io/featureflags/pkg/featurelifecycle/componentgate"
	"k8s.io/featureflags/pkg/featurelifecycle/migrator"
	"k8s.io/featureflags/pkg/featurelifecycle/tasks"
	"k8s.io/featureflags/pkg/featurelifecycle/upstreamstores"
	"k8s.io/featureflags/pkg/features"
	featuresrest "k8s.io/featureflags/pkg/registry/features/rest"
	"k8s.io/featureflags/plugin/pkg/admission/featurestatus"
)

// reporterOptions tune how kube-apiserver reports its uses of feature gates,
// controllerOptions its lifecycle controller and migrationOptions the
// storage migrations of its tasks; set from flags.
var (
	reporterOptions   reportinggate.ReporterOptions
	controllerOptions = featurelifecycle.DefaultControllerOptions()
	migrationOptions  = migrator.DefaultOptions()
)

// NewAPIServerCommand returns the kube-apiserver command: upstream's flags,
// help and behaviour, running our server chain.
func NewAPIServerCommand() *cobra.Command {
	// The reporting gate replaces the default gate before options capture it.
	componentgate.Install(reportinggate.APIServerComponent)
	s := options.NewServerRunOptions()
	RegisterAdmission(s)
	ctx := genericapiserver.SetupSignalContext()
	featureGate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)

	cmd := &cobra.Command{
		Use: "kube-apiserver",
		Long: `The Kubernetes API server validates and configures data
for the api objects which include pods, services, replicationcontrollers, and
others. The API Server services REST operations and provides the frontend to the
cluster's shared state through which all other components interact.

This build also serves the features.k8s.io API group (KEP-3920) when the
FeatureLifecycle feature gate is on and --runtime-config enables
features.k8s.io/v1alpha1.`,
		// stop printing usage when the command errors
		SilenceUsage: true,
		Args:         noArgs,
	}
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
			return err
		}
		// Silence client-side warnings in the loopback client, as upstream does.
		rest.SetDefaultWarningHandler(rest.NoWarnings{})
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		verflag.PrintAndExitIfRequested()
		if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
			return err
		}
		cliflag.PrintFlags(cmd.Flags())

		completedOptions, err := s.Complete(ctx)
		if err != nil {
			return err
		}
		errs := append(completedOptions.Validate(), migrationOptions.Validate()...)
		errs = append(errs, controllerOptions.Validate()...)
		if _, err := controllerOptions.OptIns(func(gate featuregate.Feature) bool {
			_, ok := featureGate.(featuregate.MutableVersionedFeatureGate).GetAll()[gate]
			return ok
		}); err != nil {
			errs = append(errs, err)
		}
		if len(errs) != 0 {
			return utilerrors.NewAggregate(errs)
		}
		featureGate.(featuregate.MutableFeatureGate).AddMetrics()
		s.GenericServerRunOptions.ComponentGlobalsRegistry.AddMetrics()
		return Run(ctx, completedOptions)
	}
	cmd.SetContext(ctx)

	fs := cmd.Flags()
	namedFlagSets := s.Flags()
	s.Flagz = flagz.NamedFlagSetsReader{FlagSets: namedFlagSets}
	componentgate.AddFlags(namedFlagSets.FlagSet("feature lifecycle"), &reporterOptions)
	controllerOptions.AddFlags(namedFlagSets.FlagSet("feature lifecycle"))
	migrationOptions.AddFlags(namedFlagSets.FlagSet("feature lifecycle"))
	verflag.AddFlags(namedFlagSets.FlagSet("global"))
	globalflag.AddGlobalFlags(namedFlagSets.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, f := range namedFlagSets.FlagSets {
		fs.AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, namedFlagSets, cols)
	return cmd
}

// RegisterAdmission adds our admission plugins to options built by
// options.NewServerRunOptions, on by default and placed in the recommended
// order. The in-process test server calls it too.
func RegisterAdmission(s *options.ServerRunOptions) {
	featurestatus.Register(s.Admission.GenericAdmission.Plugins, func(gate string) bool {
		_, known := utilfeature.DefaultMutableFeatureGate.GetAll()[featuregate.Feature(gate)]
		return known
	})
	s.Admission.GenericAdmission.RecommendedPluginOrder = featurestatus.RecommendedOrder(s.Admission.GenericAdmission.RecommendedPluginOrder)
}

func noArgs(cmd *cobra.Command, args []string) error {
	for _, arg := range args {
		if len(arg) > 0 {
			return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
		}
	}
	return nil
}

// Run runs our kube-apiserver until ctx is done.
func Run(ctx context.Context, opts options.CompletedOptions) error {
	klog.InfoS("Version", "version", utilversion.Get())
	klog.InfoS("Golang settings", "GOGC", os.Getenv("GOGC"), "GOMAXPROCS", os.Getenv("GOMAXPROCS"), "GOTRACEBACK", os.Getenv("GOTRACEBACK"))

	server, err := NewServer(opts)
	if err != nil {
		return err
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return err
	}
	return prepared.Run(ctx)
}

// NewServer builds the configuration and the server chain from completed options.
func NewServer(opts options.CompletedOptions) (*aggregatorapiserver.APIAggregator, error) {
	config, err := NewConfig(opts)
	if err != nil {
		return nil, err
	}
	completed, err := config.Complete()
	if err != nil {
		return nil, err
	}
	return CreateServerChain(completed)
}

// NewConfig is upstream's configuration with our OpenAPI definitions merged in.
func NewConfig(opts options.CompletedOptions) (*upstreamapp.Config, error) {
	config, err := upstreamapp.NewConfig(opts)
	if err != nil {
		return nil, err
	}
	addOpenAPIDefinitions(config.KubeAPIs.ControlPlane.Generic)
	return config, nil
}

// lifecycleEnabled reports whether the FeatureLifecycle gate is on.
func lifecycleEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.FeatureLifecycle)
}

// CreateServerChain is upstream's chain (apiextensions, kube APIs,
// aggregator) plus the features.k8s.io group when FeatureLifecycle is on.
func CreateServerChain(config upstreamapp.CompletedConfig) (*aggregatorapiserver.APIAggregator, error) {
	notFoundHandler := notfoundhandler.New(config.KubeAPIs.ControlPlane.Generic.Serializer, genericapifilters.NoMuxAndDiscoveryIncompleteKey)
	apiExtensionsServer, err := config.ApiExtensions.New(genericapiserver.NewEmptyDelegateWithCustomHandler(notFoundHandler))
	if err != nil {
		return nil, err
	}
	crdAPIEnabled := config.ApiExtensions.GenericConfig.MergedResourceConfig.ResourceEnabled(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))

	kubeAPIServer, err := config.KubeAPIs.New(apiExtensionsServer.GenericAPIServer)
	if err != nil {
		return nil, err
	}
	if lifecycleEnabled() {
		// Tasks open the resources' own registry stores on the
		// apiserver's storage, without its watch cache.
		stores := migrator.NewStores(config.KubeAPIs.ControlPlane.Generic.RESTOptionsGetter, upstreamstores.Config{
			// Strategies that validate against the cluster (a
			// resource claim's namespace, an RBAC object's
			// escalation) ask this apiserver, as its own stores do.
			Loopback:   config.KubeAPIs.ControlPlane.Generic.LoopbackClientConfig,
			Authorizer: config.KubeAPIs.ControlPlane.Generic.Authorization.Authorizer,
		})
		provider := featuresrest.RESTStorageProvider{
			FeatureGate:       utilfeature.DefaultMutableFeatureGate,
			Identity:          kubeAPIServer.ControlPlane.GenericAPIServer.APIServerID,
			ReporterOptions:   reporterOptions,
			ControllerOptions: controllerOptions,
			TaskEnv: tasks.Env{
				Stores:    stores,
				Migration: migrationOptions,
				Limiter:   migrator.NewLimiter(migrationOptions),
			},
		}
		if err := kubeAPIServer.ControlPlane.InstallAPIs(provider); err != nil {
			return nil, fmt.Errorf("installing features.k8s.io: %w", err)
		}
		// Resources served only with a gate stay readable and deletable
		// while its Feature turns off.
		if err := serveWhileTurningOff(config, kubeAPIServer, stores); err != nil {
			return nil, err
		}
	}

	return controlplaneapiserver.CreateAggregatorServer(config.Aggregator, kubeAPIServer.ControlPlane.GenericAPIServer,
		apiExtensionsServer.Informers.Apiextensions().V1().CustomResourceDefinitions(), crdAPIEnabled, APIVersionPriorities())
}
