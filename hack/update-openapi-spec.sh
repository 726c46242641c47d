#!/usr/bin/env bash
# Regenerates, in the tree, api/openapi-spec (OpenAPI v2 and v3) and
# api/discovery with upstream's own hack/update-openapi-spec.sh: it starts
# kube-apiserver with every alpha and beta gate on and every API group
# served, FeatureLifecycle and features.k8s.io/v1alpha1 included, and writes
# what it serves. Two things of that script need a network or upstream's
# build system and are supplied here: our kube-apiserver (hack/build.sh) on
# PATH instead of `make WHAT=cmd/kube-apiserver`, and our etcd
# (hack/install-etcd.sh) where upstream's script installs its own. The
# documents are written whole: a --feature-lifecycle-config-file with
# openAPIByState: false keeps the server flow from serving them by the
# Features' states (fields of Features not yet Enabled hidden, the others marked
# with their state).
#
# The changes stay in the tree, uncommitted (see hack/update-codegen.sh for
# what to do with them). Usage: hack/update-openapi-spec.sh [--check]
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/tools.sh"

check=false
[[ "${1:-}" == "--check" ]] && check=true

featureflags::tree::ensure
"${FEATUREFLAGS_ROOT}/hack/install-etcd.sh"
"${FEATUREFLAGS_ROOT}/hack/build.sh" kube-apiserver
featureflags::tools::ensure_jq
cd "${TREE}"
if [[ -n "$(git status --porcelain)" ]]; then
  echo "${TREE} has uncommitted changes; commit or export them first" >&2
  exit 1
fi
featureflags::tree::link_etcd
script="${TREE}/_output/update-openapi-spec.sh"
config="${TREE}/_output/feature-lifecycle-openapi.yaml"
mkdir -p "${TREE}/_output"
cat >"${config}" <<EOF_CONFIG
apiVersion: featurelifecycle.config.k8s.io/v1alpha1
kind: FeatureLifecycleConfiguration
openAPIByState: false
EOF_CONFIG
sed -e 's|^make -C "${KUBE_ROOT}" WHAT=cmd/kube-apiserver$|: kube-apiserver from PATH|' \
  -e 's|^\(  --runtime-config="api/all=true" \\\)$|\1\n  --feature-lifecycle-config-file='"${config}"' \\|' \
  hack/update-openapi-spec.sh > "${script}"
grep -q -- "--feature-lifecycle-config-file=${config}" "${script}" || { echo "upstream's hack/update-openapi-spec.sh changed: no --runtime-config line to add --feature-lifecycle-config-file to" >&2; exit 1; }
PATH="${BIN}:${PATH}" FORCE_HOST_GO=1 GOMODCACHE="$(go env GOMODCACHE)" KUBE_ROOT="${TREE}" bash "${script}" >/dev/null

changes=$(git status --porcelain)
if [[ -z "${changes}" ]]; then
  featureflags::log "api/openapi-spec and api/discovery are up to date"
  exit 0
fi
if ${check}; then
  echo "api/openapi-spec or api/discovery is stale: run hack/update-openapi-spec.sh. Changes:" >&2
  git diff --stat >&2
  git checkout -q -- . && git clean -q -fd -- api
  exit 1
fi
echo "${changes}"
echo "The spec changed in ${TREE#"${FEATUREFLAGS_ROOT}"/}: commit the change into the commit that generated it (git commit --fixup=<commit>; git rebase -i --autosquash ${RELEASE}), then hack/tree.sh export." >&2
