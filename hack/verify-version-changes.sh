#!/usr/bin/env bash
# Fails when pkg/features/inventory/zz_generated.version-changes.yaml is not
# what hack/update-version-changes.sh writes now.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

committed=pkg/features/inventory/zz_generated.version-changes.yaml
fresh=$(mktemp)
trap 'rm -f "${fresh}"' EXIT

go run ./hack/tools/version-changes -out "${fresh}" 2> >(grep -v '^W[0-9]\{4\} ' >&2)
if ! diff -u "${committed}" "${fresh}"; then
  echo "${committed} is stale: run hack/update-version-changes.sh." >&2
  exit 1
fi
echo "The version changes are up to date."
