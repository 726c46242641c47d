#!/usr/bin/env bash
# Prints the -ldflags that stamp our binaries' version: the release of
# patches/RELEASE with "+featureflags" as semver build metadata, so that
# `kubectl version` and /version tell our build from upstream's. No commit:
# a flag that changes with every commit would relink every binary.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/init.sh"
major=${RELEASE#v}; major=${major%%.*}
minor=${RELEASE#v*.}; minor=${minor%%.*}
flags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  flags+=" -X ${pkg}.gitVersion=${RELEASE}+featureflags -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
done
echo "${flags# }"
