#!/usr/bin/env bash
# Pinned versions of what hack/build-node-image.sh puts into the kind node
# image, in one place. Sourced, not run. Kubernetes' own binaries (kubeadm,
# kubectl) come from the k8s.io/kubernetes version of go.mod, our kubelet and
# control-plane images from this tree; everything else is pinned here.

# Debian release of the root file system (debootstrap from Debian's mirror).
NODE_DEBIAN_SUITE=${NODE_DEBIAN_SUITE:-bookworm}
NODE_DEBIAN_MIRROR=${NODE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Packages of the root file system, beyond debootstrap's minbase.
NODE_DEBIAN_PACKAGES=(
  systemd systemd-sysv dbus
  iptables nftables ebtables iproute2 conntrack ethtool socat
  mount util-linux kmod procps ca-certificates libseccomp2 pigz
)

# Go modules, each built in a module context of its own.
CONTAINERD_MODULE=github.com/containerd/containerd/v2
CONTAINERD_VERSION=v2.4.2
RUNC_MODULE=github.com/opencontainers/runc
RUNC_VERSION=v1.5.2
CRI_TOOLS_MODULE=sigs.k8s.io/cri-tools
# v1.36.0: the module proxy here serves no source archive of v1.37.0 (403);
# crictl speaks CRI v1 to any containerd 2.x.
CRI_TOOLS_VERSION=v1.36.0
CNI_PLUGINS_MODULE=github.com/containernetworking/plugins
CNI_PLUGINS_VERSION=v1.9.1
CNI_PLUGINS=(bridge host-local loopback portmap ptp)
# kubeadm v1.37.2 deploys CoreDNS v1.14.6 (cmd/kubeadm/app/constants).
COREDNS_MODULE=github.com/coredns/coredns
COREDNS_VERSION=v1.14.6
# The pause image tag kubeadm v1.37.2 expects (constants.PauseVersion); the
# binary is ours (hack/node-image/pause).
PAUSE_TAG=3.10.2

# kind, built from its Go module by hack/install-kind.sh for the end-to-end
# test that creates a cluster from the node image with kind itself
# (test/e2e/node/kind_test.go). Users bring their own kind.
KIND_MODULE=sigs.k8s.io/kind
KIND_VERSION=v0.33.0
