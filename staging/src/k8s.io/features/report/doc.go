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

// Package report keeps the FeatureReport of a process (features.k8s.io,
// KEP-3920): which feature gates it queried and the values it uses, written
// with server-side apply to <component>.<identity> only when they change.
// kube-apiserver aggregates the live reports into the uses of each Feature.
//
// The reporter learns which gates the process queries from the feature gate
// itself: component-base's gate implements featuregate.QueryObserver, which
// tells the reporter every gate queried so far, including before any client
// existed, and each gate queried for the first time later. Enabled costs the
// same with and without a reporter.
//
//	r, err := report.NewReporter(utilfeature.DefaultFeatureGate, client, report.Options{
//		Component: "my-controller",
//		Identity:  podName,
//		Namespace: "my-system",
//	})
//	if err != nil {
//		return err
//	}
//	go r.Run(ctx)
//
// A process that mutates its gate while it runs calls Changed afterwards.
// See k8s.io/features/options for the flags and the start of both the
// reporter and the follower of desired states.
package report
