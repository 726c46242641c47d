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
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// RefusedRewritesFile is the name, in this package's directory, of the
// file cmd/lifecycle-fixtures-gen writes.
const RefusedRewritesFile = "zz_generated.refused-rewrites.yaml"

// RefusedRewrites are, for each gate, the field paths of each resource
// whose clearing upstream refuses to store (an immutable field, a one-of
// left with no choice): found by cmd/lifecycle-fixtures-gen, which
// clears each path from the gate's generated fixture and runs the
// resource's update strategy and validation with the gate off. The derived
// tasks wait for objects that set such a path to go instead of clearing
// it.
type RefusedRewrites struct {
	// Gates maps a gate to a resource ("workloads.scheduling.k8s.io") to a
	// path (as in the inventory) to what validation said.
	Gates map[string]map[string]map[string]string `json:"gates"`
}

// Refused returns, for each resource, the paths gate guards whose clearing
// is refused, with what validation said.
func (r *RefusedRewrites) Refused(gate string) map[schema.GroupResource]map[string]string {
	out := map[schema.GroupResource]map[string]string{}
	for res, paths := range r.Gates[gate] {
		out[schema.ParseGroupResource(res)] = paths
	}
	return out
}

// LoadRefusedRewrites returns the refused rewrites, read once.
var LoadRefusedRewrites = sync.OnceValues(func() (*RefusedRewrites, error) { return ParseRefusedRewrites(readGenerated(RefusedRewritesFile)) })

// ParseRefusedRewrites reads a refused rewrites file: every entry names a
// resource and says why.
func ParseRefusedRewrites(data []byte) (*RefusedRewrites, error) {
	r := &RefusedRewrites{}
	if err := yaml.UnmarshalStrict(data, r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", RefusedRewritesFile, err)
	}
	for gate, m := range r.Gates {
		for res, paths := range m {
			if gr := schema.ParseGroupResource(res); gr.Resource == "" || len(paths) == 0 {
				return nil, fmt.Errorf("%s: gate %s: entry %q must name a resource and list paths", RefusedRewritesFile, gate, res)
			}
			for p, why := range paths {
				if _, err := gatedfield.Parse(p); err != nil {
					return nil, fmt.Errorf("%s: gate %s, resource %s: %w", RefusedRewritesFile, gate, res, err)
				}
				if why == "" {
					return nil, fmt.Errorf("%s: gate %s, resource %s, path %s: no reason", RefusedRewritesFile, gate, res, p)
				}
			}
		}
	}
	return r, nil
}
