#!/usr/bin/env bash
# Builds the control-plane images of this tree, with no image pulled (there is
# no registry to pull from): every image is FROM scratch, a statically linked
# binary over a small distroless-style root file system assembled here (users
# and groups, CA certificates and time zones from this machine's Debian files,
# /tmp).
#
#   featureflags/kube-apiserver:e2e           and registry.k8s.io/kube-apiserver:<release>
#   featureflags/kube-controller-manager:e2e  and registry.k8s.io/kube-controller-manager:<release>
#   featureflags/kube-scheduler:e2e           and registry.k8s.io/kube-scheduler:<release>
#   featureflags/etcd:e2e                     and registry.k8s.io/etcd:<etcd version>-0
#
# and, when asked by name, the sample third party's operator
# (staging/src/k8s.io/sample-feature-controller):
#
#   featureflags/sample-feature-controller:e2e  and sample-feature-controller:dev
#
# <release> is patches/RELEASE (the tags kubeadm of that release expects);
# the etcd version is the one hack/install-etcd.sh builds (upstream's
# build/dependencies.yaml).
#
# Our binaries are built in the tree (hack/build.sh) with CGO_ENABLED=0 into
# _output/images/bin (upstream
# builds its control-plane binaries static too), etcd by hack/install-etcd.sh
# (already static). A rebuild is incremental: go build relinks only what
# changed, and an image whose binary and root file system did not change is
# not rebuilt (its labels record their digests).
#
# Usage: hack/build-images.sh [image...]   (default: the four above)
# Environment: IMAGE_REPO (default featureflags), IMAGE_TAG (default e2e),
#              DOCKER (default docker).
set -o errexit -o nounset -o pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
ROOT=${FEATUREFLAGS_ROOT}
cd "${ROOT}"

DOCKER=${DOCKER:-docker}
IMAGE_REPO=${IMAGE_REPO:-featureflags}
IMAGE_TAG=${IMAGE_TAG:-e2e}
OUT="${ROOT}/_output/images"
BIN="${OUT}/bin"
ALL=(kube-apiserver kube-controller-manager kube-scheduler etcd)
KNOWN=("${ALL[@]}" sample-feature-controller)
images=("$@")
if [[ ${#images[@]} -eq 0 ]]; then
  images=("${ALL[@]}")
fi
for image in "${images[@]}"; do
  if [[ " ${KNOWN[*]} " != *" ${image} "* ]]; then
    echo "unknown image ${image}; known: ${KNOWN[*]}" >&2
    exit 2
  fi
done

if ! "${DOCKER}" info >/dev/null 2>&1; then
  echo "${DOCKER} cannot reach a Docker engine; the images need one" >&2
  exit 1
fi

release=${RELEASE}
start=${SECONDS}

# Binaries.
commands=()
for image in "${images[@]}"; do
  [[ "${image}" == etcd ]] || commands+=("${image}")
done
mkdir -p "${BIN}"
if [[ ${#commands[@]} -gt 0 ]]; then
  echo "+++ building ${commands[*]} (CGO_ENABLED=0) into ${BIN#"${ROOT}"/}" >&2
  CGO_ENABLED=0 BIN="${BIN}" hack/build.sh "${commands[@]}"
fi
if [[ " ${images[*]} " == *" etcd "* ]]; then
  hack/install-etcd.sh
  etcd_version=$("${ETCD_DIR}/etcd" --version | sed -n 's/^etcd Version: //p')
  # Hard links keep one copy of the binary and its content digest.
  ln -f "${ETCD_DIR}/etcd" "${BIN}/etcd"
fi
for image in "${images[@]}"; do
  # Captured first: grep -q under pipefail fails when it exits early.
  info=$(go version -m "${BIN}/${image}")
  if [[ "${info}" != *"CGO_ENABLED=0"* ]]; then
    echo "${BIN}/${image} is not a static (CGO_ENABLED=0) build" >&2
    exit 1
  fi
done

# The root file system shared by every image: only what a static Go binary
# reads from the system.
rootfs="${OUT}/rootfs"
rm -rf "${rootfs}.new"
mkdir -p "${rootfs}.new"/{etc/ssl/certs,tmp,root,var/run,var/lib,usr/local/bin,usr/share}
chmod 1777 "${rootfs}.new/tmp"
cat > "${rootfs}.new/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
EOF
cat > "${rootfs}.new/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
echo 'hosts: files dns' > "${rootfs}.new/etc/nsswitch.conf"
# CA certificates (Debian's ca-certificates) and time zones (tzdata), as the
# distroless base images carry them; both are optional for our binaries.
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
  cp /etc/ssl/certs/ca-certificates.crt "${rootfs}.new/etc/ssl/certs/"
fi
if [[ -d /usr/share/zoneinfo ]]; then
  cp -a /usr/share/zoneinfo "${rootfs}.new/usr/share/"
fi
# A stable digest of the tree (names, modes, contents), to rebuild an image
# only when it changed; mtimes are left out.
tree_digest() {
  (cd "$1" && find . -print0 | LC_ALL=C sort -z |
    while IFS= read -r -d '' f; do
      printf '%s %s\n' "${f}" "$(stat -c %a "${f}")"
      [[ -f "${f}" && ! -L "${f}" ]] && sha256sum < "${f}"
      [[ -L "${f}" ]] && readlink "${f}"
      true
    done) | sha256sum | cut -d' ' -f1
}
rootfs_digest=$(tree_digest "${rootfs}.new")
rm -rf "${rootfs}"
mv "${rootfs}.new" "${rootfs}"

for image in "${images[@]}"; do
  ref="${IMAGE_REPO}/${image}:${IMAGE_TAG}"
  if [[ "${image}" == etcd ]]; then
    upstream_ref="registry.k8s.io/etcd:${etcd_version}-0"
  elif [[ "${image}" == sample-feature-controller ]]; then
    upstream_ref="${image}:dev"  # its Deployment's image
  else
    upstream_ref="registry.k8s.io/${image}:${release}"
  fi
  binary_digest=$(sha256sum < "${BIN}/${image}" | cut -d' ' -f1)
  have=$("${DOCKER}" image inspect --format '{{index .Config.Labels "io.featureflags.binary-sha256"}} {{index .Config.Labels "io.featureflags.rootfs-sha256"}}' "${ref}" 2>/dev/null || true)
  if [[ "${have}" == "${binary_digest} ${rootfs_digest}" ]]; then
    echo "+++ ${ref} is up to date" >&2
  else
    context="${OUT}/context/${image}"
    rm -rf "${context}"
    mkdir -p "${context}"
    cp -a "${rootfs}" "${context}/rootfs"
    ln -f "${BIN}/${image}" "${context}/${image}"
    cat > "${context}/Dockerfile" <<EOF
FROM scratch
COPY rootfs/ /
COPY ${image} /usr/local/bin/${image}
ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL io.featureflags.binary-sha256=${binary_digest} io.featureflags.rootfs-sha256=${rootfs_digest} io.featureflags.release=${release}
ENTRYPOINT ["/usr/local/bin/${image}"]
EOF
    echo "+++ building ${ref}" >&2
    # The legacy builder is what the engines here have (no buildx); it
    # needs nothing pulled for FROM scratch.
    if ! out=$(DOCKER_BUILDKIT=0 "${DOCKER}" build --tag "${ref}" "${context}" 2>&1); then
      echo "${out}" >&2
      exit 1
    fi
    rm -rf "${context}"
  fi
  "${DOCKER}" tag "${ref}" "${upstream_ref}"
  echo "    ${ref} = ${upstream_ref}" >&2
done
echo "+++ images ready in $((SECONDS - start))s" >&2
