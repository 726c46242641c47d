#!/usr/bin/env bash
# Prints the churn of the series in upstream's code: for every commit, the
# hand-written lines it adds and removes in files kubernetes already has at
# patches/RELEASE ("upstream files"), and the hand-written lines of the new
# files it adds inside upstream's packages ("new in upstream packages": a
# directory that holds Go files at the release, such as
# staging/src/k8s.io/apiserver/pkg/endpoints), tests apart; then the totals.
# Our own packages (directories the release does not have) are not churn.
# Left out everywhere: generated files (a "Code generated ... DO NOT EDIT."
# header, generated.proto, the generated reference lists of
# test/compatibility_lifecycle, testdata fixtures that a test regenerates,
# api/openapi-spec and api/discovery).
#
# Usage: hack/churn.sh [--total]   --total: print only the total, "N" (the
# hand-written non-test lines added and removed in upstream's code), for
# documents and checks that cite it.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

featureflags::tree::ensure >&2
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

# Upstream's files at the release, and the directories of its Go files
# (upstream's packages): read once, so that of the hundreds of files the
# series changes only those in upstream's code cost a git process.
declare -A upstream_file=() upstream_pkg=()
while read -r path; do
  upstream_file["${path}"]=1
  if [[ "${path}" == *.go ]]; then
    upstream_pkg["${path%/*}"]=1
  fi
done < <(git ls-tree -r --name-only "${RELEASE}")

total_add=0 total_del=0 total_new=0 total_new_tests=0 files=()
n=0
rows=()
for c in $(git rev-list --reverse "${RELEASE}..HEAD"); do
  n=$((n + 1))
  add=0 del=0 new=0 new_tests=0
  while IFS=$'\t' read -r a d path; do
    [[ "${a}" == "-" ]] && continue
    if [[ -n "${upstream_file[${path}]:-}" ]]; then
      generated "${c}" "${path}" && continue
      add=$((add + a)) del=$((del + d))
      files+=("${path}")
    elif [[ "${path}" == *.go && -n "${upstream_pkg[${path%/*}]:-}" ]]; then
      generated "${c}" "${path}" && continue
      if [[ "${path}" == *_test.go ]]; then
        new_tests=$((new_tests + a))
      else
        new=$((new + a - d))
        files+=("${path}")
      fi
    fi
  done < <(git diff --numstat "${c}^" "${c}")
  total_add=$((total_add + add)) total_del=$((total_del + del))
  total_new=$((total_new + new)) total_new_tests=$((total_new_tests + new_tests))
  rows+=("$(printf '%4d %6d %6d %6d %6d  %s' "${n}" "${add}" "${del}" "${new}" "${new_tests}" "$(git log -1 --format=%s "${c}")")")
done
total=$((total_add + total_del + total_new))
if [[ "${1:-}" == "--total" ]]; then
  echo "${total}"
  exit 0
fi
printf '%4s %6s %6s %6s %6s  %s\n' "#" "+" "-" "new" "tests" "commit: lines in upstream files (+, -), new files in upstream packages (new; their tests apart)"
printf '%s\n' "${rows[@]}"
printf '%4s %6d %6d %6d %6d  total: %d hand-written lines of upstream code, in %d files (tests of new files apart)\n' "" \
  "${total_add}" "${total_del}" "${total_new}" "${total_new_tests}" "${total}" "$(printf '%s\n' "${files[@]}" | sort -u | wc -l)"
