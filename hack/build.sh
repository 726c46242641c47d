#!/usr/bin/env bash
# Builds our binaries in the tree (hack/tree.sh) into _output/bin, in one go
# build: kube-apiserver, kube-controller-manager, kube-scheduler, kubelet
# and kubectl of the patched tree, and the kubectl features plugin; on
# request, the sample third party's operator (sample-feature-controller).
#
# Usage: hack/build.sh [cmd...]   (default: all; names under the tree's cmd/,
#        or sample-feature-controller)
# Environment: BIN (default _output/bin), CGO_ENABLED, GO_LDFLAGS_EXTRA.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

commands=("$@")
if [[ ${#commands[@]} -eq 0 ]]; then
  commands=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl kubectl-features)
fi
packages=()
for command in "${commands[@]}"; do
  case "${command}" in
    sample-feature-controller) packages+=("./staging/src/k8s.io/${command}") ;;
    *) packages+=("./cmd/${command}") ;;
  esac
done
featureflags::tree::ensure
mkdir -p "${BIN}"
(cd "${TREE}" && go build -ldflags "${GO_LDFLAGS_EXTRA:-} $("${FEATUREFLAGS_ROOT}/hack/lib/version.sh")" \
  -o "${BIN}/" "${packages[@]}")
