#!/usr/bin/env bash
# Fails when the code generated from our API types is stale
# (hack/update-codegen.sh --check).
exec "$(dirname "${BASH_SOURCE[0]}")/update-codegen.sh" --check
