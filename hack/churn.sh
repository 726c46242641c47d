#!/usr/bin/env bash
# Prints the churn of the series in upstream's own files: for every commit,
# the hand-written lines it adds and removes in files kubernetes already has
# at patches/RELEASE, and the total. Left out: files of ours (new files),
# generated files (a "Code generated ... DO NOT EDIT." header, generated.proto,
# the generated reference lists of test/compatibility_lifecycle, testdata
# fixtures that a test regenerates, api/openapi-spec and api/discovery).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

featureflags::tree::ensure
cd "${TREE}"

generated() {
  local commit=$1 path=$2
  case "${path}" in
    */generated.proto|api/openapi-spec/*|api/discovery/*|test/compatibility_lifecycle/reference/*|*/testdata/*) return 0 ;;
  esac
  local head
  head=$(git show "${commit}:${path}" 2>/dev/null | head -40 || true)
  grep -q '^// Code generated .* DO NOT EDIT\.$' <<<"${head}"
}

total_add=0 total_del=0 files=()
n=0
printf '%4s %6s %6s  %s\n' "#" "+" "-" "commit (hand-written lines in upstream files)"
for c in $(git rev-list --reverse "${RELEASE}..HEAD"); do
  n=$((n + 1))
  add=0 del=0
  while IFS=$'\t' read -r a d path; do
    [[ "${a}" == "-" ]] && continue
    git cat-file -e "${RELEASE}:${path}" 2>/dev/null || continue
    generated "${c}" "${path}" && continue
    add=$((add + a)) del=$((del + d))
    files+=("${path}")
  done < <(git diff --numstat "${c}^" "${c}")
  total_add=$((total_add + add)) total_del=$((total_del + del))
  printf '%4d %6d %6d  %s\n' "${n}" "${add}" "${del}" "$(git log -1 --format=%s "${c}")"
done
printf '%4s %6d %6d  total, in %d upstream files\n' "" "${total_add}" "${total_del}" "$(printf '%s\n' "${files[@]}" | sort -u | wc -l)"
