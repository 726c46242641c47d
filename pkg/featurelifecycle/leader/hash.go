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

// Package leader decides which kube-apiserver leads each Feature
// (KEP-3920, Design Details, "Leadership").
//
// The live kube-apiservers are the identity leases in kube-system labelled
// apiserver.kubernetes.io/identity=kube-apiserver that were renewed within a
// liveness window. The leader of a feature is the live kube-apiserver, among
// those that know the feature, with the highest rendezvous
// (highest-random-weight) score Score(feature, lease name). Every apiserver
// computes the same answer from its own lease informer cache, so electing a
// leader costs no API traffic. Caches can briefly disagree, so two apiservers
// may both believe they lead; callers must keep every write optimistic and
// every task idempotent.
package leader

import (
	"crypto/sha256"
	"encoding/binary"
)

// Score returns the rendezvous weight of apiserver for feature.
//
// It is the first 8 bytes, read big-endian, of
// SHA-256(feature + "\x00" + apiserver). SHA-256 is used because it is
// uniformly distributed on every input (no weak mixing on short, similar
// names such as "gate-1", "gate-2"), is in the standard library and is fully
// specified, so the value never depends on the Go version, platform or
// process. The NUL separator cannot occur in object or lease names, so
// distinct pairs never hash the same input.
//
// All kube-apiservers of a cluster, whatever their version, must compute the
// same scores: this function must never change.
func Score(feature, apiserver string) uint64 {
	h := sha256.New()
	h.Write([]byte(feature))
	h.Write([]byte{0})
	h.Write([]byte(apiserver))
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint64(h.Sum(sum[:0])[:8])
}

// Leader returns the candidate with the highest Score for feature; ties are
// broken in favour of the lexicographically smaller name. The result does not
// depend on the order of candidates. It returns false when there is no
// candidate.
func Leader(feature string, candidates []string) (string, bool) {
	var (
		best      string
		bestScore uint64
		found     bool
	)
	for _, c := range candidates {
		s := Score(feature, c)
		if !found || s > bestScore || (s == bestScore && c < best) {
			best, bestScore, found = c, s, true
		}
	}
	return best, found
}
