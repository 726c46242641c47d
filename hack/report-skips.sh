#!/usr/bin/env bash
# Prints, loudly, the checks integration tests recorded as skipped
# (test/integration/framework.RecordSkip) in the file given as $1, and fails
# under CI (CI=true) when there is any: CI must run every check.
set -o errexit -o nounset -o pipefail

log=$1
if [[ ! -s "${log}" ]]; then
  echo "+++ integration tests: no check was skipped"
  exit 0
fi
n=$(wc -l < "${log}")
bar=$(printf '!%.0s' {1..78})
{
  echo "${bar}"
  echo "!!! ${n} integration check(s) were SKIPPED on this machine:"
  sed 's/^/!!!   /' "${log}"
  echo "${bar}"
} >&2
if [[ "${CI:-}" == "true" ]]; then
  echo "CI must run every check: failing." >&2
  exit 1
fi
