#!/usr/bin/env bash
# Writes pkg/features/inventory/zz_generated.version-changes.yaml: the gates
# whose default or stage, and the resources whose storage version, change
# between each pair of consecutive versions kube-apiserver can emulate,
# found by hack/tools/version-changes from upstream's own code.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

out=pkg/features/inventory/zz_generated.version-changes.yaml
go run ./hack/tools/version-changes -out "${out}" 2> >(grep -v '^W[0-9]\{4\} ' >&2)
echo "+++ wrote ${out}"
