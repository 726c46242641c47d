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
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/randfill"

	"k8s.io/featureflags/pkg/apis/features"
)

// TestEveryStatusFieldIsGuarded walks FeatureStatus by reflection and, for
// every field, has each kind of reporter change only that field (to random
// values, many times). Every change must be refused with the field named, so
// a field added to the type later is covered without editing this test: a
// reporter may change its own entries of status.uses and nothing else.
func TestEveryStatusFieldIsGuarded(t *testing.T) {
	p, err := NewPlugin(testConfig)
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
				r, ok := p.reporterFor(u)
				if !ok {
					t.Fatalf("%s is not a reporter", who)
				}
				changed := 0
				for try := 0; try < 50; try++ {
					old := testFeature()
					obj := old.DeepCopy()
					v := reflect.ValueOf(&obj.Status).Elem().Field(i)
					fill.Fill(v.Addr().Interface())
					if field.Name == "Uses" {
						// Keep the reporter's own entries as they were: only
						// the other components' entries are under test here.
						keepOwn(&obj.Status, &old.Status, r)
					}
					if apiequality.Semantic.DeepEqual(obj.Status, old.Status) {
						continue
					}
					changed++
					attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
						featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, u)
					err := p.Validate(context.Background(), attrs, nil)
					if !apierrors.IsForbidden(err) {
						t.Fatalf("%s changed status.%s from %#v to %#v: want 403 Forbidden, got %v",
							who, field.Name, reflect.ValueOf(old.Status).Field(i), v, err)
					}
					want := "status." + jsonName(field)
					if field.Name == "Uses" {
						want = "status.uses[component="
					}
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: error %q does not name %s", who, err, want)
					}
				}
				if changed == 0 {
					t.Fatalf("could not make a change to status.%s", field.Name)
				}
			}
		})
	}
}

// keepOwn replaces the entries of r's components in s by those of old.
func keepOwn(s, old *features.FeatureStatus, r *reporter) {
	var uses []features.FeatureUse
	for _, u := range s.Uses {
		if !r.components.Has(u.Component) {
			uses = append(uses, u)
		}
	}
	for _, u := range old.Uses {
		if r.components.Has(u.Component) {
			uses = append(uses, u)
		}
	}
	s.Uses = uses
}

// TestDuplicateUsesAreRefusedByValidation documents which layer refuses
// what: duplicate keys in status.uses never reach admission, because the
// strategy's validation (422 Invalid) runs before validating admission; the
// admission plugin therefore has no check of its own for them. The
// integration test TestComponentsReportUses sends such a request through both.
func TestDuplicateUsesAreRefusedByValidation(t *testing.T) {
	p, err := NewPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	old := testFeature()
	obj := old.DeepCopy()
	own := *use(t, obj, "kube-controller-manager", true)
	own.Reporters = []string{"kcm-2"}
	obj.Status.Uses = append(obj.Status.Uses, own)
	// Admission alone sees only the reporter's own entries change: allowed.
	attrs := admission.NewAttributesRecord(obj, old, featureGVK, obj.Namespace, obj.Name,
		featuresGVR, "status", admission.Update, &metav1.UpdateOptions{}, false, kcm)
	if err := p.Validate(context.Background(), attrs, nil); err != nil {
		t.Errorf("admission should leave duplicates to validation, got %v", err)
	}
}
