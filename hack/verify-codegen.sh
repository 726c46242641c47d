#!/usr/bin/env bash
# Fails when a generated file is stale: regenerates everything in a copy of
# the tree and compares the copy with the tree.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
copy=$(mktemp -d)
trap 'rm -rf "${copy}"' EXIT

# Tracked and untracked-but-not-ignored files: what a commit would hold.
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} cp --parents {} "${copy}/" 2>/dev/null || true
(cd "${copy}" && hack/update-codegen.sh >/dev/null)

if ! diff -ruN -x _output -x .git "${ROOT}/staging" "${copy}/staging" \
   || ! diff -ruN -x _output "${ROOT}/pkg" "${copy}/pkg" \
   || ! diff -ruN "${ROOT}/api" "${copy}/api"; then
  echo "Generated files are stale: run hack/update-codegen.sh (make update)." >&2
  exit 1
fi
echo "Generated files are up to date."
