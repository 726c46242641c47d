#!/usr/bin/env bash
# Builds a kind node image from this tree, with nothing pulled (there is no
# registry here): featureflags/node:<release>, usable with
#
#   kind create cluster --image featureflags/node:<release> --config ...
#
# Stages (each cached under _output/node, so a warm build only redoes what
# changed):
#
#   rootfs    a Debian root file system (debootstrap from Debian's mirror,
#             the packages of hack/lib/node-image-versions.sh), imported as
#             featureflags/node-base:<digest of suite, mirror and packages>.
#   binaries  containerd, its runc shim and ctr, runc, crictl and the CNI
#             plugins, each built by `go install module/cmd@version` in its own
#             module context (the versions of hack/lib/node-image-versions.sh);
#             CoreDNS from a main of our own (hack/node-image/coredns) in a
#             module of its own; kubeadm and kubectl (upstream's, the
#             k8s.io/kubernetes version of go.mod), our kubelet, our pause and
#             our CNI daemon (test/e2e_features/node/images/{pause,ffnetd}) from the tree.
#             All into _output/node/bin, with the shared module and build caches.
#   images    the control-plane images (hack/build-images.sh, tagged as kubeadm
#             expects), pause, CoreDNS and ffnetd images FROM scratch, saved as
#             tarballs for containerd.
#   assemble  the node image: base + binaries + the files of
#             hack/node-image/rootfs (systemd units, containerd config,
#             entrypoint, /kind/manifests) + /kind/version; then containerd is
#             started in a container of it and every image tarball is imported
#             into its k8s.io namespace (`ctr images import --no-unpack`, as the
#             CRI unpacks an image when it first runs it), and the container is
#             committed as the node image.
#
# Usage: hack/build-node-image.sh [stage...]   (default: all four, in order)
# Environment: NODE_IMAGE (default featureflags/node:<release>), DOCKER.
# Builds run under `nice -n 19` (these machines are shared). Binaries are
# linked without symbol tables (-s -w), as upstream's releases.
set -o errexit -o nounset -o pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
ROOT=${FEATUREFLAGS_ROOT}
cd "${ROOT}"
# shellcheck source=lib/node-image-versions.sh
source hack/lib/node-image-versions.sh

DOCKER=${DOCKER:-docker}
OUT="${ROOT}/_output/node"
BIN="${OUT}/bin"
CACHE="${OUT}/cache"
NICE=(nice -n 19)
release=${RELEASE}
NODE_IMAGE=${NODE_IMAGE:-featureflags/node:${release}}
# The flags these machines need instead of --privileged (see test/e2e/README.md).
NODE_RUN_FLAGS=(--cap-add=ALL --cap-drop=SYS_RESOURCE
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined
  --security-opt systempaths=unconfined --cgroupns=private
  --tmpfs /run --tmpfs /tmp -v /lib/modules:/lib/modules:ro)

