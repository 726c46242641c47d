#!/usr/bin/env bash
# Sourced by the hack/ scripts: where things are, and the tree.
#
#   FEATUREFLAGS_ROOT  this repository
#   TREE               the kubernetes tree the series is applied to
#                      (_output/tree, made by hack/tree.sh make)
#   RELEASE            the kubernetes release the series applies to
#                      (patches/RELEASE)
#   BIN                our binaries (_output/bin)
#   ETCD_DIR           the etcd built from its Go module (third_party/etcd)

FEATUREFLAGS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TREE=${TREE:-${FEATUREFLAGS_ROOT}/_output/tree}
RELEASE=$(<"${FEATUREFLAGS_ROOT}/patches/RELEASE")
BIN=${BIN:-${FEATUREFLAGS_ROOT}/_output/bin}
ETCD_DIR=${FEATUREFLAGS_ROOT}/third_party/etcd
# The tree is a git repository; stamping every binary with its commit would
# relink them all at every commit. -trimpath, as upstream builds
# (hack/lib/golang.sh): without it Go keys each compiled package by its
# directory too, so make verify's copy of the tree (_output/verify-tree)
# would compile everything a second time instead of sharing the build cache
# with _output/tree.
export GOFLAGS="${GOFLAGS:+${GOFLAGS} }-buildvcs=false -trimpath"
# One build configuration for binaries, tests and images: static, as
# upstream builds its binaries (hack/lib/golang.sh). Go keys its build cache
# by it, so a second configuration would compile the whole tree again.
export CGO_ENABLED=${CGO_ENABLED:-0}

# featureflags::tree::tool runs hack/tools/tree (built once into
# _output/tools) with the repository and the tree.
featureflags::tree::tool() {
  local tool="${FEATUREFLAGS_ROOT}/_output/tools/tree"
  (cd "${FEATUREFLAGS_ROOT}/hack/tools/tree" && GOWORK=off GOFLAGS=-buildvcs=false go build -o "${tool}" .)
  "${tool}" -repo "${FEATUREFLAGS_ROOT}" -tree "${TREE}" "$@"
}

# featureflags::tree::ensure makes the tree hold the release plus the series
# as the repository has it (nothing is touched when it already does). That
# check rebuilds the series' commits in a scratch index, about half a minute
# on 2 cores: a caller that has just ensured the tree and changes neither
# the repository nor the tree may set FEATUREFLAGS_TREE_CURRENT to the tree's
# path for the commands it runs next, which then skip it.
featureflags::tree::ensure() {
  if [[ -n "${FEATUREFLAGS_TREE_CURRENT:-}" && "${FEATUREFLAGS_TREE_CURRENT}" == "${TREE}" ]]; then
    return 0
  fi
  featureflags::tree::tool make
}

# featureflags::etcd::path puts etcd first on PATH (upstream's integration
# framework looks etcd up on PATH).
featureflags::etcd::path() {
  export PATH="${ETCD_DIR}:${PATH}"
}

# featureflags::test_srcdir lets upstream's test servers find their testdata
# in tests built with -trimpath: cmd/kube-apiserver/app/testing finds its
# testdata directory from its own source path, which -trimpath makes
# "k8s.io/kubernetes/cmd/...", and then looks for it under
# $TEST_SRCDIR/$TEST_WORKSPACE, as under bazel. <tree>.srcdir/k8s.io/kubernetes
# links to the tree.
featureflags::test_srcdir() {
  local dir="${TREE}.srcdir"
  mkdir -p "${dir}/k8s.io"
  ln -sfn "${TREE}" "${dir}/k8s.io/kubernetes"
  export TEST_SRCDIR="${dir}" TEST_WORKSPACE=.
}

# featureflags::log prints a status line with the time (UTC), so that a
# log of a long run (make verify, .ci/run) shows where its time went.
featureflags::log() {
  echo "+++ [$(date -u +%H:%M:%S)] $*" >&2
}

# featureflags::tree::link_etcd makes our etcd the one upstream's scripts in
# the tree (hack/lib/etcd.sh) find installed in third_party, so that they
# download nothing.
featureflags::tree::link_etcd() {
  local version
  version=$("${ETCD_DIR}/etcd" --version | sed -n 's/^etcd Version: //p')
  local dir="${TREE}/third_party/etcd-v${version}-linux-amd64"
  mkdir -p "${dir}"
  ln -f "${ETCD_DIR}/etcd" "${dir}/etcd"
  ln -sfn "etcd-v${version}-linux-amd64" "${TREE}/third_party/etcd"
}
