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

package v1alpha1

import (
	"testing"
)

func TestFeatureName(t *testing.T) {
	for gate, want := range map[string]string{
		"MaxUnavailableStatefulSet":      "max-unavailable-stateful-set",
		"CSIMigrationPortworx":           "csi-migration-portworx",
		"HPAScaleToZero":                 "hpa-scale-to-zero",
		"OpenAPIV3":                      "open-apiv3",
		"KMSv2":                          "kmsv2",
		"IPv6DualStack":                  "ipv6-dual-stack",
		"SELinuxMount":                   "se-linux-mount",
		"DRAAdminAccess":                 "dra-admin-access",
		"ClusterTrustBundleProjection":   "cluster-trust-bundle-projection",
		"PodAndContainerStatsFromCRI":    "pod-and-container-stats-from-cri",
		"InPlacePodVerticalScaling":      "in-place-pod-vertical-scaling",
		"AllAlpha":                       "all-alpha",
		"A":                              "a",
		"Feature2Go":                     "feature2-go",
		"APIServerIdentity":              "api-server-identity",
		"StorageVersionAPI":              "storage-version-api",
		"lowercase":                      "lowercase",
		"UnknownVersionInteroperability": "unknown-version-interoperability",
		// A lower-case "s" that ends a word after a run of capitals is a
		// plural, not a word of its own.
		"CPUs":        "cpus",
		"IPsAndCIDRs": "ips-and-cidrs",
		"PodIPs2":     "pod-ips2",
		"DNSSearch":   "dns-search",
		// The gates of Kubernetes v1.37.2 whose names the plural rule
		// changed (docs/release-notes.md).
		"AllowServiceExternalIPs":                "allow-service-external-ips",
		"DisableCPUQuotaWithExclusiveCPUs":       "disable-cpu-quota-with-exclusive-cpus",
		"InPlacePodVerticalScalingExclusiveCPUs": "in-place-pod-vertical-scaling-exclusive-cpus",
	} {
		if got := FeatureName(gate); got != want {
			t.Errorf("FeatureName(%q) = %q, want %q", gate, got, want)
		}
	}
}
