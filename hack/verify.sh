#!/usr/bin/env bash
# make verify: generated code, the gate inventory, the generated lifecycle
# fixtures and api/openapi-spec are fresh, Go files are
# gofmt'ed, go vet is clean.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

echo "+++ gofmt"
unformatted=$(git ls-files -z --cached --others --exclude-standard '*.go' | xargs -0 gofmt -s -l)
if [[ -n "${unformatted}" ]]; then
  echo "gofmt -s wants to change:" >&2
  echo "${unformatted}" >&2
  exit 1
fi

echo "+++ go vet"
go vet ./... ./staging/src/k8s.io/features/...

echo "+++ upstream dependencies"
hack/verify-upstream-deps.sh

echo "+++ gate inventory"
hack/verify-gate-inventory.sh

echo "+++ lifecycle fixtures"
hack/verify-lifecycle-fixtures.sh

echo "+++ version changes"
hack/verify-version-changes.sh

echo "+++ codegen"
hack/verify-codegen.sh

echo "+++ openapi-spec"
hack/verify-openapi-spec.sh
