#!/usr/bin/env bash
# Fails, with a diff, when pkg/features/inventory/zz_generated.inventory.yaml
# is not what hack/update-gate-inventory.sh writes now.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

committed=pkg/features/inventory/zz_generated.inventory.yaml
fresh=$(mktemp)
trap 'rm -f "${fresh}"' EXIT

go run ./hack/tools/gate-inventory -out "${fresh}"
if ! diff -u "${committed}" "${fresh}"; then
  echo "${committed} is stale: run hack/update-gate-inventory.sh." >&2
  exit 1
fi
echo "The gate inventory is up to date."
