#!/usr/bin/env bash
# Moves the project to another upstream Kubernetes release:
#
#   hack/rebase.sh v1.37.2            (or: make rebase VERSION=v1.37.2)
#   hack/rebase.sh --allow-downgrade v1.36.6
#
# The release is named once, by the root go.mod's requirement of
# k8s.io/kubernetes. From upstream's go.mod at the new release this rewrites:
# that requirement; a replace directive for every module upstream replaces
# with ./staging/... (at v0.<minor>.<patch>); every requirement of ours and of
# k8s.io/features that upstream's go.mod also names, to upstream's version;
# then go mod tidy and the generated code. The etcd we install follows by
# itself (hack/install-etcd.sh reads upstream's build/dependencies.yaml).
#
# Refused before any file is touched: a dirty working tree, a version that is
# not a release or not served, an older release without --allow-downgrade, a
# staging module that is not served at the release.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
source "${ROOT}/hack/lib/upstreamdeps.sh"

if [[ $# -lt 1 ]]; then
  echo "usage: hack/rebase.sh [--allow-downgrade] v1.<minor>.<patch>" >&2
  exit 2
fi

featureflags::upstreamdeps rebase "$@"

echo "+++ regenerating code" >&2
hack/update-codegen.sh

echo "+++ checking the module graph" >&2
featureflags::upstreamdeps verify

cat >&2 <<MSG

Rebased to $(go list -m -f '{{.Version}}' k8s.io/kubernetes). Next:
  go build ./...                  fix what upstream changed under our composition points
  make update                     regenerate api/openapi-spec (starts our apiserver)
  make verify && make test        then record the files you changed in docs/design.md
MSG
