#!/usr/bin/env bash
# Fails, with a diff, when the generated lifecycle fixtures in
# pkg/features/testdata/lifecycle are not what
# hack/update-lifecycle-fixtures.sh writes now.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

committed=pkg/features/testdata/lifecycle
fresh=$(mktemp -d)
trap 'rm -rf "${fresh}"' EXIT

refused=pkg/features/inventory/zz_generated.refused-rewrites.yaml
cp -a "${committed}/." "${fresh}/"
go run ./hack/tools/lifecycle-fixtures -dir "${fresh}" -refused-rewrites "${fresh}/refused-rewrites.yaml" 2> >(grep -v '^W[0-9]\{4\} ' >&2)
if ! diff -u "${refused}" "${fresh}/refused-rewrites.yaml"; then
  echo "${refused} is stale: run hack/update-lifecycle-fixtures.sh." >&2
  exit 1
fi
rm "${fresh}/refused-rewrites.yaml"
if ! diff -ru "${committed}" "${fresh}"; then
  echo "${committed} is stale: run hack/update-lifecycle-fixtures.sh." >&2
  exit 1
fi
echo "The generated lifecycle fixtures are up to date."
