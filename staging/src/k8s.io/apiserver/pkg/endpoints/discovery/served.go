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

package discovery

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// servedGroup is the group an APIGroupHandler serves; nil: none.
type servedGroup struct {
	group *metav1.APIGroup
}

// SetServed replaces the group the handler serves, for a group whose
// versions are served only while a condition holds
// (rest.ConditionallyServed): group lists the versions served now; nil
// makes the handler answer 404, as for a group that is not served.
func (s *APIGroupHandler) SetServed(group *metav1.APIGroup) {
	if group != nil {
		group = group.DeepCopy()
	}
	s.served.Store(&servedGroup{group: group})
}

// servedGroup returns the group served now, false when none is.
func (s *APIGroupHandler) servedGroup() (*metav1.APIGroup, bool) {
	served := s.served.Load()
	if served == nil {
		return &s.group, true
	}
	return served.group, served.group != nil
}
