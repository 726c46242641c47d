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
package leader

import (
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

type leaseOpt func(*coordinationv1.Lease)

func renewedAgo(d time.Duration) leaseOpt {
	return func(l *coordinationv1.Lease) {
		t := metav1.NewMicroTime(testNow.Add(-d))
		l.Spec.RenewTime = &t
	}
}

func acquiredAgo(d time.Duration) leaseOpt {
	return func(l *coordinationv1.Lease) {
		t := metav1.NewMicroTime(testNow.Add(-d))
		l.Spec.AcquireTime = &t
	}
}

func withLabels(labels map[string]string) leaseOpt {
	return func(l *coordinationv1.Lease) { l.Labels = labels }
}

func inNamespace(ns string) leaseOpt {
	return func(l *coordinationv1.Lease) { l.Namespace = ns }
}

// identityLease returns a kube-apiserver identity lease in kube-system.
func identityLease(name string, opts ...leaseOpt) *coordinationv1.Lease {
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: IdentityLeaseNamespace,
			Labels:    map[string]string{IdentityLeaseComponentLabelKey: KubeAPIServer},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       &name,
			LeaseDurationSeconds: func() *int32 { d := int32(3600); return &d }(),
		},
	}
	for _, o := range opts {
		o(l)
	}
	return l
}

func TestLiveAPIServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		leases []*coordinationv1.Lease
		window time.Duration
		want   []string
	}{
		{
			name:   "renewed 5s ago is live",
			leases: []*coordinationv1.Lease{identityLease("a", renewedAgo(5*time.Second))},
			window: DefaultLivenessWindow,
			want:   []string{"a"},
		},
		{
			name:   "renewed 60s ago is not live",
			leases: []*coordinationv1.Lease{identityLease("a", renewedAgo(60*time.Second))},
			window: DefaultLivenessWindow,
			want:   []string{},
		},
		{
			name:   "renewed exactly at the window edge is live",
			leases: []*coordinationv1.Lease{identityLease("a", renewedAgo(30*time.Second))},
			window: 30 * time.Second,
			want:   []string{"a"},
		},
		{
			name:   "renewTime in the future (clock skew) is live",
			leases: []*coordinationv1.Lease{identityLease("a", renewedAgo(-5*time.Second))},
			window: DefaultLivenessWindow,
			want:   []string{"a"},
		},
		{
			name: "renewTime wins over acquireTime",
			leases: []*coordinationv1.Lease{
				identityLease("a", renewedAgo(60*time.Second), acquiredAgo(time.Second)),
				identityLease("b", renewedAgo(time.Second), acquiredAgo(time.Hour)),
			},
			window: DefaultLivenessWindow,
			want:   []string{"b"},
		},
		{
			name: "nil renewTime falls back to acquireTime",
			leases: []*coordinationv1.Lease{
				identityLease("a", acquiredAgo(5*time.Second)),
				identityLease("b", acquiredAgo(60*time.Second)),
			},
			window: DefaultLivenessWindow,
			want:   []string{"a"},
		},
		{
			name:   "neither renewTime nor acquireTime is not live",
			leases: []*coordinationv1.Lease{identityLease("a")},
			window: DefaultLivenessWindow,
			want:   []string{},
		},
		{
			name: "leases without the kube-apiserver identity label are ignored",
			leases: []*coordinationv1.Lease{
				identityLease("no-labels", renewedAgo(time.Second), withLabels(nil)),
				identityLease("other-component", renewedAgo(time.Second),
					withLabels(map[string]string{IdentityLeaseComponentLabelKey: "kube-controller-manager"})),
				identityLease("other-label", renewedAgo(time.Second), withLabels(map[string]string{"app": KubeAPIServer})),
				identityLease("ok", renewedAgo(time.Second)),
			},
			window: DefaultLivenessWindow,
			want:   []string{"ok"},
		},
		{
			name: "sorted, de-duplicated, nil leases skipped",
			leases: []*coordinationv1.Lease{
				identityLease("c", renewedAgo(time.Second)),
				nil,
				identityLease("a", renewedAgo(2*time.Second)),
				identityLease("b", renewedAgo(3*time.Second)),
				identityLease("a", renewedAgo(2*time.Second), inNamespace("elsewhere")),
			},
			window: DefaultLivenessWindow,
			want:   []string{"a", "b", "c"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LiveAPIServers(tc.leases, testNow, tc.window)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LiveAPIServers() = %#v, want %#v", got, tc.want)
			}
		})
	}
}
