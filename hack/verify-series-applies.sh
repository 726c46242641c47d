#!/usr/bin/env bash
# Checks that the series (hack/tree.sh series) applies with git am, with 0
# conflicts, to kubernetes at patches/RELEASE rebuilt from the module zips by
# this script itself (not by hack/tools/tree, nor from _output/tree), and
# that the result is exactly the tree's tip.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

"${FEATUREFLAGS_ROOT}/hack/tree.sh" series >/dev/null
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
staging_version="v0.${RELEASE#v*.}"
dir="${work}/kubernetes"

# zip <module@version>: the path of the module's zip in the module cache.
zip_of() {
  (cd "${work}" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$1" 2>/dev/null || true) | sed -n 's/^\t"Zip": "\(.*\)",$/\1/p'
}
# unpack <zip> <prefix> <dir>: the zip's files under prefix into dir, files
# starting with #! executable. One awk reads the first line of every file
# (a shell and a head per file took a minute for kubernetes' zip alone).
unpack() {
  local tmp="${work}/unpack"
  rm -rf "${tmp}" && mkdir -p "${tmp}" "$3"
  unzip -q "$1" -d "${tmp}"
  (cd "${tmp}/$2" && find . -type f -exec chmod 644 {} + &&
    find . -type f -exec awk 'FNR == 1 { if (substr($0, 1, 2) == "#!") print FILENAME; nextfile }' {} + |
    tr '\n' '\0' | xargs -0 -r chmod 755)
  (cd "${tmp}/$2" && tar -cf - .) | (cd "$3" && tar -xf -)
}

unpack "$(zip_of "k8s.io/kubernetes@${RELEASE}")" "k8s.io/kubernetes@${RELEASE}" "${dir}"
for name in $(sed -n 's|^\s*\./staging/src/k8s\.io/\([a-z0-9-]*\)\s*$|\1|p' "${dir}/go.work"); do
  zip=$(zip_of "k8s.io/${name}@${staging_version}")
  if [[ -z "${zip}" ]]; then
    [[ "${name}" == sample-* ]] || { echo "k8s.io/${name}@${staging_version} is not on the module proxy" >&2; exit 1; }
    sed -i "\|^\s*\./staging/src/k8s\.io/${name}\s*$|d" "${dir}/go.work"
    continue
  fi
  unpack "${zip}" "k8s.io/${name}@${staging_version}" "${dir}/staging/src/k8s.io/${name}"
done
git -C "${dir}" init -q
git -C "${dir}" config core.autocrlf false
echo '* -text' > "${dir}/.git/info/attributes"
git -C "${dir}" add -A -f
git -C "${dir}" -c user.name=check -c user.email=check@localhost commit -q -m "${RELEASE}"
if ! git -C "${dir}" -c user.name=check -c user.email=check@localhost am -q "${FEATUREFLAGS_ROOT}"/_output/series/*.patch; then
  echo "The series does not apply to ${RELEASE} rebuilt from the module zips:" >&2
  git -C "${dir}" am --show-current-patch=diff | head -20 >&2 || true
  exit 1
fi
want=$(git -C "${TREE}" rev-parse 'HEAD^{tree}')
got=$(git -C "${dir}" rev-parse 'HEAD^{tree}')
base_want=$(git -C "${TREE}" rev-parse "${RELEASE}^{tree}")
base_got=$(git -C "${dir}" rev-parse 'HEAD~'"$(git -C "${TREE}" rev-list --count "${RELEASE}..HEAD")"'^{tree}')
if [[ "${base_want}" != "${base_got}" ]]; then
  echo "The release rebuilt from the zips differs from the tree's ${RELEASE} (${base_got} vs ${base_want})" >&2
  exit 1
fi
if [[ "${want}" != "${got}" ]]; then
  echo "git am of the series gives tree ${got}, the tree's tip is ${want}" >&2
  exit 1
fi
featureflags::log "the series ($(ls "${FEATUREFLAGS_ROOT}"/_output/series/*.patch | wc -l) patches) applies to ${RELEASE} from the module zips with git am: 0 conflicts, the same tree"
