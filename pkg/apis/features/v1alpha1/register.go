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

package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// GroupName is the group name of the Feature API.
const GroupName = "features.k8s.io"

// SchemeGroupVersion is the group version used to register these objects.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var (
	localSchemeBuilder = &featuresv1alpha1.SchemeBuilder
	// AddToScheme adds the external types, conversions, defaults and field
	// label conversions of v1alpha1 to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func init() {
	// The generated conversion and defaulting functions register themselves
	// in init functions of their own; here we add the hand-written parts.
	localSchemeBuilder.Register(addDefaultingFuncs, addFieldLabelConversionFuncs)
}

// Field selectors supported on Features besides metadata.name and metadata.namespace.
const (
	// GateField selects Features by spec.gate.
	GateField = "spec.gate"
	// StateField selects Features by status.state.
	StateField = "status.state"
	// ManagementField selects Features by spec.management.
	ManagementField = "spec.management"
)

// Field selectors supported on FeatureReports besides metadata.name and
// metadata.namespace.
const (
	// ComponentField selects FeatureReports by spec.component.
	ComponentField = "spec.component"
	// IdentityField selects FeatureReports by spec.identity.
	IdentityField = "spec.identity"
)

func addFieldLabelConversionFuncs(scheme *runtime.Scheme) error {
	if err := scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind("Feature"),
		func(label, value string) (string, string, error) {
			switch label {
			case "metadata.name", "metadata.namespace", GateField, StateField, ManagementField:
				return label, value, nil
			default:
				return "", "", fmt.Errorf("field label not supported: %s", label)
			}
		}); err != nil {
		return err
	}
	return scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind("FeatureReport"),
		func(label, value string) (string, string, error) {
			switch label {
			case "metadata.name", "metadata.namespace", ComponentField, IdentityField:
				return label, value, nil
			default:
				return "", "", fmt.Errorf("field label not supported: %s", label)
			}
		})
}
