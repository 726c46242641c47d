#!/usr/bin/env bash
# Runs tests in the tree (hack/tree.sh), each package's test binary compiled
# once per go test invocation:
#
#   hack/test.sh unit          our unit tests, and upstream's unit tests of
#                              the upstream packages the series modifies (but
#                              UPSTREAM_UNIT_HEAVY); then hack/tools/*'s
#   hack/test.sh integration   our integration tests (test/integration/features/...)
#                              and a set of upstream's integration tests of
#                              what the series touches, with FeatureLifecycle off
#   hack/test.sh upstream      upstream's unit tests of every upstream package
#                              the series modifies, and its integration tests
#                              of what the series touches, whole packages (slow)
#   hack/test.sh e2e           every end-to-end test on Docker (test/e2e_features)
#   hack/test.sh e2e-faults    only the fault tests
#   hack/test.sh bench         benchmarks, with ours/upstream ratios
#
# Environment: GOTEST_FLAGS (extra go test flags), CI, INTEGRATION_PARALLEL
# (our integration packages run at once, default 3), INTEGRATION_ALONGSIDE
# (a command run while the integration tests run, see .ci/run).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# Our packages with unit tests.
OUR_UNIT_PKGS=(
  ./pkg/apis/features/...
  ./pkg/registry/features/...
  ./pkg/featurelifecycle/...
  ./pkg/features/lifecycle/...
  ./pkg/features/inventory/...
  ./plugin/pkg/admission/featurestatus/...
  ./plugin/pkg/admission/featuredroppedfields/...
  ./plugin/pkg/admission/featurecustomfields/...
  ./cmd/kubectl-features/...
  ./cmd/feature-inventory-gen/...
  ./cmd/lifecycle-fixtures-gen/...
  ./cmd/version-changes-gen/...
  ./staging/src/k8s.io/features/...
  ./staging/src/k8s.io/sample-feature-controller/...
  ./staging/src/k8s.io/api/features/...
)
OUR_INTEGRATION_PKGS=(./test/integration/features/...)

# Upstream's integration tests run by hack/test.sh integration, with the
# FeatureLifecycle gate off: discovery and the registration of every API
# group, printing, RBAC bootstrap, and every resource's storage.
UPSTREAM_INTEGRATION=(
  "./test/integration/apiserver/discovery/"
  "./test/integration/apiserver/ -run ^(TestServerSidePrint)$"
  "./test/integration/auth/ -run ^(TestBootstrapping|TestDiscoveryUpgradeBootstrapping)$"
  "./test/integration/controlplane/ -run ^(TestCreateLeaseOnStart|TestRun|TestLivezAndReadyz|TestOpenAPIDelegationChainPlumbing|TestAPIServerService)$"
  "./test/integration/etcd/ -run ^(TestEtcdStoragePath)$"
)
# hack/test.sh upstream: the same packages, whole.
UPSTREAM_INTEGRATION_ALL=(
  ./test/integration/apiserver/...
  ./test/integration/auth/
  ./test/integration/controlplane/...
  ./test/integration/etcd/
  ./test/integration/podcertificaterequests/
  ./test/integration/storageversionmigrator/
)

# upstream_unit_packages prints the packages of upstream files the series
# changes (their tests are upstream's), one per line; packages under
# test/integration need etcd and run in hack/test.sh integration instead.
upstream_unit_packages() {
  git -C "${TREE}" diff --name-only "${RELEASE}" HEAD -- '*.go' ':!test/integration/' |
    while read -r f; do
      if git -C "${TREE}" cat-file -e "${RELEASE}:${f}" 2>/dev/null; then
        echo "./$(dirname "${f}")/"
      fi
    done | sort -u
}

# Upstream packages the series modifies whose tests are heavy to build
# (a component's whole app, every API type's round trip, the generic
# server): their tests run in hack/test.sh upstream, not in make test, to
# keep a cold .ci/run within its time. The upstream integration tests of
# hack/test.sh integration exercise the same code with the gate off.
UPSTREAM_UNIT_HEAVY='^\./(cmd/|pkg/api/testing/|pkg/controlplane|pkg/generated/|pkg/kubeapiserver/|staging/src/k8s\.io/api/$|staging/src/k8s\.io/apiserver/pkg/server/|staging/src/k8s\.io/client-go/)'

run() {
  featureflags::log "$*"
  (cd "${TREE}" && "$@")
}

skips() {
  local log=$1
  "${FEATUREFLAGS_ROOT}/hack/report-skips.sh" "${log}"
}

