#!/usr/bin/env bash
# Writes pkg/features/inventory/zz_generated.inventory.yaml: the fields each
# kube-apiserver feature gate makes upstream's registry strategies drop when
# it is off, found by hack/tools/gate-inventory from upstream's own code.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

out=pkg/features/inventory/zz_generated.inventory.yaml
mkdir -p "$(dirname "${out}")"
go run ./hack/tools/gate-inventory -out "${out}"
echo "+++ wrote ${out}"
