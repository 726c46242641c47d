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

package cohort

import (
	"fmt"
	"strconv"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FromAPI returns the cohort that a Feature's status.rollout.cohort
// publishes.
func FromAPI(c featuresv1alpha1.FeatureCohort) (Cohort, error) {
	out := Cohort{All: c.All}
	if c.Below != "" {
		below, err := strconv.ParseUint(c.Below, 10, 64)
		if err != nil {
			return Cohort{}, fmt.Errorf("cohort.below %q: %w", c.Below, err)
		}
		out.Below = below
	}
	for i := range c.Selectors {
		s, err := metav1.LabelSelectorAsSelector(&c.Selectors[i])
		if err != nil {
			return Cohort{}, fmt.Errorf("cohort.selectors[%d]: %w", i, err)
		}
		out.Selectors = append(out.Selectors, s)
	}
	return out, nil
}

// ToAPI returns c as a Feature's status.rollout.cohort publishes it, with
// seed and with selectors, the API form of c.Selectors.
func ToAPI(seed string, c Cohort, selectors []metav1.LabelSelector) featuresv1alpha1.FeatureCohort {
	out := featuresv1alpha1.FeatureCohort{Seed: seed, All: c.All, Selectors: selectors}
	if c.Below > 0 && !c.All {
		out.Below = strconv.FormatUint(c.Below, 10)
	}
	if c.All {
		out.Selectors = nil
	}
	return out
}
