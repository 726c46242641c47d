#!/usr/bin/env bash
# Fails when api/openapi-spec is not what our kube-apiserver serves
# (hack/update-openapi-spec.sh writes it).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

hack/install-etcd.sh >/dev/null
if ! out=$(go test -count=1 -run '^TestOpenAPISpec$' ./test/integration/features/ 2>&1); then
  echo "${out}" | grep -E 'openapi_spec_test.go|FAIL' >&2 || echo "${out}" | tail -20 >&2
  exit 1
fi
echo "OpenAPI spec is up to date."
