#!/usr/bin/env bash
# Prints the -ldflags that stamp our binaries' version: upstream's release with
# "+featureflags" as semver build metadata, so `kubectl version` and
# /version tell our build from upstream's. Used by the Makefile and
# hack/local-up-cluster.sh.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(cd "${ROOT}" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
major=${version#v}; major=${major%%.*}
minor=${version#v*.}; minor=${minor%%.*}
# No commit: a flag that changes with every commit would relink every binary.
pkg=k8s.io/component-base/version
echo "-X ${pkg}.gitVersion=${version}+featureflags -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor}"
