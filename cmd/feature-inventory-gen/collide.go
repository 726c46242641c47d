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

package main

import (
	"fmt"
	"math/rand"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apitesting "k8s.io/kubernetes/pkg/api/testing"
	"sigs.k8s.io/randfill"
)

// Colliding objects: upstream's fuzzers fill free-form strings at random,
// so a field that names another field's key (a topology spread
// constraint's matchLabelKeys naming a pod label, a volume mount naming a
// volume) never finds it, and a strategy that copies one into the other
// (PrepareForCreate merging the pod's label values into the selector)
// never runs. Colliding objects draw every plain string, map keys
// included, from collisions, so that references resolve; the prepared
// probe (prepared.go) runs on them beside the fuzzed objects.

// collisions are the strings of colliding objects: valid label keys and
// values, names and keys.
var collisions = []string{"a", "b"}

// collideSeeds is how many colliding objects are made per resource.
const collideSeeds = 10

// collide returns a fuzzer function drawing plain strings from collisions.
func collide(runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(s *string, c randfill.Continue) { *s = collisions[c.Intn(len(collisions))] },
	}
}

// fuzzColliding returns an internal object of r filled by upstream's API
// fuzzers with a fixed seed, with every plain string one of collisions.
func fuzzColliding(r *resource, seed int) (obj runtime.Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	filling := fillings[seed%len(fillings)]
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(apitesting.FuzzerFuncs, boundRecursion, collide), rand.NewSource(int64(seed)), legacyscheme.Codecs).
		NilChance(filling.nilChance).
		NumElements(filling.minElems, filling.maxElems).
		MaxDepth(maxDepth)
	obj = r.Store.NewFunc()
	f.Fill(obj)
	return obj, nil
}
