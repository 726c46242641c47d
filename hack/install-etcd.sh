#!/usr/bin/env bash
# Builds etcd from its Go module into third_party/etcd/etcd.
#
# Only the Go module proxy is reachable from our machines, so release archives
# cannot be downloaded. `go install go.etcd.io/etcd/server/v3@VERSION` is refused
# because etcd's go.mod carries replace directives, so we build the server's main
# package from a throw-away module that requires it. The version is the one
# upstream's build/dependencies.yaml names in the tree (hack/tree.sh) of
# patches/RELEASE; ETCD_VERSION overrides it.
set -o errexit -o nounset -o pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
if [[ -z "${ETCD_VERSION:-}" ]]; then
  featureflags::tree::ensure
  ETCD_VERSION=$(awk '/- name: "etcd"$/ { found = 1; next } found && $1 == "version:" { print $2; exit }' "${TREE}/build/dependencies.yaml")
  if [[ -z "${ETCD_VERSION}" ]]; then
    echo "no etcd version in ${TREE}/build/dependencies.yaml" >&2
    exit 1
  fi
fi
DEST="${ETCD_DIR}"
BIN="${DEST}/etcd"

# Capture the output first: `etcd --version | grep -q` under pipefail fails
# whenever grep exits early and etcd dies of SIGPIPE.
if [[ -x "${BIN}" ]]; then
  installed=$("${BIN}" --version 2>/dev/null || true)
  if [[ "${installed}" == *"etcd Version: ${ETCD_VERSION}"$'\n'* ]]; then
    exit 0
  fi
fi

mkdir -p "${DEST}"
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
cd "${work}"
cat > go.mod <<MOD
module etcdbuild

go 1.26.0

require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
MOD
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
echo "+++ building etcd v${ETCD_VERSION} from its Go module into ${BIN}" >&2
GOWORK=off GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}" >/dev/null 2>&1 || GOWORK=off GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "${BIN}.tmp" go.etcd.io/etcd/server/v3
mv "${BIN}.tmp" "${BIN}"
"${BIN}" --version >&2
