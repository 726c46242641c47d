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

package app

import (
	"maps"

	"k8s.io/apimachinery/pkg/runtime/schema"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"
)

// kubeAPIServicePriorities is kube-apiserver's own priority table for the
// aggregator. Upstream keeps it unexported in cmd/kube-apiserver/app, so it is
// carried here as data (v1.37.2); a group-version missing from the table gets
// no APIService and vanishes from discovery, which a test guards against, and
// TestPrioritiesAreUpstreams compares it with upstream's source.
var kubeAPIServicePriorities = map[schema.GroupVersion]controlplaneapiserver.APIServicePriority{
	{Group: "", Version: "v1"}:                        {Group: 18000, Version: 1},
	{Group: "apps", Version: "v1"}:                    {Group: 17800, Version: 15},
	{Group: "autoscaling", Version: "v1"}:             {Group: 17500, Version: 15},
	{Group: "autoscaling", Version: "v2"}:             {Group: 17500, Version: 30},
	{Group: "autoscaling", Version: "v2beta1"}:        {Group: 17500, Version: 9},
	{Group: "autoscaling", Version: "v2beta2"}:        {Group: 17500, Version: 1},
	{Group: "batch", Version: "v1"}:                   {Group: 17400, Version: 15},
	{Group: "batch", Version: "v1beta1"}:              {Group: 17400, Version: 9},
	{Group: "batch", Version: "v2alpha1"}:             {Group: 17400, Version: 9},
	{Group: "networking.k8s.io", Version: "v1"}:       {Group: 17200, Version: 15},
	{Group: "networking.k8s.io", Version: "v1beta1"}:  {Group: 17200, Version: 9},
	{Group: "policy", Version: "v1"}:                  {Group: 17100, Version: 15},
	{Group: "policy", Version: "v1beta1"}:             {Group: 17100, Version: 9},
	{Group: "storage.k8s.io", Version: "v1"}:          {Group: 16800, Version: 15},
	{Group: "storage.k8s.io", Version: "v1beta1"}:     {Group: 16800, Version: 9},
	{Group: "storage.k8s.io", Version: "v1alpha1"}:    {Group: 16800, Version: 1},
	{Group: "scheduling.k8s.io", Version: "v1"}:       {Group: 16600, Version: 15},
	{Group: "scheduling.k8s.io", Version: "v1beta1"}:  {Group: 16600, Version: 9},
	{Group: "scheduling.k8s.io", Version: "v1alpha3"}: {Group: 16600, Version: 3},
	{Group: "node.k8s.io", Version: "v1"}:             {Group: 16300, Version: 15},
	{Group: "node.k8s.io", Version: "v1alpha1"}:       {Group: 16300, Version: 1},
	{Group: "node.k8s.io", Version: "v1beta1"}:        {Group: 16300, Version: 9},
	{Group: "resource.k8s.io", Version: "v1"}:         {Group: 16200, Version: 21},
	{Group: "resource.k8s.io", Version: "v1beta2"}:    {Group: 16200, Version: 15},
	{Group: "resource.k8s.io", Version: "v1beta1"}:    {Group: 16200, Version: 9},
	{Group: "resource.k8s.io", Version: "v1alpha3"}:   {Group: 16200, Version: 1},
	{Group: "lifecycle.k8s.io", Version: "v1alpha1"}:  {Group: 15700, Version: 1},

	// Ours: after upstream's lowest group, with room around it.
	featuresv1alpha1.SchemeGroupVersion: {Group: 16100, Version: 9},
}

// APIVersionPriorities returns the aggregator priorities of every group-version
// our kube-apiserver may serve: the generic control plane's, kube-apiserver's
// own and features.k8s.io/v1alpha1.
func APIVersionPriorities() map[schema.GroupVersion]controlplaneapiserver.APIServicePriority {
	priorities := controlplaneapiserver.DefaultGenericAPIServicePriorities()
	maps.Copy(priorities, kubeAPIServicePriorities)
	return priorities
}
