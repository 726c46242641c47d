#!/usr/bin/env bash
# Fails when api/openapi-spec or api/discovery in the tree is not what our
# kube-apiserver serves (hack/update-openapi-spec.sh --check).
exec "$(dirname "${BASH_SOURCE[0]}")/update-openapi-spec.sh" --check
