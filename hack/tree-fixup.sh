#!/usr/bin/env bash
# Folds the tree's uncommitted changes into a commit of the series and takes
# the result back into the repository:
#
#   hack/tree-fixup.sh <commit>   a commit of the series: its number (as in
#                                 patches/NNNN-*), or a pattern of its subject
#
# It is git commit --fixup, git rebase --autosquash and hack/tree.sh export
# in one step (patches/README.md).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [[ $# -ne 1 ]]; then
  echo "usage: hack/tree-fixup.sh <commit number | subject pattern>" >&2
  exit 2
fi
cd "${TREE}"
mapfile -t commits < <(git rev-list --reverse "${RELEASE}..HEAD")
if [[ "$1" =~ ^[0-9]+$ ]]; then
  target=${commits[$(( 10#$1 - 1 ))]:-}
else
  target=$(git log --format=%H --grep="$1" "${RELEASE}..HEAD" | tail -1)
fi
if [[ -z "${target}" ]]; then
  echo "no commit of the series matches $1" >&2
  exit 1
fi
if [[ -z "$(git status --porcelain)" ]]; then
  echo "nothing to fold into $(git log -1 --format=%s "${target}")" >&2
  exit 1
fi
git add -A
git -c user.name="featureflags tree" -c user.email=tree@featureflags.invalid commit -q --fixup="${target}"
GIT_SEQUENCE_EDITOR=: git -c user.name="featureflags tree" -c user.email=tree@featureflags.invalid rebase -q -i --autosquash "${RELEASE}"
featureflags::log "folded into: $(git log -1 --format=%s "${target}")"
"${FEATUREFLAGS_ROOT}/hack/tree.sh" export
