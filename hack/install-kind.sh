#!/usr/bin/env bash
# Builds kind from its Go module (hack/lib/node-image-versions.sh pins it)
# into _output/bin/kind, for test/e2e/node's kind test. Nothing is pulled:
# kind's module comes from the Go module proxy; its node image is ours
# (make node-image).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "${ROOT}/hack/lib/node-image-versions.sh"
BIN="${ROOT}/_output/bin/kind"

if [[ -x "${BIN}" ]] && [[ "$("${BIN}" version 2>/dev/null)" == "kind ${KIND_VERSION} "* ]]; then
  exit 0
fi
mkdir -p "$(dirname "${BIN}")"
echo "+++ building kind ${KIND_VERSION} from its Go module into ${BIN}" >&2
# go install pkg@version builds outside this module, at kind's own go.mod.
GOWORK=off GOFLAGS= GOBIN="$(dirname "${BIN}")" CGO_ENABLED=0 \
  go install -trimpath "${KIND_MODULE}@${KIND_VERSION}"
"${BIN}" version >&2
