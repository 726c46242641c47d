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

package lifecycle_test

import (
	"bytes"
	"context"
	"path"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/test/integration/features/harness"
	"k8s.io/kubernetes/test/utils/featuretest"
)

// stricterGate is a gate whose validation is stricter when it is on.
const stricterGate = "StrictIPCIDRValidation"

// TestStricterWhenOn turns on a gate that makes validation stricter
// (StrictIPCIDRValidation: no leading zeros in IPv4 addresses, no bits
// beyond a CIDR's prefix length) while objects written with it off hold
// values the new rules refuse: the Feature holds Enabling on its derived
// wait-for-valid-<resource> tasks, naming those objects and no others,
// until they are changed, then reaches Enabled; etcd, read directly, holds the
// changed values.
func TestStricterWhenOn(t *testing.T) {
	ctx := context.Background()
	flags := func(value string) []string {
		return []string{"--feature-gates=FeatureLifecycle=true," + stricterGate + "=" + value,
			"--runtime-config=features.k8s.io/v1alpha1=true"}
	}
	prefix := harness.SharedEtcd().Prefix
	apiserver := harness.StartAPIServerProcess(t, "apiserver", prefix, flags("false")...)
	admin := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	name := featuresv1alpha1.FeatureName(stricterGate)
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateDisabled, time.Minute)

	endpoints := func(name, ip string) *corev1.Endpoints {
		return &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: ip}},
				Ports:     []corev1.EndpointPort{{Port: 80}},
			}},
		}
	}
	policy := func(cidr string) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "sloppy-cidr", Namespace: "default"},
			Spec: networkingv1.NetworkPolicySpec{
				Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: cidr}}}}},
			},
		}
	}
	// Accepted with the gate off.
	for _, ep := range []*corev1.Endpoints{endpoints("sloppy-ip", "010.000.000.001"), endpoints("clean-ip", "10.0.0.1")} {
		if _, err := admin.CoreV1().Endpoints("default").Create(ctx, ep, metav1.CreateOptions{}); err != nil {
			t.Fatalf("with %s off: %v", stricterGate, err)
		}
	}
	if _, err := admin.NetworkingV1().NetworkPolicies("default").Create(ctx, policy("10.0.0.1/8"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("with %s off: %v", stricterGate, err)
	}

	// Enabled: the Feature holds Enabling on the objects the new rules refuse.
	apiserver.Restart(t, flags("true")...)
	if _, err := admin.CoreV1().Endpoints("default").Create(ctx, endpoints("new-sloppy-ip", "010.000.000.002"), metav1.CreateOptions{}); err == nil {
		t.Fatalf("with %s on, a new object with a leading-zero IP must be refused", stricterGate)
	}
	// The tasks run in order: the endpoints first.
	m := waitForHeld(t, admin, name, "wait-for-valid-endpoints")
	if !strings.Contains(m, "default/sloppy-ip") || strings.Contains(m, "clean-ip") {
		t.Errorf("the endpoints task must name default/sloppy-ip only: %q", m)
	}
	t.Logf("Enabling holds: %s", m)

	// Upstream ratchets: an update that keeps the stored value is accepted.
	ep, err := admin.CoreV1().Endpoints("default").Get(ctx, "sloppy-ip", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ep.Labels = map[string]string{"touched": "true"}
	if ep, err = admin.CoreV1().Endpoints("default").Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("an update keeping the stored IP must be accepted: %v", err)
	}
	// Changing the value lets the task finish; the network policy's holds.
	ep.Subsets[0].Addresses[0].IP = "10.0.0.1"
	if _, err := admin.CoreV1().Endpoints("default").Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if m := waitForHeld(t, admin, name, "wait-for-valid-networkpolicies-networking-k8s-io"); !strings.Contains(m, "default/sloppy-cidr") {
		t.Errorf("the network policy task must name default/sloppy-cidr: %q", m)
	}
	np, err := admin.NetworkingV1().NetworkPolicies("default").Get(ctx, "sloppy-cidr", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	np.Spec.Ingress[0].From[0].IPBlock.CIDR = "10.0.0.0/8"
	if _, err := admin.NetworkingV1().NetworkPolicies("default").Update(ctx, np, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	changed := time.Now()
	featuretest.WaitForConverged(t, admin, name, featuresv1alpha1.FeatureStateEnabled, 2*time.Minute)
	t.Logf("Enabled %.1fs after the objects were changed", time.Since(changed).Seconds())

	client, err := clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	for key, want := range map[string]string{
		"services/endpoints/default/sloppy-ip": "10.0.0.1",
		"networkpolicies/default/sloppy-cidr":  "10.0.0.0/8",
	} {
		resp, err := client.Get(ctx, path.Join("/", prefix, key))
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("reading %s from etcd: %v, %d keys", key, err, len(resp.Kvs))
		}
		if v := resp.Kvs[0].Value; !bytes.Contains(v, []byte(want)) || bytes.Contains(v, []byte("010.000.000.001")) || bytes.Contains(v, []byte("10.0.0.1/8")) {
			t.Errorf("etcd holds for %s: %q, want %s", key, v, want)
		}
	}
}

// waitForHeld waits until the Feature is Enabling with task first among
// its tasks, holding on objects in the default namespace, and returns the
// task's message.
func waitForHeld(t *testing.T, client kubernetes.Interface, name, task string) string {
	t.Helper()
	var f *featuresv1alpha1.Feature
	var message string
	if err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if f, err = client.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		if f.Status.State != featuresv1alpha1.FeatureStateEnabling || len(f.Status.Tasks) == 0 || f.Status.Tasks[0].Name != task {
			return false, nil
		}
		message = f.Status.Tasks[0].Message
		return strings.Contains(message, "default/"), nil
	}); err != nil {
		t.Fatalf("the Feature must be Enabling, held by %s on objects in default: %+v", task, f.Status)
	}
	return message
}
