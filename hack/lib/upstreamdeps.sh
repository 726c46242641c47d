#!/usr/bin/env bash
# featureflags::upstreamdeps builds hack/tools/upstreamdeps (standard library
# only, so it builds even while go.mod is being rewritten) and runs it with the
# given arguments. Sourced by rebase.sh, verify-upstream-deps.sh and
# install-etcd.sh.
featureflags::upstreamdeps() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  mkdir -p "${root}/_output/tools"
  (cd "${root}" && GOWORK=off go build -mod=mod -o "${root}/_output/tools/upstreamdeps" ./hack/tools/upstreamdeps) &&
    (cd "${root}" && "${root}/_output/tools/upstreamdeps" "$@")
}
