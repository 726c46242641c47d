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

package featurestatus

import (
	"context"
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/randfill"

	"k8s.io/kubernetes/pkg/apis/features"
)

// TestEveryStatusFieldIsGuarded walks FeatureStatus by reflection and, for
// every field, has each kind of reporter change only that field (to random
// values, many times). Every change must be refused, so a field added to the
// type later is covered without editing this test: reporters write their
// FeatureReport, never the status of a Feature.
func TestEveryStatusFieldIsGuarded(t *testing.T) {
	p, err := enabledPlugin(t, testConfig)
	if err != nil {
		t.Fatal(err)
	}
	reporters := map[string]user.Info{"kube-controller-manager": kcm, "node": nodeFoo, "configured user": fooSA}
	fill := randfill.NewWithSeed(1).NilChance(0.2).NumElements(1, 3)
	statusType := reflect.TypeFor[features.FeatureStatus]()
	for i := 0; i < statusType.NumField(); i++ {
		field := statusType.Field(i)
		t.Run(field.Name, func(t *testing.T) {
			for who, u := range reporters {
				changed := 0
				for try := 0; try < 50; try++ {
					old := testFeature()
					obj := old.DeepCopy()
					v := reflect.ValueOf(&obj.Status).Elem().Field(i)
					fill.Fill(v.Addr().Interface())
					if apiequality.Semantic.DeepEqual(obj.Status, old.Status) {
						continue
					}
					changed++
					attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
						featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, u)
					if err := p.Validate(context.Background(), attrs, nil); !apierrors.IsForbidden(err) {
						t.Fatalf("%s changed status.%s from %#v to %#v: want 403 Forbidden, got %v",
							who, field.Name, reflect.ValueOf(old.Status).Field(i), v, err)
					}
				}
				if changed == 0 {
					t.Fatalf("could not make a change to status.%s", field.Name)
				}
			}
		})
	}
}