featureflags::tree::ensure
featureflags::etcd::path
featureflags::test_srcdir
export FEATUREFLAGS_BIN_DIR="${BIN}" FEATUREFLAGS_ROOT
case "${1:-}" in
  unit)
    mapfile -t upstream < <(upstream_unit_packages | grep -Ev "${UPSTREAM_UNIT_HEAVY}")
    run go test ${GOTEST_FLAGS:-} "${OUR_UNIT_PKGS[@]}" "${upstream[@]}"
    for tool in tree shape; do
      featureflags::log "hack/tools/${tool}"
      (cd "${FEATUREFLAGS_ROOT}/hack/tools/${tool}" && GOWORK=off go test ${GOTEST_FLAGS:-} ./...) || exit 1
    done ;;
  integration)
    # The components the tests start as processes (harness.Binary).
    "${FEATUREFLAGS_ROOT}/hack/build.sh" kube-apiserver kube-controller-manager kube-scheduler kubelet
    skip_log="${FEATUREFLAGS_ROOT}/_output/skipped-integration-checks.txt"
    rm -f "${skip_log}"
    export FEATUREFLAGS_SKIP_LOG="${skip_log}"
    # Our packages spend most of their time waiting for apiservers,
    # controllers and etcd, not computing: INTEGRATION_PARALLEL of them run
    # at once, and upstream's set runs meanwhile (its output follows ours).
    # No package runs over 10 minutes on a 2-core machine.
    # INTEGRATION_ALONGSIDE, a command, runs meanwhile too (.ci/run's make
    # verify, on its own copy of the tree); its output follows, and its
    # failure fails the stage.
    # Upstream's set starts once the command alongside has ended: its
    # test server gives /healthz 10 seconds, which a machine compiling the
    # tree for make verify does not always meet (TestServerSidePrint failed
    # so after an API change made verify rebuild everything).
    alongside_log="${FEATUREFLAGS_ROOT}/_output/integration-alongside.log"
    alongside_done="${FEATUREFLAGS_ROOT}/_output/integration-alongside.done"
    rm -f "${alongside_done}"
    alongside=""
    if [[ -n "${INTEGRATION_ALONGSIDE:-}" ]]; then
      featureflags::log "alongside the integration tests: ${INTEGRATION_ALONGSIDE}"
      (
        rc=0
        bash -c "${INTEGRATION_ALONGSIDE}" > "${alongside_log}" 2>&1 || rc=$?
        touch "${alongside_done}"
        exit "${rc}"
      ) &
      alongside=$!
    else
      touch "${alongside_done}"
    fi
    upstream_log="${FEATUREFLAGS_ROOT}/_output/upstream-integration.log"
    (
      while [[ ! -e "${alongside_done}" ]]; do sleep 5; done
      for spec in "${UPSTREAM_INTEGRATION[@]}"; do
        # shellcheck disable=SC2086 # a package and its go test flags
        run go test ${GOTEST_FLAGS:-} -timeout 10m ${spec} || exit 1
      done
    ) > "${upstream_log}" 2>&1 &
    upstream=$!
    ours=0
    run go test ${GOTEST_FLAGS:-} -p "${INTEGRATION_PARALLEL:-3}" -timeout 10m "${OUR_INTEGRATION_PKGS[@]}" || ours=$?
    # For hack/ci-timings.sh: where our packages end, the command alongside
    # has the machine to itself.
    featureflags::log "our integration packages ended (exit ${ours})"
    theirs=0
    wait "${upstream}" || theirs=$?
    cat "${upstream_log}"
    besides=0
    if [[ -n "${alongside}" ]]; then
      wait "${alongside}" || besides=$?
      featureflags::log "output of ${INTEGRATION_ALONGSIDE}:"
      cat "${alongside_log}"
    fi
    if [[ ${ours} -ne 0 || ${theirs} -ne 0 || ${besides} -ne 0 ]]; then
      echo "integration stage failed: our tests exit ${ours}, upstream's exit ${theirs}, ${INTEGRATION_ALONGSIDE:-nothing alongside} exit ${besides}" >&2
      exit 1
    fi
    skips "${skip_log}" ;;
  upstream)
    mapfile -t upstream < <(upstream_unit_packages)
    run go test ${GOTEST_FLAGS:-} "${upstream[@]}"
    run go test ${GOTEST_FLAGS:-} -p 1 -timeout 60m "${UPSTREAM_INTEGRATION_ALL[@]}" ;;
  # The end-to-end tests run Docker images, which go test's result cache
  # knows nothing of: a result cached before the images changed would pass
  # for the new ones. -count=1 runs them every time.
  e2e)
    FEATUREFLAGS_E2E=1 FEATUREFLAGS_E2E_NODE=1 run go test ${GOTEST_FLAGS:-} -count=1 -p 1 -timeout 60m -v ./test/e2e_features/... ;;
  e2e-faults)
    FEATUREFLAGS_E2E=1 run go test ${GOTEST_FLAGS:-} -count=1 -p 1 -timeout 60m -v ./test/e2e_features/faults/... ;;
  bench)
    run go test -run '^$' -bench . -benchmem "${OUR_UNIT_PKGS[@]}" "${OUR_INTEGRATION_PKGS[@]}" \
      ./staging/src/k8s.io/component-base/featuregate/ | "${FEATUREFLAGS_ROOT}/hack/bench-ratios.sh" ;;
  *)
    sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2 ;;
esac
