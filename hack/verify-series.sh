#!/usr/bin/env bash
# Checks, commit by commit, that every commit of the series builds: go build
# of ./cmd/... and of every package the commit touches, and go vet of the
# packages it touches. It checks the commits out in the tree itself (so the
# build cache serves them), which must be clean, and puts HEAD back.
#
# Usage: hack/verify-series.sh [first-commit-number]
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

featureflags::tree::ensure
cd "${TREE}"
if [[ -n "$(git status --porcelain)" ]]; then
  echo "${TREE} has uncommitted changes" >&2
  exit 1
fi
head=$(git rev-parse HEAD)
branch=$(git symbolic-ref -q --short HEAD || true)
trap 'git checkout -q -f "${branch:-${head}}"' EXIT
first=${1:-1}
n=0
failed=()
for c in $(git rev-list --reverse "${RELEASE}..${head}"); do
  n=$((n + 1))
  [[ ${n} -lt ${first} ]] && continue
  git checkout -q -f "${c}"
  subject=$(git log -1 --format=%s)
  # The packages the commit touches that still exist after it.
  mapfile -t pkgs < <(git diff --name-only "${c}^" "${c}" -- '*.go' |
    while read -r f; do [[ -f "${f}" ]] && echo "./$(dirname "${f}")/"; done | sort -u)
  # go build refuses packages of test files only; go vet takes them.
  mapfile -t build < <(for p in "${pkgs[@]}"; do
    find "${p}" -maxdepth 1 -name '*.go' ! -name '*_test.go' | grep -q . && echo "${p}"
  done)
  start=${SECONDS}
  ok=true
  go build ./cmd/... "${build[@]}" || ok=false
  if ${ok} && [[ ${#pkgs[@]} -gt 0 ]]; then
    go vet "${pkgs[@]}" || ok=false
  fi
  if ${ok}; then
    printf '%3d ok   %4ds %s\n' "${n}" $((SECONDS - start)) "${subject}"
  else
    printf '%3d FAIL %4ds %s\n' "${n}" $((SECONDS - start)) "${subject}"
    failed+=("${n} ${subject}")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'commits that do not build or vet:\n' >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
featureflags::log "every commit of the series builds and vets"