ALL_STAGES=(rootfs binaries images assemble)
stages=("$@")
if [[ ${#stages[@]} -eq 0 ]]; then
  stages=("${ALL_STAGES[@]}")
fi
for s in "${stages[@]}"; do
  if [[ " ${ALL_STAGES[*]} " != *" ${s} "* ]]; then
    echo "unknown stage ${s}; known: ${ALL_STAGES[*]}" >&2
    exit 2
  fi
done
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }

log() { echo "+++ $*" >&2; }
apt_updated=false
# ensure_package <debian package> <file it provides>: installs what this
# script needs on a fresh machine.
ensure_package() {
  if [[ -e "$2" ]]; then
    return
  fi
  log "installing $1 from Debian's packages"
  if [[ "${apt_updated}" == false ]]; then
    apt-get update -qq >/dev/null
    apt_updated=true
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}

if ! "${DOCKER}" info >/dev/null 2>&1; then
  echo "${DOCKER} cannot reach a Docker engine; the node image needs one" >&2
  exit 1
fi
mkdir -p "${BIN}" "${CACHE}"
start=${SECONDS}
declare -A took=()

# ---------------------------------------------------------------------------
# rootfs
pkgs_csv=$(IFS=,; echo "${NODE_DEBIAN_PACKAGES[*]}")
base_key=$(printf '%s\n' "${NODE_DEBIAN_SUITE}" "${NODE_DEBIAN_MIRROR}" "${pkgs_csv}" | sha256sum | cut -c1-12)
BASE_IMAGE="featureflags/node-base:${base_key}"
if want rootfs; then
  t=${SECONDS}
  if "${DOCKER}" image inspect "${BASE_IMAGE}" >/dev/null 2>&1; then
    log "${BASE_IMAGE} is up to date"
  else
    tarball="${CACHE}/rootfs-${base_key}.tar"
    if [[ ! -f "${tarball}" ]]; then
      ensure_package debootstrap /usr/sbin/debootstrap
      dir="${CACHE}/rootfs-${base_key}.d"
      rm -rf "${dir}"
      log "debootstrap ${NODE_DEBIAN_SUITE} (${pkgs_csv}) into ${dir#"${ROOT}"/}"
      if ! out=$("${NICE[@]}" debootstrap --variant=minbase --include="${pkgs_csv}" \
        "${NODE_DEBIAN_SUITE}" "${dir}" "${NODE_DEBIAN_MIRROR}" 2>&1); then
        echo "${out}" | tail -30 >&2
        exit 1
      fi
      # What a node never needs: package lists, downloaded packages, docs.
      rm -rf "${dir}"/var/lib/apt/lists/* "${dir}"/var/cache/apt/* \
        "${dir}"/usr/share/doc/* "${dir}"/usr/share/man/* "${dir}"/usr/share/info/*
      tar -C "${dir}" --numeric-owner -cf "${tarball}.tmp" .
      mv "${tarball}.tmp" "${tarball}"
      rm -rf "${dir}"
    fi
    log "importing ${tarball#"${ROOT}"/} as ${BASE_IMAGE}"
    "${DOCKER}" import "${tarball}" "${BASE_IMAGE}" >/dev/null
  fi
  took[rootfs]=$((SECONDS - t))
fi

# ---------------------------------------------------------------------------
# binaries
# go_install <env...> -- <go install args...>: a module's commands at a
# pinned version, built in that module's own context (its go.mod, not ours).
go_install() {
  local env=()
  while [[ "$1" != -- ]]; do env+=("$1"); shift; done
  shift
  env GOBIN="${BIN}" GOFLAGS=-buildvcs=false "${env[@]}" "${NICE[@]}" go install -trimpath "$@"
}
# module_context <name> <module> <version>: _output/node/mod/<name>, a
# module of our own (outside this repository's go.mod and go.work) that
# requires only <module>@<version>, so that <module>'s own requirements
# decide every version; made again only when the pin changes.
module_context() {
  local dir="${OUT}/mod/$1"
  mkdir -p "${dir}"
  if [[ "$(cat "${dir}/pin" 2>/dev/null)" != "$2 $3" ]]; then
    rm -f "${dir}"/go.mod "${dir}"/go.sum "${dir}"/*.go
    printf 'module featureflags.local/node/%s\n\ngo 1.26.0\n\nrequire %s %s\n' "$1" "$2" "$3" > "${dir}/go.mod"
    echo "$2 $3" > "${dir}/pin"
  fi
}
if want binaries; then
  t=${SECONDS}
  log "containerd ${CONTAINERD_VERSION} (CGO_ENABLED=0, no btrfs)"
  go_install CGO_ENABLED=0 -- -tags no_btrfs \
    -ldflags "-s -w -X ${CONTAINERD_MODULE}/version.Version=${CONTAINERD_VERSION} -X ${CONTAINERD_MODULE}/version.Package=${CONTAINERD_MODULE}" \
    "${CONTAINERD_MODULE}/cmd/containerd@${CONTAINERD_VERSION}" \
    "${CONTAINERD_MODULE}/cmd/containerd-shim-runc-v2@${CONTAINERD_VERSION}" \
    "${CONTAINERD_MODULE}/cmd/ctr@${CONTAINERD_VERSION}"
  # runc with seccomp (cgo, libseccomp from Debian; the node's root file
  # system has libseccomp2 of the same release).
  ensure_package libseccomp-dev /usr/include/seccomp.h
  ensure_package pkg-config /usr/bin/pkg-config
  log "runc ${RUNC_VERSION} (cgo, seccomp)"
  go_install CGO_ENABLED=1 -- -tags seccomp \
    -ldflags "-s -w -X main.version=${RUNC_VERSION#v}" \
    "${RUNC_MODULE}@${RUNC_VERSION}"
  # crictl: `go install .../cmd/crictl@version` cannot be used, as the
  # proxy answers 403 (not 404) for the module path sigs.k8s.io/cri-tools/cmd/crictl
  # that go probes first; so a module of our own requires cri-tools.
  log "crictl ${CRI_TOOLS_VERSION}"
  module_context cri-tools "${CRI_TOOLS_MODULE}" "${CRI_TOOLS_VERSION}"
  (cd "${OUT}/mod/cri-tools" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-buildvcs=false "${NICE[@]}" go build -mod=mod -trimpath \
    -ldflags "-s -w -X ${CRI_TOOLS_MODULE}/pkg/version.Version=${CRI_TOOLS_VERSION}" \
    -o "${BIN}/crictl" "${CRI_TOOLS_MODULE}/cmd/crictl")
  log "CNI plugins ${CNI_PLUGINS_VERSION}: ${CNI_PLUGINS[*]}"
  cni=()
  for p in "${CNI_PLUGINS[@]}"; do
    case "${p}" in
      host-local) cni+=("${CNI_PLUGINS_MODULE}/plugins/ipam/${p}@${CNI_PLUGINS_VERSION}") ;;
      portmap) cni+=("${CNI_PLUGINS_MODULE}/plugins/meta/${p}@${CNI_PLUGINS_VERSION}") ;;
      *) cni+=("${CNI_PLUGINS_MODULE}/plugins/main/${p}@${CNI_PLUGINS_VERSION}") ;;
    esac
  done
  mkdir -p "${BIN}/cni"
  GOBIN="${BIN}/cni" CGO_ENABLED=0 GOFLAGS=-buildvcs=false "${NICE[@]}" go install -trimpath \
    -ldflags "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=${CNI_PLUGINS_VERSION}" \
    "${cni[@]}"

  # CoreDNS: our main with only the plugins kubeadm's Corefile uses, in a
  # module of its own that requires CoreDNS at the pinned version.
  log "coredns ${COREDNS_VERSION} (plugins of kubeadm's Corefile)"
  mod="${OUT}/mod/coredns"
  module_context coredns "${COREDNS_MODULE}" "${COREDNS_VERSION}"
  cp hack/node-image/coredns/main.go "${mod}/main.go"
  (cd "${mod}" && GOWORK=off CGO_ENABLED=0 GOFLAGS=-buildvcs=false "${NICE[@]}" go build -mod=mod -trimpath -tags nodeimage \
    -ldflags "-s -w -X ${COREDNS_MODULE}/coremain.GitCommit=${COREDNS_VERSION}" -o "${BIN}/coredns" .)

  # kubeadm, kubectl and kube-proxy of the tree, stamped with the release
  # alone (kubeadm picks its default images and checks versions from it).
  featureflags::tree::ensure
  major=${release#v}; major=${major%%.*}
  minor=${release#v*.}; minor=${minor%%.*}
  upstream_ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    upstream_ldflags+=" -X ${pkg}.gitVersion=${release} -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
  done
  log "kubeadm, kubectl, kube-proxy ${release} (CGO_ENABLED=0)"
  (cd "${TREE}" && CGO_ENABLED=0 "${NICE[@]}" go build -ldflags "${upstream_ldflags}" -o "${BIN}/" \
    ./cmd/kubeadm ./cmd/kubectl ./cmd/kube-proxy)
  log "our kubelet, pause, ffnetd (CGO_ENABLED=0)"
  (cd "${TREE}" && CGO_ENABLED=0 "${NICE[@]}" go build -ldflags "-s -w $("${ROOT}/hack/lib/version.sh")" -o "${BIN}/" \
    ./cmd/kubelet ./test/e2e_features/node/images/pause ./test/e2e_features/node/images/ffnetd)
  took[binaries]=$((SECONDS - t))
fi

# ---------------------------------------------------------------------------
# images
IMAGES="${OUT}/images"
# drop_replaced <old image id> <ref>: removes the image <ref> named before
# a rebuild, if nothing names or uses it any more (a rebuilt node image
# would otherwise leave 800 MB behind each time).
drop_replaced() {
  local now
  now=$("${DOCKER}" image inspect --format '{{.Id}}' "$2" 2>/dev/null || true)
  if [[ -n "$1" && "$1" != "${now}" ]]; then
    "${DOCKER}" rmi "$1" >/dev/null 2>&1 || true
  fi
}
# scratch_image <ref> <binary> [entrypoint args...]: an image FROM scratch of
# one static binary (rebuilt only when the binary changed).
scratch_image() {
  local ref=$1 binary=$2
  shift 2
  local digest have context
  digest=$(sha256sum < "${BIN}/${binary}" | cut -d' ' -f1)
  have=$("${DOCKER}" image inspect --format '{{index .Config.Labels "io.featureflags.binary-sha256"}}' "${ref}" 2>/dev/null || true)
  if [[ "${have}" == "${digest}" ]]; then
    return
  fi
  context="${OUT}/context-${binary}"
  rm -rf "${context}"
  mkdir -p "${context}"
  ln -f "${BIN}/${binary}" "${context}/${binary}"
  local entrypoint="\"/${binary}\""
  for a in "$@"; do entrypoint+=", \"${a}\""; done
  cat > "${context}/Dockerfile" <<EOF
FROM scratch
COPY ${binary} /${binary}
LABEL io.featureflags.binary-sha256=${digest}
ENTRYPOINT [${entrypoint}]
EOF
  log "building ${ref}"
  local old
  old=$("${DOCKER}" image inspect --format '{{.Id}}' "${ref}" 2>/dev/null || true)
  DOCKER_BUILDKIT=0 "${DOCKER}" build -q --tag "${ref}" "${context}" >/dev/null
  drop_replaced "${old}" "${ref}"
  rm -rf "${context}"
}
# The images containerd gets, by the names kubeadm and our manifests use.
etcd_version() { third_party/etcd/etcd --version | sed -n 's/^etcd Version: //p'; }
node_images() {
  echo "registry.k8s.io/kube-apiserver:${release}"
  echo "registry.k8s.io/kube-controller-manager:${release}"
  echo "registry.k8s.io/kube-scheduler:${release}"
  echo "registry.k8s.io/etcd:$(etcd_version)-0"
  echo "registry.k8s.io/kube-proxy:${release}"
  echo "registry.k8s.io/pause:${PAUSE_TAG}"
  echo "registry.k8s.io/coredns/coredns:${COREDNS_VERSION}"
  echo "featureflags/ffnetd:${release}"
}
if want images; then
  t=${SECONDS}
  "${NICE[@]}" hack/build-images.sh
  scratch_image "registry.k8s.io/pause:${PAUSE_TAG}" pause
  scratch_image "registry.k8s.io/coredns/coredns:${COREDNS_VERSION}" coredns
  scratch_image "featureflags/ffnetd:${release}" ffnetd
  # kube-proxy runs iptables, nft and conntrack: its image is the node's
  # Debian base (shared with the node image's own layer) and the binary.
  kp_digest=$(sha256sum < "${BIN}/kube-proxy" | cut -d' ' -f1)
  kp_ref="registry.k8s.io/kube-proxy:${release}"
  have=$("${DOCKER}" image inspect --format '{{index .Config.Labels "io.featureflags.binary-sha256"}} {{index .Config.Labels "io.featureflags.base"}}' "${kp_ref}" 2>/dev/null || true)
  if [[ "${have}" != "${kp_digest} ${BASE_IMAGE}" ]]; then
    context="${OUT}/context-kube-proxy"
    rm -rf "${context}"
    mkdir -p "${context}"
    ln -f "${BIN}/kube-proxy" "${context}/kube-proxy"
    cat > "${context}/Dockerfile" <<EOF
FROM ${BASE_IMAGE}
COPY kube-proxy /usr/local/bin/kube-proxy
LABEL io.featureflags.binary-sha256=${kp_digest} io.featureflags.base=${BASE_IMAGE}
ENTRYPOINT ["/usr/local/bin/kube-proxy"]
EOF
    log "building ${kp_ref}"
    old=$("${DOCKER}" image inspect --format '{{.Id}}' "${kp_ref}" 2>/dev/null || true)
    DOCKER_BUILDKIT=0 "${DOCKER}" build -q --tag "${kp_ref}" "${context}" >/dev/null
    drop_replaced "${old}" "${kp_ref}"
    rm -rf "${context}"
  fi
  mkdir -p "${IMAGES}"
  # One tarball per image, rewritten only when the image changed.
  rm -f "${IMAGES}"/*.tar.new
  while read -r ref; do
    id=$("${DOCKER}" image inspect --format '{{.Id}}' "${ref}")
    name=$(echo "${ref}" | tr '/:' '__')
    if [[ "$(cat "${IMAGES}/${name}.id" 2>/dev/null)" != "${id}" ]]; then
      log "saving ${ref}"
      "${DOCKER}" save -o "${IMAGES}/${name}.tar.new" "${ref}"
      mv "${IMAGES}/${name}.tar.new" "${IMAGES}/${name}.tar"
      echo "${id}" > "${IMAGES}/${name}.id"
    fi
  done < <(node_images)
  took[images]=$((SECONDS - t))
fi

# ---------------------------------------------------------------------------
# assemble
if want assemble; then
  t=${SECONDS}
  if ! "${DOCKER}" image inspect "${BASE_IMAGE}" >/dev/null 2>&1; then
    echo "${BASE_IMAGE} is missing: run the rootfs stage" >&2
    exit 1
  fi
  context="${OUT}/context"
  rm -rf "${context}"
  mkdir -p "${context}/bin"
  cp -a hack/node-image/rootfs "${context}/rootfs"
  mkdir -p "${context}/rootfs/kind"
  echo "${release}" > "${context}/rootfs/kind/version"
  sed -i "s|@PAUSE_IMAGE@|registry.k8s.io/pause:${PAUSE_TAG}|" "${context}/rootfs/etc/containerd/config.toml"
  sed -i "s|@FFNETD_IMAGE@|featureflags/ffnetd:${release}|" "${context}/rootfs/kind/manifests/default-cni.yaml"
  for b in containerd containerd-shim-runc-v2 ctr runc crictl kubelet kubeadm kubectl; do
    ln -f "${BIN}/${b}" "${context}/bin/${b}"
  done
  cp -a "${BIN}/cni" "${context}/cni"
  refs=()
  image_ids=()
  while read -r ref; do
    name=$(echo "${ref}" | tr '/:' '__')
    refs+=("${ref}")
    image_ids+=("$(cat "${IMAGES}/${name}.id")")
  done < <(node_images)
  # Everything the image is made of, to skip an unchanged rebuild.
  inputs=$( (cd "${context}" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum;
    find . -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %a';
    "${DOCKER}" image inspect --format '{{.Id}}' "${BASE_IMAGE}"; printf '%s\n' "${refs[@]}" "${image_ids[@]}") |
    sha256sum | cut -d' ' -f1)
  have=$("${DOCKER}" image inspect --format '{{index .Config.Labels "io.featureflags.node-inputs"}}' "${NODE_IMAGE}" 2>/dev/null || true)
  if [[ "${have}" == "${inputs}" ]]; then
    log "${NODE_IMAGE} is up to date"
  else
    cat > "${context}/Dockerfile" <<EOF
FROM ${BASE_IMAGE}
COPY rootfs/ /
COPY bin/containerd bin/containerd-shim-runc-v2 bin/ctr bin/runc bin/crictl /usr/local/bin/
COPY bin/kubelet bin/kubeadm bin/kubectl /usr/bin/
COPY cni/ /opt/cni/bin/
RUN /kind/bin/setup-image.sh
ENV container=docker
STOPSIGNAL SIGRTMIN+3
EOF
    old_node=$("${DOCKER}" image inspect --format '{{.Id}}' "${NODE_IMAGE}" 2>/dev/null || true)
    log "building the node image's file system"
    DOCKER_BUILDKIT=0 "${DOCKER}" build -q --tag "${NODE_IMAGE}-unimported" "${context}" >/dev/null
    # Import the images into containerd's k8s.io namespace: containerd runs
    # in a container of the image (not under systemd), ctr imports, and the
    # container is committed with the entrypoint a node boots with.
    builder="featureflags-node-build-$$"
    "${DOCKER}" rm -f "${builder}" >/dev/null 2>&1 || true
    trap '"${DOCKER}" rm -f "${builder}" >/dev/null 2>&1 || true' EXIT
    # The tarballs are mounted, not copied, so that the image holds them
    # once (in containerd's content store), not twice.
    "${DOCKER}" run -d --name "${builder}" "${NODE_RUN_FLAGS[@]}" -v "${IMAGES}:/kind/images:ro" \
      --entrypoint /bin/sleep "${NODE_IMAGE}-unimported" infinity >/dev/null
    log "importing ${#refs[@]} images into containerd's k8s.io namespace"
    "${DOCKER}" exec "${builder}" /kind/bin/import-images.sh
    "${DOCKER}" commit \
      --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' \
      --change 'CMD []' \
      --change "LABEL io.featureflags.node-inputs=${inputs} io.featureflags.release=${release}" \
      "${builder}" "${NODE_IMAGE}" >/dev/null
    "${DOCKER}" rm -f "${builder}" >/dev/null
    "${DOCKER}" rmi "${NODE_IMAGE}-unimported" >/dev/null
    drop_replaced "${old_node}" "${NODE_IMAGE}"
  fi
  rm -rf "${context}"
  took[assemble]=$((SECONDS - t))
fi

for s in "${ALL_STAGES[@]}"; do
  if [[ -n "${took[${s}]:-}" ]]; then
    log "${s}: ${took[${s}]}s"
  fi
done
log "done in $((SECONDS - start))s (${stages[*]})"
