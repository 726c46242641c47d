//go:build nodeimage

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

// Command coredns is CoreDNS with only the plugins of the Corefile kubeadm
// deploys (errors, health, ready, kubernetes, prometheus, forward, cache,
// loop, reload, loadbalance) and a few an admin edits in (log, hosts,
// rewrite, template), in CoreDNS's order. hack/build-node-image.sh builds it
// in a module of its own that requires github.com/coredns/coredns at the
// version of hack/lib/node-image-versions.sh (the build tag keeps it out of
// this module's packages).
package main

import (
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
	_ "github.com/coredns/coredns/plugin/rewrite"
	_ "github.com/coredns/coredns/plugin/template"

	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
)

// directives is the order in which the plugins run, a subset of CoreDNS's
// plugin.cfg order.
var directives = []string{
	"reload",
	"health",
	"ready",
	"prometheus",
	"errors",
	"log",
	"loadbalance",
	"cache",
	"rewrite",
	"template",
	"hosts",
	"kubernetes",
	"loop",
	"forward",
}

func main() {
	dnsserver.Directives = directives
	coremain.Run()
}
