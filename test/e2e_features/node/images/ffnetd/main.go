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

// Command ffnetd is the CNI daemon of the kind node image of this tree
// (hack/build-node-image.sh), the simplest one kind's default CNI manifest
// (/kind/manifests/default-cni.yaml) can run in place of kindnetd, which is
// not published as a Go module. On every node it
//
//   - writes /etc/cni/net.d/10-ffnet.conflist: the ptp plugin (a veth per
//     pod, IP masquerade for traffic leaving the node's pod range) with
//     host-local addresses from the node's spec.podCIDRs, and portmap;
//   - routes every other node's pod ranges via that node's InternalIP
//     (`ip route replace`, run in the node's root file system, mounted at
//     /host, as the node's `ip` is there and this image is FROM scratch);
//
// and does both again every few seconds. It reads Nodes only. IPv4
// forwarding is on from the node's boot (/etc/sysctl.d/10-node.conf).
// CONTROL_PLANE_ENDPOINT (host:port, which kind patches into the manifest)
// is the apiserver it talks to, so it needs no kube-proxy; otherwise the
// in-cluster service address.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	netutils "k8s.io/utils/net"
)

func main() {
	confDir := flag.String("cni-conf-dir", "/etc/cni/net.d", "where the CNI configuration is written")
	hostRoot := flag.String("host-root", "/host", "the node's root file system, to run its ip command in")
	interval := flag.Duration("interval", 5*time.Second, "how often to reconcile")
	flag.Parse()
	nodeName := os.Getenv("NODE_NAME")
	if nodeName == "" {
		log.Fatal("NODE_NAME is not set")
	}
	config, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	if ep := os.Getenv("CONTROL_PLANE_ENDPOINT"); ep != "" {
		config.Host = "https://" + ep
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		log.Fatal(err)
	}
	r := &reconciler{client: client, node: nodeName, confDir: *confDir, hostRoot: *hostRoot, routes: map[string]string{}}
	for {
		if err := r.reconcile(context.Background()); err != nil {
			log.Print(err)
		}
		time.Sleep(*interval)
	}
}

type reconciler struct {
	client   kubernetes.Interface
	node     string
	confDir  string
	hostRoot string
	conf     []byte
	routes   map[string]string // pod range -> gateway, as last set
}

func (r *reconciler) reconcile(ctx context.Context) error {
	nodes, err := r.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if n.Name == r.node {
			if err := r.writeConf(n); err != nil {
				log.Print(err)
			}
			continue
		}
		gw := internalIP(n)
		if gw == "" {
			continue
		}
		for _, cidr := range podCIDRs(n) {
			if r.routes[cidr] == gw {
				continue
			}
			if err := r.ip("route", "replace", cidr, "via", gw); err != nil {
				log.Printf("route %s via %s (node %s): %v", cidr, gw, n.Name, err)
				continue
			}
			log.Printf("route %s via %s (node %s)", cidr, gw, n.Name)
			r.routes[cidr] = gw
		}
	}
	return nil
}

func podCIDRs(n *corev1.Node) []string {
	if len(n.Spec.PodCIDRs) > 0 {
		return n.Spec.PodCIDRs
	}
	if n.Spec.PodCIDR != "" {
		return []string{n.Spec.PodCIDR}
	}
	return nil
}

func internalIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && netutils.ParseIPSloppy(a.Address).To4() != nil {
			return a.Address
		}
	}
	return ""
}

// writeConf writes the node's CNI configuration once its pod ranges are known.
func (r *reconciler) writeConf(n *corev1.Node) error {
	cidrs := podCIDRs(n)
	if len(cidrs) == 0 {
		return nil
	}
	sort.Strings(cidrs)
	var ranges [][]map[string]string
	var routes []map[string]string
	for _, c := range cidrs {
		ranges = append(ranges, []map[string]string{{"subnet": c}})
		if ip, _, err := netutils.ParseCIDRSloppy(c); err == nil && ip.To4() != nil {
			routes = append(routes, map[string]string{"dst": "0.0.0.0/0"})
		} else {
			routes = append(routes, map[string]string{"dst": "::/0"})
		}
	}
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "ffnet",
		"plugins": []any{
			map[string]any{
				"type":   "ptp",
				"ipMasq": true,
				"mtu":    1500,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": "/run/cni-ipam-state",
					"ranges":  ranges,
					"routes":  routes,
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	if bytes.Equal(data, r.conf) {
		return nil
	}
	path := filepath.Join(r.confDir, "10-ffnet.conflist")
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, data) {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
		log.Printf("wrote %s for %v", path, cidrs)
	}
	r.conf = data
	return nil
}

// ip runs the node's ip command in the node's root file system.
func (r *reconciler) ip(args ...string) error {
	cmd := exec.Command("/bin/ip", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: r.hostRoot}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}
