#!/usr/bin/env bash
# Regenerates the lifecycle data of pkg/features, in order, each generator
# built and run in the tree (hack/tree.sh) and reading what the previous one
# wrote:
#
#   cmd/feature-inventory-gen    pkg/features/inventory/zz_generated.inventory.yaml:
#                                what each gate makes upstream's strategies drop
#                                or validation refuse
#   cmd/lifecycle-fixtures-gen   pkg/features/lifecycle/testdata/<gate>/zz_generated.fixture.yaml
#                                and pkg/features/inventory/zz_generated.refused-rewrites.yaml
#   cmd/version-changes-gen      pkg/features/inventory/zz_generated.version-changes.yaml
#
# The files are written into the repository (and the tree made again).
# Usage: hack/update-lifecycle-data.sh [--check]   --check: write nothing and
# fail when a file is stale (make verify).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

check=false
[[ "${1:-}" == "--check" ]] && check=true
inventory=pkg/features/inventory
fixtures=pkg/features/lifecycle/testdata
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
stale=()

# generate <name> <repo path> <command...>: runs the command in the tree
# with its output in ${work}/<repo path>, then compares or copies it.
generate() {
  local name=$1 path=$2
  shift 2
  featureflags::log "${name}"
  mkdir -p "$(dirname "${work}/${path}")"
  (cd "${TREE}" && "$@" 2> >(grep -v '^W[0-9]\{4\} ' >&2))
}
# settle <repo path>: in check mode, compares the fresh file or directory
# with the repository's; else copies it into the repository.
settle() {
  local path=$1
  if ${check}; then
    if ! diff -ruN "${FEATUREFLAGS_ROOT}/${path}" "${work}/${path}" >&2; then
      stale+=("${path}")
    fi
  else
    rm -rf "${FEATUREFLAGS_ROOT:?}/${path}"
    cp -a "${work}/${path}" "${FEATUREFLAGS_ROOT}/${path}"
  fi
}

featureflags::tree::ensure
generate "gate inventory" "${inventory}/zz_generated.inventory.yaml" \
  go run ./cmd/feature-inventory-gen -upstream-version "${RELEASE}" -out "${work}/${inventory}/zz_generated.inventory.yaml"
settle "${inventory}/zz_generated.inventory.yaml"
${check} || featureflags::tree::ensure

mkdir -p "${work}/${fixtures}"
cp -a "${FEATUREFLAGS_ROOT}/${fixtures}/." "${work}/${fixtures}/"
generate "lifecycle fixtures" "${fixtures}" \
  go run ./cmd/lifecycle-fixtures-gen -dir "${work}/${fixtures}" -refused-rewrites "${work}/${inventory}/zz_generated.refused-rewrites.yaml"
settle "${inventory}/zz_generated.refused-rewrites.yaml"
settle "${fixtures}"
${check} || featureflags::tree::ensure

generate "version changes" "${inventory}/zz_generated.version-changes.yaml" \
  go run ./cmd/version-changes-gen -out "${work}/${inventory}/zz_generated.version-changes.yaml"
settle "${inventory}/zz_generated.version-changes.yaml"
${check} || featureflags::tree::ensure

if [[ ${#stale[@]} -gt 0 ]]; then
  echo "Stale: ${stale[*]}; run hack/update-lifecycle-data.sh (make update)." >&2
  exit 1
fi
featureflags::log "lifecycle data is up to date"
