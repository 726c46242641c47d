#!/bin/bash
# Run once while the node image is built (hack/build-node-image.sh): units
# enabled and masked for a node in a container, directories the kubelet and
# kubeadm expect.
set -o errexit -o nounset -o pipefail
systemctl enable containerd.service kubelet.service >/dev/null 2>&1
systemctl set-default multi-user.target >/dev/null 2>&1
# Nothing to log in on, no devices to manage, no kernel modules to load, no
# time to sync: the host does these.
for unit in getty.target console-getty.service systemd-udevd.service \
  systemd-udevd-control.socket systemd-udevd-kernel.socket systemd-modules-load.service \
  systemd-timesyncd.service systemd-remount-fs.service; do
  systemctl mask "${unit}" >/dev/null 2>&1
done
mkdir -p /etc/cni/net.d /opt/cni/bin /var/lib/kubelet /etc/kubernetes/manifests /var/lib/containerd /var/log/containers
chmod 0755 /usr/local/bin/* /usr/bin/kubelet /usr/bin/kubeadm /usr/bin/kubectl /opt/cni/bin/* /kind/bin/*
# Each node makes its own (entrypoint).
: > /etc/machine-id
rm -f /var/lib/dbus/machine-id
