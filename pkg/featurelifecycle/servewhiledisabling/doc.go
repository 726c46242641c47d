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

// Package servewhiledisabling serves, while a Feature is Disabling, a resource
// upstream serves only while the Feature's gate is on: upstream stops
// serving it as soon as the gate is off, and the objects stored while it was
// on would stay in etcd where nobody can see or delete them, holding the
// Feature's WaitForAbsence task for ever.
//
// The resource's own storage provider, when its gate is off and it was
// given the registry of the Features' states (featurestates: kube-apiserver
// gives it with the FeatureLifecycle gate on), builds the resource's
// storage as it does with the gate on and installs it wrapped by Storage: a
// ReadDelete,
// which serves only get, list, watch, delete, deletecollection and updates
// that only remove finalizers, refuses every other write with 405 and the
// reason, and implements rest.ConditionallyServed: the API installer serves
// it, and discovery lists it, only while the gate's Feature is Disabling;
// at any other time it answers 404 and is absent from discovery, as
// upstream. The registry follows the Features of kube-system through
// kube-apiserver's shared informer, from the feature lifecycle's post-start
// hook. Requests get the same handler chain as any other (authentication,
// audit, RBAC, priority and fairness, admission).
package servewhiledisabling
