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

package offfields

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// servedField is what one apiserver's /openapi/v3/apis/apps/v1 says of
// the gated field: whether it is there, the Feature state it carries, and
// the group-version's URL (with its hash).
type servedField struct {
	present bool
	state   string
	url     string
}

func maxUnavailableServed(ctx context.Context, client kubernetes.Interface) (servedField, error) {
	paths, err := client.Discovery().OpenAPIV3().Paths()
	if err != nil {
		return servedField{}, err
	}
	gv, ok := paths["apis/apps/v1"]
	if !ok {
		return servedField{}, nil
	}
	b, err := gv.Schema("application/json")
	if err != nil {
		return servedField{}, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]interface{} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return servedField{}, err
	}
	prop, ok := doc.Components.Schemas["io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy"].Properties["maxUnavailable"]
	state, _ := prop["x-kubernetes-feature-state"].(string)
	return servedField{present: ok, state: state, url: gv.ServerRelativeURL()}, nil
}

// maxUnavailableServedV2 says whether an apiserver's /openapi/v2 holds the
// gated field.
func maxUnavailableServedV2(ctx context.Context, client kubernetes.Interface) (bool, error) {
	b, err := client.Discovery().RESTClient().Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").DoRaw(ctx)
	if err != nil {
		return false, err
	}
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]interface{} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return false, err
	}
	strategy, ok := doc.Definitions["io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy"]
	if !ok {
		return false, fmt.Errorf("/openapi/v2 has no RollingUpdateStatefulSetStrategy")
	}
	_, ok = strategy.Properties["maxUnavailable"]
	return ok, nil
}

