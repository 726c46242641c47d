#!/bin/bash
# Run once while the node image is built (hack/build-node-image.sh), in a
# container of it: imports every tarball of /kind/images into containerd's
# k8s.io namespace, where the kubelet's CRI finds them (the directory is
# mounted from the build, not part of the image).
# Only content and image records are written (--no-unpack): the CRI unpacks
# an image into the snapshotter of /var (a volume under kind) when it first
# runs it.
set -o errexit -o nounset -o pipefail
# ctr warns of cgroup v1 on every call here.
ctr() { command ctr "$@" 2> >(grep -v 'cgroup v1 is deprecated' >&2); }
config=$(mktemp)
# No CRI while importing: it would try to set up a runtime here.
cat > "${config}" <<'TOML'
version = 3
disabled_plugins = ['io.containerd.grpc.v1.cri', 'io.containerd.cri.v1.runtime', 'io.containerd.cri.v1.images']
TOML
containerd --config "${config}" --log-level warn >/tmp/containerd-import.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  ctr version >/dev/null 2>&1 && break
  sleep 0.1
done
for tarball in /kind/images/*.tar; do
  ctr --namespace k8s.io images import --no-unpack --all-platforms --compress-blobs "${tarball}" >/dev/null
done
# Pinned: the kubelet's image garbage collection leaves them (nothing could
# pull them back).
for ref in $(ctr --namespace k8s.io images list -q); do
  ctr --namespace k8s.io images label "${ref}" io.cri-containerd.pinned=pinned >/dev/null
  echo "    imported ${ref}"
done
kill "${pid}"
wait "${pid}" || true
rm -rf "${config}" /tmp/containerd-import.log
