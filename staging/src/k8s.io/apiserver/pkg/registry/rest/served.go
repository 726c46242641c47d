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

package rest

// ConditionallyServed is an optional interface of the storage of a resource
// that is served only while a condition holds, which may change while the
// server runs (a resource whose feature is being turned off is served to
// read and delete the objects it stored, and then not at all).
//
// While Served returns false, the API installer answers every request to the
// resource and to its subresources 404 Not Found, as for a resource that was
// never installed, and leaves it out of discovery; a group-version whose
// storages are all conditionally served and none is served answers 404 and
// is left out of discovery, as is a group with no version served. Storage
// that does not implement the interface is always served.
type ConditionallyServed interface {
	// Served reports whether the resource is served now.
	Served() bool
	// AddServedHandler registers f, to be called after Served may have
	// changed. f must not block; it may be called concurrently with
	// requests and with other handlers.
	AddServedHandler(f func())
}
