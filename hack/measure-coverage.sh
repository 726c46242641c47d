#!/usr/bin/env bash
# Measures the statement coverage of our unit test packages (hack/test.sh's
# OUR_UNIT_PKGS) with go test -cover, one package at a time, and writes
# docs/figures/coverage.txt: "<package> <coverage>" per line, under a header
# naming the series tip and the machine. hack/update-docs.sh renders it into
# the KEP's test plan. CPU-heavy (every test binary is built with coverage):
# run it when the tests changed, not in make verify.
#
# Usage: hack/measure-coverage.sh [output]   (default docs/figures/coverage.txt)
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/figures.sh"
out=${1:-${FIGURES_DIR}/coverage.txt}

featureflags::tree::ensure
featureflags::etcd::path
mapfile -t pkgs < <(sed -n '/^OUR_UNIT_PKGS=(/,/^)/p' "${FEATUREFLAGS_ROOT}/hack/test.sh" | grep -o '\./[^ )]*')
log=$(mktemp)
trap 'rm -f "${log}"' EXIT
featureflags::log "go test -cover -p 1 of ${#pkgs[@]} package patterns"
rc=0
(cd "${TREE}" && go test -p 1 -cover "${pkgs[@]}") >"${log}" 2>&1 || rc=$?
if [[ ${rc} -ne 0 ]]; then
  grep -E '^(FAIL|---|panic)' "${log}" >&2 || tail -50 "${log}" >&2
  echo "go test failed: coverage not written" >&2
  exit 1
fi
{
  featureflags::figures::header hack/measure-coverage.sh "go test -cover -p 1 of our unit test packages"
  # "ok  	k8s.io/kubernetes/pkg/x	1.2s	coverage: 85.1% of statements"
  # "	k8s.io/kubernetes/pkg/y		coverage: 0.0% of statements" (no test files)
  awk '/coverage: / {
      pkg = ""; for (i = 1; i <= NF; i++) if ($i ~ /^k8s\.io\//) { pkg = $i; break }
      for (i = 1; i <= NF; i++) if ($i == "coverage:") cov = $(i+1)
      if (pkg != "") print pkg, cov
    }' "${log}" | sed 's|^k8s\.io/kubernetes/||' | sort
} >"${out}"
featureflags::log "wrote ${out#"${FEATUREFLAGS_ROOT}"/}"
