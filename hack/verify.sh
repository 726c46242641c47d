#!/usr/bin/env bash
# make verify: the series and everything generated are fresh, our code is
# gofmt'ed and vetted, and upstream's own verify scripts that can run here
# pass on the tree.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
cd "${FEATUREFLAGS_ROOT}"

# Upstream's hack/verify-*.sh that run on the tree here. The others need a
# network (openapi-docs-urls, deadcode-elimination, golangci-lint, the
# vendor checks), upstream's hack/tools module, which is not in the
# k8s.io/kubernetes module zip (publishing-bot, prometheus-imports,
# generated-stable-metrics, metrics-naming, spelling, shellcheck), or git's
# end-of-line attributes, which the tree turns off to keep the modules'
# bytes (file-sizes); verify-imports wants upstream's vendor directory,
# also not in the zip, so its import verifier runs here without that one
# entry; verify-codegen and verify-openapi-spec are ours below
# (hack/update-codegen.sh, hack/update-openapi-spec.sh), with upstream's
# generators and invocations. See docs/contributing.md, "Upstream's checks".
UPSTREAM_VERIFY=(
  verify-gofmt.sh
  verify-api-groups.sh
  verify-featuregates.sh
  verify-test-featuregates.sh
  verify-prerelease-lifecycle-tags.sh
  verify-pkg-names.sh
  verify-boilerplate.sh
  verify-staging-meta-files.sh
  verify-internal-modules.sh
  verify-description.sh
  verify-fieldname-docs.sh
  verify-import-aliases.sh
  verify-testing-import.sh
  verify-readonly-packages.sh
  verify-non-mutating-validation.sh
  verify-netparse-cve.sh
  verify-go-apidocs.sh
)
# Slow (about 7 minutes here): run with VERIFY_SLOW=true.
UPSTREAM_VERIFY_SLOW=(
  verify-import-boss.sh
)

featureflags::log "gofmt of our files"
unformatted=$(git ls-files -z --cached --others --exclude-standard -- '*.go' | xargs -0 gofmt -s -l)
if [[ -n "${unformatted}" ]]; then
  echo "gofmt -s wants to change:" >&2
  echo "${unformatted}" >&2
  exit 1
fi

featureflags::log "the shape of our code: files, functions and types within hack/tools/shape's limits"
shape="${FEATUREFLAGS_ROOT}/_output/tools/shape"
(cd hack/tools/shape && GOWORK=off GOFLAGS=-buildvcs=false go build -o "${shape}" .)
git ls-files -z --cached --others --exclude-standard -- '*.go' | xargs -0 "${shape}"

featureflags::log "the series: every file belongs to one commit, the tree is current"
hack/tree.sh check
featureflags::tree::ensure
# Every check below leaves the repository and the tree as they are (a
# failing one exits first), so none of them needs to ensure the tree again:
# an ensure rebuilds the series in a scratch index (about half a minute on
# 2 cores), and the scripts below would run eight of them.
export FEATUREFLAGS_TREE_CURRENT="${TREE}"

featureflags::log "the docs: generated figures current, README short, no link out (hack/update-docs.sh --check)"
hack/update-docs.sh --check

featureflags::log "go vet of our packages"
mapfile -t ours < <(sed -n '/^OUR_UNIT_PKGS=(/,/^)/p; /^OUR_INTEGRATION_PKGS=/p' hack/test.sh | grep -o '\./[^ )]*')
(cd "${TREE}" && go vet "${ours[@]}")

scripts=("${UPSTREAM_VERIFY[@]}")
[[ "${VERIFY_SLOW:-}" == true ]] && scripts+=("${UPSTREAM_VERIFY_SLOW[@]}")
for script in "${scripts[@]}"; do
  featureflags::log "upstream's hack/${script}"
  (cd "${TREE}" && FORCE_HOST_GO=1 GOMODCACHE="$(go env GOMODCACHE)" "hack/${script}" >/dev/null) ||
    { echo "upstream's hack/${script} failed on ${TREE}" >&2; exit 1; }
done
featureflags::log "upstream's import restrictions (hack/verify-imports.sh's importverifier)"
restrictions="${TREE}/_output/import-restrictions.yaml"
# Entries of directories the tree does not have (./vendor, unpublished
# sample modules) are left out.
awk -v root="${TREE}" '/^- baseImportPath:/ { p = $3; gsub(/"/, "", p); skip = system("test -d " root "/" p) != 0 } !skip' \
  "${TREE}/staging/publishing/import-restrictions.yaml" > "${restrictions}"
(cd "${TREE}" && go run ./cmd/importverifier "k8s.io/" "${restrictions}" >/dev/null)

featureflags::log "generated code"
hack/verify-codegen.sh
featureflags::log "lifecycle data"
hack/update-lifecycle-data.sh --check
featureflags::log "api/openapi-spec and api/discovery"
hack/verify-openapi-spec.sh
featureflags::log "the series applies to ${RELEASE} from the module zips"
hack/verify-series-applies.sh
featureflags::log "the rebase onto ${RELEASE} is a no-op"
hack/rebase.sh --check
