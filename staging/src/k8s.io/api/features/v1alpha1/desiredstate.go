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
	"bytes"
	"encoding/json"
	"fmt"
)

// UnmarshalJSON reads "Enabled" and "Disabled", and also the booleans true and false:
// a YAML 1.1 parser, kubectl's among them, reads an unquoted Enabled or Disabled as a
// boolean, so `desiredState: Enabled` in a manifest arrives as true. Anything
// else that is not a string is refused with a message that says how to
// write it; validation refuses other strings.
func (s *FeatureDesiredState) UnmarshalJSON(data []byte) error {
	switch string(bytes.TrimSpace(data)) {
	case "true":
		*s = FeatureDesiredStateEnabled
		return nil
	case "false":
		*s = FeatureDesiredStateDisabled
		return nil
	case "null":
		return nil
	}
	var value string
	if err := json.Unmarshal(data, &value); err != nil {
		return fmt.Errorf(`desiredState must be "Enabled" or "Disabled" (a boolean is read as Enabled or Disabled), not %s`, data)
	}
	*s = FeatureDesiredState(value)
	return nil
}
