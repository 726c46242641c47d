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

package features

import (
	"k8s.io/component-base/featuregate"

	"k8s.io/featureflags/pkg/featurelifecycle/tasks"
)

// Lifecycle declares what a gate's transitions need besides WaitForUses,
// which every transition runs first.
type Lifecycle struct {
	// OnEnable runs, in order, while the feature is TurningOn.
	OnEnable []tasks.Task
	// OnDisable runs, in order, while the feature is TurningOff: clearing the
	// fields the feature added, waiting for objects that use it to go away.
	OnDisable []tasks.Task
}

// Lifecycles is the lifecycle registry: the one place a feature author
// declares the tasks of a gate. A gate without an entry only waits for uses.
var Lifecycles = map[featuregate.Feature]Lifecycle{}
