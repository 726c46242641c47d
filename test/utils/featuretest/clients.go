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

// Package featuretest holds the helpers that the integration tests
// (test/integration, apiservers as processes) and the end-to-end tests
// (test/e2e, apiservers in containers) of the feature lifecycle share:
// admin clients spread over several apiservers, a watch that records every
// version of a Feature, writers that update StatefulSets concurrently and
// remember their last successful write, the StatefulSets of the storage
// migration tests and their reading from etcd, and the apiservers' metrics.
package featuretest

import (
	"sync/atomic"

	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	featuresclient "k8s.io/client-go/kubernetes"
)

// Clients are admin clients of several apiservers. An apiserver marked down
// (killed, partitioned) is not picked.
type Clients struct {
	// Configs, Kube and Features are indexed like the apiservers.
	Configs  []*restclient.Config
	Kube     []kubernetes.Interface
	Features []featuresclient.Interface

	down []atomic.Bool
}

// NewClients returns clients of the apiservers behind configs.
func NewClients(configs ...*restclient.Config) *Clients {
	c := &Clients{Configs: configs, down: make([]atomic.Bool, len(configs))}
	for _, config := range configs {
		c.Kube = append(c.Kube, kubernetes.NewForConfigOrDie(config))
		c.Features = append(c.Features, featuresclient.NewForConfigOrDie(config))
	}
	return c
}

// Pick returns the index of the n-th (modulo) apiserver not marked down, or
// of the n-th of all when every one is down.
func (c *Clients) Pick(n int) int {
	up := c.Up()
	if len(up) == 0 {
		return n % len(c.Configs)
	}
	return up[n%len(up)]
}

// Up returns the indexes of the apiservers not marked down.
func (c *Clients) Up() []int {
	var up []int
	for i := range c.down {
		if !c.down[i].Load() {
			up = append(up, i)
		}
	}
	return up
}

// SetDown marks apiserver i down (or up again).
func (c *Clients) SetDown(i int, down bool) { c.down[i].Store(down) }

// IsDown reports whether apiserver i is marked down.
func (c *Clients) IsDown(i int) bool { return c.down[i].Load() }

// UpConfigs returns Configs with nil in place of the apiservers marked down.
func (c *Clients) UpConfigs() []*restclient.Config {
	out := make([]*restclient.Config, len(c.Configs))
	for i, config := range c.Configs {
		if !c.down[i].Load() {
			out[i] = config
		}
	}
	return out
}
