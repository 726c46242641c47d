#!/usr/bin/env bash
# Helpers that install what the hack/ scripts need, from Debian's packages or
# the Go module proxy (the only registries our machines reach).

# featureflags::tools::ensure_protoc installs protoc from Debian's protobuf-compiler.
featureflags::tools::ensure_protoc() {
  if command -v protoc >/dev/null 2>&1; then
    return 0
  fi
  echo "+++ installing protoc (Debian package protobuf-compiler)" >&2
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  ${sudo} apt-get update -qq >/dev/null && ${sudo} apt-get install -y -qq protobuf-compiler >/dev/null
}

# featureflags::tools::ensure_jq installs jq from Debian's packages.
featureflags::tools::ensure_jq() {
  if command -v jq >/dev/null 2>&1; then
    return 0
  fi
  echo "+++ installing jq (Debian package jq)" >&2
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  ${sudo} apt-get update -qq >/dev/null && ${sudo} apt-get install -y -qq jq >/dev/null
}
