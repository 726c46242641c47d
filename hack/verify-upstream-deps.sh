#!/usr/bin/env bash
# Fails unless we build with the module versions upstream tested: every module
# that both our build lists (the workspace's and k8s.io/features' own) and
# upstream's go.mod at our release contain is at upstream's version, every
# staging module is pinned to the release, and k8s.io/features requires the
# same k8s.io versions as the root. hack/upstream-deps-exceptions.txt lists
# the few allowed differences, each with its reason. Part of make verify.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "${ROOT}/hack/lib/upstreamdeps.sh"
featureflags::upstreamdeps verify
