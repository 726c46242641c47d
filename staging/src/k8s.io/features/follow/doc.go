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

// Package follow makes a process's feature gates follow the desired state of
// their Features (features.k8s.io, KEP-3920) when an administrator manages
// them centrally (Central: the value kube-apiserver is configured with) or
// dynamically (Dynamic: set through the API), except gates the process's own
// configuration sets, which keep their value.
//
// A Follower reads FeatureTargets, not Features: each followed Feature's
// leader (a kube-apiserver) derives its target from the Feature (the
// desired state and, during a rollout in steps, the cohort that takes the
// new value) and writes it only when that changes, so a follower receives
// one small event per change, and none of the Feature's status writes.
//
// Values are applied with the gate's SetFromMap. A Follower reads the
// targets once when it starts, applies them and caches them on disk, so
// that a process that cannot reach an apiserver starts with the last
// desired state; then it watches them and applies changes that apply while
// running, or restarts the process for the others. It needs get, list and
// watch of featuretargets in its namespace.
//
//	f := follow.NewFollower(utilfeature.DefaultMutableFeatureGate, client, follow.Options{
//		Namespace: "my-system",
//		CacheFile: "/var/lib/my-controller/feature-desired-state.json",
//		OnChange:  reporter.Changed,
//	})
//	if err := f.Start(ctx); err != nil {
//		logger.Error(err, "Following the desired state of features")
//	}
//
// Pass Follower.Management to report.Options.Management so that the report
// says which values follow a Feature.
package follow
