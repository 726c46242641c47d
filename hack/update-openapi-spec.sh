#!/usr/bin/env bash
# Writes api/openapi-spec/v3/apis__features.k8s.io__v1alpha1_openapi.json: the
# OpenAPI v3 document our kube-apiserver serves for features.k8s.io/v1alpha1,
# read from a running apiserver (with etcd from hack/install-etcd.sh), as
# upstream's hack/update-openapi-spec.sh reads its own.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

hack/install-etcd.sh >/dev/null
UPDATE_OPENAPI_SPEC=true go test -count=1 -run '^TestOpenAPISpec$' ./test/integration/features/ >/dev/null
echo "+++ wrote api/openapi-spec/v3/apis__features.k8s.io__v1alpha1_openapi.json"
