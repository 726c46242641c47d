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

package inventory

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// GuardedField is a field upstream's strategy of a resource drops while a
// gate is off (pkg/features/lifecycle Guarded builds them from the
// inventory; this package holds the type so that light packages, such as
// admission plugins, can take them).
type GuardedField struct {
	// Gate is the gate.
	Gate featuregate.Feature
	// Path is the field, in the resource's GuardedResource.Version.
	Path gatedfield.Path
	// Keep accepts the values the strategy keeps with the gate off (nil:
	// none).
	Keep func(interface{}) bool
}

// GuardedResource is what the gates guard in one resource.
type GuardedResource struct {
	// Version is the group-version the paths are written in.
	Version schema.GroupVersion
	// Fields are the fields, by gate then path.
	Fields []GuardedField
}
