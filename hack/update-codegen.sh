#!/usr/bin/env bash
# Regenerates, in the tree (hack/tree.sh), the code generated from our API
# types, with upstream's own generators and upstream's own invocations:
# upstream's hack/update-codegen.sh runs its deepcopy, prerelease, defaults,
# conversions, swagger, openapi, applyconfigs, clients, listers and
# informers generators over the whole tree (two lines of it need a network:
# they are skipped, goimports is installed from the tree instead), and
# go-to-protobuf runs for k8s.io/api/features/v1alpha1 with Debian's protoc
# (upstream's script wants protoc 23.4 from GitHub).
#
# The changes stay in the tree, uncommitted: commit each into the commit of
# the series that generated it (git commit --fixup, then git rebase
# --autosquash) and take them back with hack/tree.sh export.
#
# Usage: hack/update-codegen.sh [--check]   --check: fail when anything
# changes, and leave the tree as it was (hack/verify-codegen.sh).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/tools.sh"

check=false
[[ "${1:-}" == "--check" ]] && check=true

featureflags::tree::ensure
cd "${TREE}"
# go commands add lines to go.work.sum: that is not a change of the tree.
if [[ -n "$(git status --porcelain -- . ':!go.work.sum')" ]]; then
  echo "${TREE} has uncommitted changes; commit or export them first" >&2
  exit 1
fi
featureflags::tools::ensure_protoc
featureflags::tools::ensure_jq
export GOBIN="${FEATUREFLAGS_ROOT}/_output/tools"
export PATH="${GOBIN}:${PATH}"
mkdir -p "${GOBIN}" "${TREE}/_output"
go install golang.org/x/tools/cmd/goimports k8s.io/code-generator/cmd/go-to-protobuf k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo

featureflags::log "upstream's hack/update-codegen.sh"
script="${TREE}/_output/update-codegen.sh"
sed -e 's|^go -C "${KUBE_ROOT}/hack/tools" install golang.org/x/tools/cmd/goimports$|: goimports from the tree|' \
    -e 's|^kube::protoc::install$|: protoc from Debian|' hack/update-codegen.sh > "${script}"
# The upstream script's own GOPATH would hide the module cache.
FORCE_HOST_GO=1 GOMODCACHE="$(go env GOMODCACHE)" KUBE_VERBOSE=0 bash "${script}" \
  deepcopy prerelease defaults conversions swagger openapi applyconfigs clients listers informers

featureflags::log "go-to-protobuf k8s.io/api/features/v1alpha1"
protoroot=$(mktemp -d)
trap 'rm -rf "${protoroot}"' EXIT
mkdir -p "${protoroot}/github.com/gogo"
ln -s "$(go list -m -f '{{.Dir}}' github.com/gogo/protobuf)" "${protoroot}/github.com/gogo/protobuf"
go-to-protobuf --go-header-file "${TREE}/hack/boilerplate/boilerplate.generatego.txt" \
  --output-dir="${TREE}/staging/src" --proto-import="${TREE}/staging/src" \
  --proto-import="${protoroot}" --proto-import="${TREE}/third_party/protobuf" \
  --apimachinery-packages="-k8s.io/apimachinery/pkg/util/intstr,-k8s.io/apimachinery/pkg/api/resource,-k8s.io/apimachinery/pkg/runtime/schema,-k8s.io/apimachinery/pkg/runtime,-k8s.io/apimachinery/pkg/apis/meta/v1" \
  --packages=k8s.io/api/features/v1alpha1 2> >(grep -v '^[0-9/]* [0-9:]* goimports' >&2)

changes=$(git status --porcelain -- . ':!go.work.sum')
if [[ -z "${changes}" ]]; then
  featureflags::log "generated code is up to date"
  exit 0
fi
if ${check}; then
  echo "Generated code is stale: run hack/update-codegen.sh. Changes:" >&2
  echo "${changes}" >&2
  git diff --stat >&2
  git checkout -q -- . && git clean -q -fd
  exit 1
fi
echo "${changes}"
echo "Generated code changed in ${TREE#"${FEATUREFLAGS_ROOT}"/}: commit each change into the commit that generated it (git commit --fixup=<commit>; git rebase -i --autosquash ${RELEASE}), then hack/tree.sh export." >&2
