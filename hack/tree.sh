#!/usr/bin/env bash
# The kubernetes tree of this repository and its series (patches/README.md):
#
#   hack/tree.sh [make]    _output/tree: kubernetes at patches/RELEASE from the
#                          Go module proxy, one commit tagged with the release,
#                          then the series; touches nothing when up to date
#   hack/tree.sh export    the tree's commits back into the repository (our
#                          files, patches/)
#   hack/tree.sh check     every file of ours belongs to one commit
#   hack/tree.sh series    _output/series/NNNN-*.patch: git format-patch of
#                          the series, for git am on the release
#
# FORCE=1 lets make replace uncommitted changes in the tree.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

case "${1:-make}" in
  make)
    featureflags::tree::tool ${FORCE:+-force} make ;;
  export|check)
    featureflags::tree::tool "$1" ;;
  series)
    featureflags::tree::ensure
    out="${FEATUREFLAGS_ROOT}/_output/series"
    rm -rf "${out}"
    git -C "${TREE}" format-patch --quiet --zero-commit --no-signature --diff-algorithm=histogram -o "${out}" "${RELEASE}..HEAD"
    featureflags::log "$(find "${out}" -name '*.patch' | wc -l) patches in ${out#"${FEATUREFLAGS_ROOT}"/}" ;;
  *)
    sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2 ;;
esac
