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

// Package migrator rewrites the stored objects of a resource through the
// resource's own registry store (KEP-3920): it clears the fields a turned-off
// feature added, page by page, with optimistic concurrency, so a concurrent
// write is never lost.
package migrator

import (
	"context"
	"errors"
	"fmt"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Store is the part of a resource's registry store the migrator uses: its
// own list and update paths (strategy, validation, storage transformers).
// *genericregistry.Store satisfies it.
type Store interface {
	// List lists the stored objects (internal version) a page at a time.
	List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error)
	// Update writes an object through the strategy with optimistic concurrency.
	Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
		updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error)
}

// Stores gives the registry store of a group-resource: in kube-apiserver,
// the store kube-apiserver installed (pkg/featurelifecycle/storecatalog).
type Stores interface {
	// Store returns the store of gr, or an error naming gr when it has none.
	Store(gr schema.GroupResource) (Store, error)
}

// StatusStores gives the stores that write the status of a group-resource.
type StatusStores interface {
	// StatusStore returns a Store that lists the objects of gr and writes
	// them through gr's status subresource, or an error naming gr when it
	// has none. The Store says which subresource it writes through with a
	// method Subresource() string, named in each write's request info.
	StatusStore(gr schema.GroupResource) (Store, error)
}

// NotServedError is the error of Stores and StatusStores for a resource the
// apiserver does not serve at all: not at its emulated version
// (--emulated-version), or not enabled (--runtime-config). Objects stored
// while it was served stay in etcd, where no request reads or writes them,
// until an apiserver serves it again; a Feature's tasks cannot reach them
// either, and the lifecycle tells them apart from a resource served
// without a registry store, which is an error.
type NotServedError struct {
	// Resource is the resource that is not served.
	Resource schema.GroupResource
}

// Error names the resource and why its objects are out of reach.
func (e *NotServedError) Error() string {
	return fmt.Sprintf("%s is not served by this apiserver (not at its emulated version, or not enabled by --runtime-config): objects stored while it was served stay in etcd, out of every request's reach, until it is served again", e.Resource.String())
}

// IsNotServed reports whether err is, or wraps, a *NotServedError.
func IsNotServed(err error) bool {
	var e *NotServedError
	return errors.As(err, &e)
}
