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

package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

// GeneratedFile is the name of the fixture file cmd/lifecycle-fixtures-gen
// writes, from the gate inventory, in the directory of every derived gate
// that has neither an explicit registration nor an exception.
const GeneratedFile = "zz_generated.fixture.yaml"

// ExceptionsFile lists, in the fixtures directory, the derived gates whose
// fixture is not generated, each with the reason: a map from gate name to
// a sentence. Such a gate has a hand-written fixture, or none (then the
// harness does not run it and says so in its log).
const ExceptionsFile = "exceptions.yaml"

// KnownFailuresFile lists, in the fixtures directory, the gates the
// on→use→off harness does not run because their lifecycle is known not to
// complete, each with the reason (what the harness saw): a map from gate
// name to a sentence. The harness prints the list; each entry is a bug or
// a limitation of the gate's tasks to fix, not of its fixture.
const KnownFailuresFile = "known-failures.yaml"

// Exceptions reads dir's ExceptionsFile (none is no exception).
func Exceptions(dir string) (map[featuregate.Feature]string, error) {
	return readReasons(dir, ExceptionsFile)
}

// KnownFailures reads dir's KnownFailuresFile (none is no known failure).
func KnownFailures(dir string) (map[featuregate.Feature]string, error) {
	return readReasons(dir, KnownFailuresFile)
}

// readReasons reads a map from gate to reason from dir/file.
func readReasons(dir, file string) (map[featuregate.Feature]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if os.IsNotExist(err) {
		return map[featuregate.Feature]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[featuregate.Feature]string{}
	if err := yaml.UnmarshalStrict(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for g, reason := range out {
		if reason == "" {
			return nil, fmt.Errorf("%s: %s has no reason", file, g)
		}
	}
	return out, nil
}

// stores are the registry stores of every resource kube-apiserver serves,
// by kind, built by upstream's REST storage providers on a storage that is
// never called (only their strategies are used), with the resources served
// only with a gate built whatever the gate.
var stores = sync.OnceValues(func() (map[schema.GroupKind]storecatalog.Resource, error) {
	cfg := standalone.Config{Gated: true, Authorizer: authorizerfactory.NewAlwaysAllowAuthorizer()}
	ps, err := standalone.Providers(cfg)
	if err != nil {
		return nil, err
	}
	catalog, err := standalone.BuildAll(ps, standalone.TrialGetter{}, cfg)
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupKind]storecatalog.Resource{}
	for _, r := range catalog.Resources() {
		kinds, _, err := legacyscheme.Scheme.ObjectKinds(r.Store.New())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.GroupResource, err)
		}
		if _, ok := out[kinds[0].GroupKind()]; !ok {
			out[kinds[0].GroupKind()] = r
		}
	}
	return out, nil
})

// Prepare runs obj, a fixture object in a served version, through what
// kube-apiserver does to create it, without admission: decoding with
// defaulting (under the process's feature gates as they are now) into the
// internal version, then its resource's upstream create strategy
// (PrepareForCreate, which drops disabled fields, and validation). It
// returns the object as it would be stored, and its resource. A status
// the fixture sets is left out of the create and then written as a status
// update (a controller's, or the kubelet's) writes it: through the
// resource's status subresource (its status strategy and validation), or
// the resource itself when it has none.
func Prepare(obj *unstructured.Unstructured) (runtime.Object, schema.GroupResource, error) {
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	internal, gvk, err := legacyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	all, err := stores()
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	r, ok := all[gvk.GroupKind()]
	if !ok {
		return nil, schema.GroupResource{}, fmt.Errorf("kind %s: kube-apiserver serves it with no registry store", gvk.GroupKind())
	}
	objMeta, err := meta.Accessor(internal)
	if err != nil {
		return nil, r.GroupResource, err
	}
	rest.FillObjectMetaSystemFields(objMeta)
	ns := ""
	if r.Store.CreateStrategy.NamespaceScoped() {
		ns = objMeta.GetNamespace()
	}
	// The object is created without its status (nodes keep a status on
	// create), then its status is updated.
	decoded := internal.DeepCopyObject()
	status, hasStatus := standalone.StatusField(decoded)
	hasStatus = hasStatus && !status.IsZero()
	if hasStatus {
		s, _ := standalone.StatusField(internal)
		s.SetZero()
	}
	ctx := requestContext(r, "create", "", ns, objMeta.GetName())
	if err := rest.BeforeCreate(r.Store.CreateStrategy, ctx, internal); err != nil || !hasStatus {
		return internal, r.GroupResource, err
	}
	updater, subresource := standalone.StatusWriter(r)
	withStatus := internal.DeepCopyObject()
	if s, _ := standalone.StatusField(withStatus); s.CanSet() {
		s.Set(status)
	}
	ctx = requestContext(r, "update", subresource, ns, objMeta.GetName())
	prepared, refusal, err := standalone.TryUpdate(ctx, updater, internal, withStatus)
	if err != nil {
		return internal, r.GroupResource, fmt.Errorf("updating the status: %w", err)
	}
	return prepared, r.GroupResource, refusal
}

// PrepareUpdate runs what kube-apiserver does to store updated, an
// internal object, in place of old, the stored one, under the process's
// feature gates as they are now: its resource's upstream update strategy
// (PrepareForUpdate and validation), without admission. It returns
// validation's refusal, or nil.
func PrepareUpdate(old, updated runtime.Object) error {
	kinds, _, err := legacyscheme.Scheme.ObjectKinds(old)
	if err != nil {
		return err
	}
	all, err := stores()
	if err != nil {
		return err
	}
	r, ok := all[kinds[0].GroupKind()]
	if !ok {
		return fmt.Errorf("kind %s: kube-apiserver serves it with no registry store", kinds[0].GroupKind())
	}
	objMeta, err := meta.Accessor(updated)
	if err != nil {
		return err
	}
	ns := ""
	if r.Store.UpdateStrategy.NamespaceScoped() {
		ns = objMeta.GetNamespace()
	}
	ctx := requestContext(r, "update", "", ns, objMeta.GetName())
	return rest.BeforeUpdate(r.Store.UpdateStrategy, ctx, updated, old)
}

// requestContext is the context of a request by a cluster admin to verb
// an object of r, or its subresource.
func requestContext(r storecatalog.Resource, verb, subresource, ns, name string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "lifecycle-fixtures", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}})
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              verb,
		APIPrefix:         apiPrefix(r.GroupResource.Group),
		APIGroup:          r.Version.Group,
		APIVersion:        r.Version.Version,
		Resource:          r.GroupResource.Resource,
		Subresource:       subresource,
		Namespace:         ns,
		Name:              name,
	})
}

func apiPrefix(group string) string {
	if group == "" {
		return "api"
	}
	return "apis"
}
