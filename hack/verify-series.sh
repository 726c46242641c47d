#!/usr/bin/env bash
# Checks, commit by commit, that every commit of the series builds: go build
# of every package the commit touches and go vet of them (their tests
# included), and, when the commit changes an upstream file outside
# test/integration, go build of the components the series wires
# (COMPONENTS), which import nearly every upstream package the series
# changes. It checks the commits out in the tree itself (so the shared
# build cache serves them: a commit rebuilds only what its change reaches),
# which must be clean, and puts HEAD back.
#
# Usage: hack/verify-series.sh [first-commit-number]
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

featureflags::tree::ensure
cd "${TREE}"
# go commands add lines to go.work.sum: that is not a change of the tree.
if [[ -n "$(git status --porcelain -- . ':!go.work.sum')" ]]; then
  echo "${TREE} has uncommitted changes:" >&2
  git status --short -- . ':!go.work.sum' >&2
  exit 1
fi
head=$(git rev-parse HEAD)
branch=$(git symbolic-ref -q --short HEAD || true)
trap 'git checkout -q -f "${branch:-${head}}"' EXIT
first=${1:-1}
COMPONENTS=(./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler ./cmd/kubelet)
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
  # An upstream file the commit changes (it exists at the release).
  upstream=false
  while read -r f; do
    if git cat-file -e "${RELEASE}:${f}" 2>/dev/null; then upstream=true; break; fi
  done < <(git diff --name-only "${c}^" "${c}" -- '*.go' ':!*_test.go' ':!test/integration/')
  ${upstream} && build+=("${COMPONENTS[@]}")
  start=${SECONDS}
  ok=true
  if [[ ${#build[@]} -gt 0 ]]; then
    # -o /dev/null: built alone, a main package would leave its binary in the tree.
    go build -o /dev/null "${build[@]}" || ok=false
  fi
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