// TestOpenAPIByFeatureState: three apiservers serve apps/v1 without
// maxUnavailable while MaxUnavailableStatefulSet is off, kubectl explain
// says it does not exist; turned on, every apiserver serves it again, with
// a new hash, marked with its Feature's state, and republishes within 10 s
// when that state changes; turned off again, it leaves every apiserver
// while server-side apply of an object holding it keeps working; restarted
// with the Feature Disabled, an apiserver serves apps/v1 by that state
// from the start, and its first publication leaves apps/v1 as it is.
func TestOpenAPIByFeatureState(t *testing.T) {
	if !harness.SeparateHosts() {
		why := "needs unshare(1) with UTS namespaces (root, or an unprivileged user namespace) so that each apiserver process has its own identity"
		harness.RecordSkip(t, "the whole test", why)
		t.Skip(why)
	}
	ctx := context.Background()
	flags := func(value string) []string {
		return []string{"--feature-gates=FeatureLifecycle=true,MaxUnavailableStatefulSet=" + value,
			"--runtime-config=features.k8s.io/v1alpha1=true"}
	}
	prefix := harness.SharedEtcd().Prefix
	hosts := []string{"apiserver-a", "apiserver-b", "apiserver-c"}
	servers := make([]*harness.APIServerProcess, len(hosts))
	for i, h := range hosts {
		servers[i] = harness.StartAPIServerProcess(t, h, prefix, flags("false")...)
	}
	clients := make([]kubernetes.Interface, len(servers))
	for i, s := range servers {
		clients[i] = kubernetes.NewForConfigOrDie(s.ClientConfig())
	}
	name := featuresv1alpha1.FeatureName("MaxUnavailableStatefulSet")
	featuretest.WaitForConverged(t, clients[0], name, featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)

	// waitAll waits until every apiserver serves what ok accepts, and
	// returns what each served.
	waitAll := func(what string, timeout time.Duration, ok func(servedField) bool) []servedField {
		t.Helper()
		got := make([]servedField, len(servers))
		for i := range servers {
			var lastErr error
			err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
				got[i], lastErr = maxUnavailableServed(ctx, clients[i])
				return lastErr == nil && ok(got[i]), nil
			})
			if err != nil {
				t.Fatalf("%s: %s serves %+v (%v) after %s", what, hosts[i], got[i], lastErr, timeout)
			}
		}
		return got
	}
	off := waitAll("gate off", 10*time.Second, func(f servedField) bool { return !f.present })
	// The OpenAPI v2 document too (the aggregator merges its delegates'
	// on every request).
	if present, err := maxUnavailableServedV2(ctx, clients[1]); err != nil || present {
		t.Errorf("/openapi/v2 of %s with the gate off: maxUnavailable served %t (%v)", hosts[1], present, err)
	}

	kubectl := func(args ...string) (string, error) { return harness.Kubectl(t, servers[0], args...) }
	const field = "statefulsets.spec.updateStrategy.rollingUpdate.maxUnavailable"
	if out, err := kubectl("explain", field); err == nil || !strings.Contains(out, `field "maxUnavailable" does not exist`) {
		t.Errorf("kubectl explain %s with the gate off: %v\n%s", field, err, out)
	}

	// Enabled: every apiserver serves the field again, with a new hash, and
	// says the Feature is Enabled within 10 s of it becoming Enabled.
	for _, s := range servers {
		s.Restart(t, flags("true")...)
	}
	f := featuretest.WaitForConverged(t, clients[0], name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	on := time.Now()
	shown := waitAll("gate on", 10*time.Second, func(f servedField) bool { return f.present && f.state == "Enabled" })
	t.Logf("every apiserver serves maxUnavailable as Enabled %.1fs after the Feature became Enabled (%s)", time.Since(on).Seconds(), f.Status.State)
	for i := range servers {
		if shown[i].url == off[i].url {
			t.Errorf("%s serves apps/v1 at %s with the field and without it", hosts[i], shown[i].url)
		}
	}
	if present, err := maxUnavailableServedV2(ctx, clients[1]); err != nil || !present {
		t.Errorf("/openapi/v2 of %s with the gate on: maxUnavailable served %t (%v)", hosts[1], present, err)
	}
	if out, err := kubectl("explain", field); err != nil || !strings.Contains(out, "maxUnavailable") {
		t.Errorf("kubectl explain %s with the gate on: %v\n%s", field, err, out)
	}

	// An object that holds the field.
	apply := func(client kubernetes.Interface, replicas int) error {
		manifest := []byte(`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":` +
			strconv.Itoa(replicas) + `,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":2}}}}`)
		_, err := client.AppsV1().StatefulSets("default").Patch(ctx, "web", types.ApplyPatchType, manifest, metav1.PatchOptions{FieldManager: "openapi-test", Force: ptr.To(true)})
		return err
	}
	if err := apply(clients[0], 0); err != nil {
		t.Fatal(err)
	}

	// Disabled again: the field leaves every apiserver as it restarts with the
	// gate off; server-side apply of the object holding it works
	// throughout, Disabling included.
	states := harness.RecordStates(t, clients[0], name)
	for i, s := range servers {
		s.Restart(t, flags("false")...)
		if err := apply(clients[i], i%2); err != nil {
			t.Errorf("server-side apply through %s after it restarted with the gate off: %v", hosts[i], err)
		}
	}
	waitAll("gate off again", 10*time.Second, func(f servedField) bool { return !f.present })
	featuretest.WaitForConverged(t, clients[0], name, featuresv1alpha1.FeatureStateDisabled, 2*time.Minute)
	if err := apply(clients[2], 1); err != nil {
		t.Errorf("server-side apply once Disabled: %v", err)
	}
	t.Logf("states: %v", states.Get())

	// Restarted with the Feature stored as Disabled: the apiserver hands
	// out apps/v1 without the field from its first request, and the
	// publisher's first publication (which always makes v2) does not
	// republish apps/v1, which kube-aggregator would hash again.
	servers[0].Restart(t, flags("false")...)
	if got, err := maxUnavailableServed(ctx, clients[0]); err != nil || got.present {
		t.Errorf("%s serves apps/v1 with maxUnavailable (%v) right after it restarted with its Feature Disabled", hosts[0], err)
	}
	const publications = "apiserver_feature_lifecycle_openapi_publications_total"
	var m featuretest.Metrics
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		m, err = featuretest.ScrapeMetrics(ctx, servers[0].ClientConfig())
		return err == nil && m.Sum(publications, "openapi", "v2") >= 1, nil
	}); err != nil {
		t.Fatalf("%s made no first publication within 30 s: %v", hosts[0], err)
	}
	if n := m.Sum(publications, "openapi", "apis/apps/v1"); n != 0 {
		t.Errorf("%s republished apps/v1 %v times after it restarted with its Features stored; want 0, it serves them so from the start", hosts[0], n)
	}
}
