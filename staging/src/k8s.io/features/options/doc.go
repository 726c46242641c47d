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

// Package options adds the flags of a component's feature lifecycle client
// (features.k8s.io, KEP-3920) and starts it: the component reports which
// feature gates it uses in its FeatureReport, and its gates follow the
// desired state of Features managed Central or Dynamic.
//
// A component adopts it with a few lines of its own (client-go only):
//
//	fl := &options.Options{DesiredStateCacheFile: "/var/lib/my-operator/feature-desired-state.json"}
//	fl.AddFlags(pflag.CommandLine)
//	pflag.Parse()
//	// ... build the client, apply the configuration to the gate ...
//	err := fl.Start(ctx, myFeatureGate, client, options.Component{
//		Name:      "my-operator",
//		Namespace: "my-system",
//		Identity:  os.Getenv("POD_NAME"),
//	})
//
// The gate must be component-base's (or implement featuregate.QueryObserver)
// for the report to list the gates the process queried. A process that reads
// its gates before it has a client creates a Flow with NewFlow, calls
// ApplyCached first and Flow.Start once it has a client.
package options
