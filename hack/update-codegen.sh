#!/usr/bin/env bash
# Regenerates every generated file of the project from k8s.io/code-generator
# and k8s.io/kube-openapi, at the versions go.mod pins:
#   - deepcopy, defaulters and conversions (kube_codegen.sh gen_helpers);
#   - OpenAPI definitions with OpenAPIModelName() (kube_codegen.sh gen_openapi);
#   - protobuf (go-to-protobuf + protoc from Debian's protobuf-compiler);
#   - clientset, listers, informers and apply configurations (gen_client).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
source "${ROOT}/hack/lib/tools.sh"
featureflags::tools::ensure_protoc

BOILERPLATE="${ROOT}/hack/boilerplate/boilerplate.go.txt"
STAGING="${ROOT}/staging/src/k8s.io/features"
# go list prints no directory for a module that is not downloaded yet.
go mod download k8s.io/code-generator
CODEGEN_PKG=$(go list -m -f '{{.Dir}}' k8s.io/code-generator)
if [[ -z "${CODEGEN_PKG}" || ! -f "${CODEGEN_PKG}/kube_codegen.sh" ]]; then
  echo "k8s.io/code-generator is not in the module cache (${CODEGEN_PKG:-no directory})" >&2
  exit 1
fi
export GOBIN="${ROOT}/_output/tools"
mkdir -p "${GOBIN}"
export PATH="${GOBIN}:${PATH}"

# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

echo "+++ helpers (deepcopy, defaults, conversion)"
kube::codegen::gen_helpers --boilerplate "${BOILERPLATE}" "${STAGING}/api"
kube::codegen::gen_helpers --boilerplate "${BOILERPLATE}" "${ROOT}/pkg/apis"

echo "+++ openapi"
kube::codegen::gen_openapi \
  --boilerplate "${BOILERPLATE}" \
  --output-dir "${STAGING}/api/openapi" \
  --output-pkg "k8s.io/features/api/openapi" \
  --output-model-name-file zz_generated.model_name.go \
  --report-filename "${ROOT}/api/api-rules/violation_exceptions.list" \
  ${UPDATE_API_KNOWN_VIOLATIONS:+--update-report} \
  "${STAGING}/api"

echo "+++ protobuf"
go install k8s.io/code-generator/cmd/go-to-protobuf k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo golang.org/x/tools/cmd/goimports
# protoc resolves imports such as k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto
# against a tree laid out by import path; build one from the module cache.
protoroot=$(mktemp -d)
trap 'rm -rf "${protoroot}"' EXIT
mkdir -p "${protoroot}/k8s.io" "${protoroot}/github.com/gogo"
ln -s "$(go list -m -f '{{.Dir}}' k8s.io/apimachinery)" "${protoroot}/k8s.io/apimachinery"
ln -s "$(go list -m -f '{{.Dir}}' k8s.io/api)" "${protoroot}/k8s.io/api"
ln -s "$(cd "${CODEGEN_PKG}" && go list -m -f '{{.Dir}}' github.com/gogo/protobuf)" "${protoroot}/github.com/gogo/protobuf"
go-to-protobuf \
  --go-header-file "${BOILERPLATE}" \
  --output-dir "${ROOT}/staging/src" \
  --proto-import "${protoroot}" \
  --apimachinery-packages "-k8s.io/apimachinery/pkg/util/intstr,-k8s.io/apimachinery/pkg/api/resource,-k8s.io/apimachinery/pkg/runtime/schema,-k8s.io/apimachinery/pkg/runtime,-k8s.io/apimachinery/pkg/apis/meta/v1" \
  --packages "k8s.io/features/api/v1alpha1"

echo "+++ clients (clientset, listers, informers, apply configurations)"
schema="${protoroot}/models-schema.json"
go run ./hack/tools/models-schema > "${schema}"
# client-gen reads <input-base>/<dir>/<version>; our types sit in api/v1alpha1,
# so the input base is the module root. It maps the input base to an import
# path from the current module, so run it from inside k8s.io/features.
(cd "${STAGING}" && kube::codegen::gen_client \
  --boilerplate "${BOILERPLATE}" \
  --output-dir "${STAGING}/client" \
  --output-pkg "k8s.io/features/client" \
  --with-watch \
  --with-applyconfig \
  --applyconfig-openapi-schema "${schema}" \
  --prefers-protobuf \
  "${STAGING}")
