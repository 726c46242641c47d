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

package noderequests

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// serve sends one request as u (a resource request unless nonResource)
// through c's wrapper of a handler that answers code.
func serve(c *Counter, u user.Info, nonResource bool, code int) {
	h := c.WrapHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if code == http.StatusOK {
			_, _ = w.Write([]byte("{}")) // an implicit 200
			return
		}
		w.WriteHeader(code)
	}))
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	ctx := request.WithRequestInfo(req.Context(), &request.RequestInfo{IsResourceRequest: !nonResource, Verb: "get", Resource: "pods"})
	if u != nil {
		ctx = request.WithUser(ctx, u)
	}
	h.ServeHTTP(httptest.NewRecorder(), req.WithContext(ctx))
}

func TestCounter(t *testing.T) {
	node := func(name string) user.Info {
		return &user.DefaultInfo{Name: "system:node:" + name, Groups: []string{user.NodesGroup}}
	}
	c := New()
	serve(c, node("a"), false, http.StatusInternalServerError)
	if got := c.Of("a"); got != (Counts{}) {
		t.Fatalf("disarmed, counted %+v", got)
	}
	disarm := c.Arm()
	second := c.Arm()
	for _, code := range []int{http.StatusOK, http.StatusCreated, http.StatusNotFound, http.StatusConflict, http.StatusTooManyRequests,
		http.StatusBadRequest, http.StatusForbidden, http.StatusUnprocessableEntity, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		serve(c, node("a"), false, code)
	}
	serve(c, node("b"), false, http.StatusOK)
	serve(c, node("b"), true, http.StatusInternalServerError)                                                            // not a resource request
	serve(c, &user.DefaultInfo{Name: "system:kube-scheduler"}, false, http.StatusInternalServerError)                    // not a node
	serve(c, &user.DefaultInfo{Name: "system:node:c", Groups: []string{"other"}}, false, http.StatusInternalServerError) // not in system:nodes
	serve(c, nil, false, http.StatusInternalServerError)                                                                 // no user
	if got, want := c.Of("a"), (Counts{Requests: 10, Errors: 5}); got != want {
		t.Errorf("node a: %+v, want %+v", got, want)
	}
	if got, want := c.Of("b"), (Counts{Requests: 1}); got != want {
		t.Errorf("node b: %+v, want %+v", got, want)
	}
	if got := c.Of("c"); got != (Counts{}) {
		t.Errorf("a user outside system:nodes was counted: %+v", got)
	}
	disarm()
	disarm() // a second call changes nothing
	serve(c, node("b"), false, http.StatusOK)
	if got, want := c.Of("b"), (Counts{Requests: 2}); got != want {
		t.Errorf("armed once more, node b: %+v, want %+v", got, want)
	}
	second()
	serve(c, node("b"), false, http.StatusOK)
	if got, want := c.Of("b"), (Counts{Requests: 2}); got != want {
		t.Errorf("disarmed, node b: %+v, want %+v", got, want)
	}
	if got := c.Of("a").Sub(Counts{Requests: 4, Errors: 1}); got != (Counts{Requests: 6, Errors: 4}) {
		t.Errorf("Sub: %+v", got)
	}
}
