#!/usr/bin/env bash
# Moves the series to another kubernetes release:
#
#   hack/rebase.sh v1.37.3        (or: make rebase VERSION=v1.37.3)
#   hack/rebase.sh --check        the rebase onto patches/RELEASE itself must
#                                 change nothing (make verify)
#
# It materializes the release from the Go module proxy (hack/tools/tree
# base), applies the series with git am -3, and on success writes the result
# back into the repository (patches/, our files, patches/RELEASE), exactly as
# hack/tree.sh export writes it, so the result is the same on any day. On a
# conflict it names every conflicting file and the commit it is in, and
# touches nothing; so does any other failure.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

check=false
target=${1:-}
if [[ "${target}" == "--check" ]]; then
  check=true
  target=${RELEASE}
fi
if [[ ! "${target}" =~ ^v1\.[0-9]+\.[0-9]+$ ]]; then
  echo "usage: hack/rebase.sh v1.<minor>.<patch> | --check" >&2
  exit 2
fi
if ! ${check} && [[ -n "$(git -C "${FEATUREFLAGS_ROOT}" status --porcelain -- patches api cmd pkg plugin staging test)" ]]; then
  echo "the repository has uncommitted changes to the series; commit them first" >&2
  exit 1
fi

featureflags::tree::ensure
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
"${FEATUREFLAGS_ROOT}/hack/tree.sh" series >/dev/null
series=("${FEATUREFLAGS_ROOT}"/_output/series/*.patch)

featureflags::log "materializing kubernetes ${target}"
# hack/tools/tree base materializes the release patches/RELEASE names.
mkdir -p "${work}/release/patches"
echo "${target}" > "${work}/release/patches/RELEASE"
"${FEATUREFLAGS_ROOT}/_output/tools/tree" -repo "${work}/release" base "${work}/tree"
new="${work}/tree"
# The objects of the old release and of the series, for git am -3.
git -C "${new}" fetch -q "${TREE}" "refs/heads/kep-3920:refs/old/series" "refs/tags/${RELEASE}:refs/old/base"

featureflags::log "applying ${#series[@]} patches with git am -3"
if ! git -C "${new}" -c user.name="featureflags tree" -c user.email=tree@featureflags.invalid am -q -3 "${series[@]}" >"${work}/am.log" 2>&1; then
  patch=$(git -C "${new}" am --show-current-patch=raw 2>/dev/null | sed -n 's/^Subject: //p' | head -1)
  echo "The series does not apply to ${target}: commit \"${patch}\" conflicts in:" >&2
  git -C "${new}" diff --name-only --diff-filter=U | sed 's/^/  /' >&2
  grep -E '^(error|CONFLICT|Patch failed)' "${work}/am.log" | sed 's/^/  /' >&2 || true
  git -C "${new}" am --abort >/dev/null 2>&1 || true
  echo "Nothing was changed." >&2
  exit 1
fi

# Export into a copy of the repository's series, then compare or move.
out="${work}/repo"
rm -rf "${out}"
mkdir -p "${out}"
(cd "${FEATUREFLAGS_ROOT}" && git ls-files -co --exclude-standard -z -- patches api cmd pkg plugin staging test |
  xargs -0 -I{} cp --parents -a {} "${out}/" 2>/dev/null) || true
echo "${target}" > "${out}/patches/RELEASE"
git -C "${out}" init -q && git -C "${out}" add -A
"${FEATUREFLAGS_ROOT}/_output/tools/tree" -repo "${out}" -tree "${new}" export 2>/dev/null
if ${check}; then
  # The files the repository and the rebased copy hold, and their content.
  listing() { (cd "$1" && git ls-files -co --exclude-standard -- patches api cmd pkg plugin staging test | sort | xargs sha256sum); }
  if ! diff <(listing "${FEATUREFLAGS_ROOT}") <(listing "${out}") >"${work}/diff"; then
    echo "hack/rebase.sh ${target} is not a no-op at ${RELEASE}:" >&2
    cat "${work}/diff" >&2
    exit 1
  fi
  featureflags::log "the rebase onto ${RELEASE} is a no-op"
  exit 0
fi
for d in patches api cmd pkg plugin staging test; do
  rm -rf "${FEATUREFLAGS_ROOT:?}/${d}"
  [[ -e "${out}/${d}" ]] && cp -a "${out}/${d}" "${FEATUREFLAGS_ROOT}/${d}"
done
rm -rf "${TREE}"
featureflags::tree::ensure
cat >&2 <<MSG

Rebased the series onto ${target}. Next:
  make build                      fix what upstream changed under our hooks
  make update                     regenerate the generated commits
  make verify && make test        then record what changed in the KEP (docs/keps/3920-finish-feature-flags)
MSG
