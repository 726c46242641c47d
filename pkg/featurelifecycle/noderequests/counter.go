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

// Package noderequests counts, per node, the API requests its kubelet makes
// and those that fail, while a canary rollout needs them: the analysis of a
// step compares the error rate of the cohort's nodes with the others'.
package noderequests

import (
	"net/http"
	"sync"
	"sync/atomic"

	endpointsmetrics "k8s.io/apiserver/pkg/endpoints/metrics"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"k8s.io/kubernetes/pkg/auth/nodeidentifier"
)

// Counts are the requests of one node's kubelet and how many of them
// failed.
type Counts struct {
	Requests, Errors int64
}

// Sub returns c less base.
func (c Counts) Sub(base Counts) Counts {
	return Counts{Requests: c.Requests - base.Requests, Errors: c.Errors - base.Errors}
}

// Counter counts the resource requests of kubelets (users a node
// identifier recognizes) that reach the handler it wraps, while it is
// armed. Disarmed, it costs a request one atomic load. The zero value is
// not usable; use New.
type Counter struct {
	armed atomic.Int32
	ids   nodeidentifier.NodeIdentifier
	// nodes maps a node name to its *counts.
	nodes sync.Map
}

type counts struct {
	requests, errors atomic.Int64
}

// New returns a disarmed Counter.
func New() *Counter {
	return &Counter{ids: nodeidentifier.NewDefaultNodeIdentifier()}
}

// Arm starts counting, until every Arm is matched by a call of the
// function it returns.
func (c *Counter) Arm() (disarm func()) {
	c.armed.Add(1)
	var once sync.Once
	return func() { once.Do(func() { c.armed.Add(-1) }) }
}

// Armed says whether the counter counts.
func (c *Counter) Armed() bool { return c.armed.Load() > 0 }

// Of returns what the counter counted of node's kubelet since it was
// first armed.
func (c *Counter) Of(node string) Counts {
	v, ok := c.nodes.Load(node)
	if !ok {
		return Counts{}
	}
	n := v.(*counts)
	return Counts{Requests: n.requests.Load(), Errors: n.errors.Load()}
}

// Failed says whether a response's status code counts as an error of the
// client's feature: a server error, or a refusal of a malformed, invalid
// or forbidden request. Not found, conflicts, expired watches and
// throttling are what every healthy client meets.
func Failed(code int) bool {
	return code >= 500 || code == http.StatusBadRequest || code == http.StatusForbidden || code == http.StatusUnprocessableEntity
}

// WrapHandler returns next, counting the kubelets' resource requests it
// serves while the counter is armed. next must run after authentication
// and the request info filter: wrap the API handler that a server's
// handler chain wraps (WrapChain).
func (c *Counter) WrapHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !c.Armed() {
			next.ServeHTTP(w, req)
			return
		}
		ctx := req.Context()
		info, ok := request.RequestInfoFrom(ctx)
		u, hasUser := request.UserFrom(ctx)
		if !ok || !info.IsResourceRequest || !hasUser {
			next.ServeHTTP(w, req)
			return
		}
		node, isNode := c.ids.NodeIdentity(u)
		if !isNode || node == "" {
			next.ServeHTTP(w, req)
			return
		}
		rec := &endpointsmetrics.ResponseWriterDelegator{ResponseWriter: w}
		next.ServeHTTP(responsewriter.WrapForHTTP1Or2(rec), req)
		code := rec.Status()
		if code == 0 {
			code = http.StatusOK // the handler wrote nothing
		}
		v, ok := c.nodes.Load(node)
		if !ok {
			v, _ = c.nodes.LoadOrStore(node, &counts{})
		}
		n := v.(*counts)
		n.requests.Add(1)
		if Failed(code) {
			n.errors.Add(1)
		}
	})
}

// WrapChain returns a handler chain builder that builds build's chain
// around the API handler wrapped by WrapHandler, so that the counter sees
// each request with its user and request info.
func (c *Counter) WrapChain(build func(http.Handler, *genericapiserver.Config) http.Handler) func(http.Handler, *genericapiserver.Config) http.Handler {
	return func(apiHandler http.Handler, config *genericapiserver.Config) http.Handler {
		return build(c.WrapHandler(apiHandler), config)
	}
}
