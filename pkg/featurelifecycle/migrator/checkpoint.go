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

package migrator

import (
	"encoding/json"
	"fmt"
)

// maxFailureNames bounds the failed objects a checkpoint names.
const maxFailureNames = 3

// Checkpoint is where a migration of one resource stands: the continue token
// of the next page and the counts of the current pass. It is stored in the
// task after every page, so that whichever apiserver leads the feature next
// resumes from it. Encoded, it stays well under 2 KiB.
type Checkpoint struct {
	// Continue is the continue token of the next page; empty at the start of a pass.
	Continue string `json:"continue,omitempty"`
	// Pass counts the passes over the resource, from 1. A pass with failures
	// is followed by another.
	Pass int64 `json:"pass,omitempty"`
	// Pages is how many pages this pass has read.
	Pages int64 `json:"pages,omitempty"`
	// Seen is how many objects this pass has read.
	Seen int64 `json:"seen,omitempty"`
	// Total is Seen plus the objects the last page said remain, when known.
	Total int64 `json:"total,omitempty"`
	// Changed is how many objects this pass has rewritten.
	Changed int64 `json:"changed,omitempty"`
	// Conflicts is how many writes of this pass were retried against a fresh
	// object because the object changed meanwhile.
	Conflicts int64 `json:"conflicts,omitempty"`
	// Failed is how many objects of this pass could not be rewritten.
	Failed int64 `json:"failed,omitempty"`
	// Failures names (namespace/name) the first objects that failed in this pass.
	Failures []string `json:"failures,omitempty"`
	// Done is set when a pass ended without failures: every object of the
	// resource has been cleared.
	Done bool `json:"done,omitempty"`
}

// Encode returns the checkpoint as JSON.
func (c Checkpoint) Encode() string {
	b, err := json.Marshal(c)
	if err != nil {
		// A struct of strings, integers and a bool always marshals.
		panic(err)
	}
	return string(b)
}

// DecodeCheckpoint reads a checkpoint written by Encode; "" is the start.
func DecodeCheckpoint(s string) (Checkpoint, error) {
	var c Checkpoint
	if s == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return Checkpoint{}, fmt.Errorf("reading a storage migration checkpoint: %w", err)
	}
	return c, nil
}

// passEnded reports whether the checkpoint is the end of a pass that had
// failures: the next step starts another pass.
func (c Checkpoint) passEnded() bool {
	return !c.Done && c.Continue == "" && c.Pages > 0
}

// Progress describes the checkpoint in a few words, e.g.
// "1500/10000 seen, 1200 cleared, 3 failed".
func (c Checkpoint) Progress() string {
	s := fmt.Sprintf("%d seen, %d cleared", c.Seen, c.Changed)
	if c.Total > c.Seen && !c.Done && c.Continue != "" {
		s = fmt.Sprintf("%d/%d seen, %d cleared", c.Seen, c.Total, c.Changed)
	}
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	if c.Pass > 1 {
		s += fmt.Sprintf(" (pass %d)", c.Pass)
	}
	return s
}
