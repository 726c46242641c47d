# Targets of the feature lifecycle patch set (KEP-3920). See README.md.
#
# Everything builds and runs in the kubernetes tree the series is applied to
# (_output/tree, hack/tree.sh): kubernetes at patches/RELEASE from the Go
# module proxy, plus our commits.
#
#   make                   build our binaries into _output/bin
#   make tree              materialize or refresh _output/tree
#   make series            the series as git format-patch files in _output/series
#   make export            take commits made in _output/tree back into the repository
#   make test              unit + integration tests (etcd is built from its Go module)
#   make test-upstream     upstream's own tests of what the series touches, broader
#   make verify            freshness of everything generated, the series, gofmt, vet, upstream's checks
#   make update            regenerate everything generated
#   make docs              rewrite the docs' generated figures (hack/update-docs.sh)
#   make bench             benchmarks (ratios against upstream in one run)
#   make bench-gate        the migrator's and the derived clear's speeds against hack/bench-gate.figures
#   make images            control-plane images for Docker (hack/build-images.sh)
#   make node-image        the kind node image featureflags/node:<release> (hack/build-node-image.sh)
#   make kind              kind itself from its Go module into _output/bin (hack/install-kind.sh)
#   make test-e2e          end-to-end tests on Docker (not part of make test)
#   make test-e2e-faults   only the fault tests of test/e2e_features/faults
#   make rebase VERSION=v1.x.y   move the series to another upstream release

SHELL := /usr/bin/env bash -o errexit -o nounset -o pipefail

.PHONY: all build tree series export etcd test test-unit test-integration test-upstream \
	test-e2e test-e2e-faults images node-image kind bench bench-gate verify verify-series update docs clean rebase

all: build

build:
	hack/build.sh

tree:
	hack/tree.sh make

series:
	hack/tree.sh series

export:
	hack/tree.sh export

etcd:
	hack/install-etcd.sh

test: test-unit test-integration

# Our unit tests and upstream's unit tests of every upstream package the
# series modifies, in one go test (each test binary is compiled once).
test-unit:
	hack/test.sh unit

# Checks a machine cannot run (the kubelet needs root) are recorded and
# reported loudly; under CI (CI=true) any of them fails.
test-integration: etcd
	hack/test.sh integration

# Upstream's integration tests of the areas the series touches, with the
# FeatureLifecycle gate off (its default): more than make test runs.
test-upstream: etcd
	hack/test.sh upstream

# Control-plane images of our binaries (static builds in _output/images/bin)
# and etcd, FROM scratch, tagged featureflags/<name>:e2e and as kubeadm
# expects (registry.k8s.io/<name>:<release>).
images:
	hack/build-images.sh

# The kind node image of this tree (kind create cluster --image
# featureflags/node:<release>). Built offline; cached under _output/node.
node-image:
	hack/build-node-image.sh

# kind itself, from its Go module (hack/install-kind.sh), into _output/bin/kind.
kind:
	hack/install-kind.sh

# End-to-end tests on a Docker engine (test/e2e_features): not part of make
# test. -v prints what they measured.
test-e2e: build images node-image kind
	hack/build-images.sh sample-feature-controller
	hack/test.sh e2e

test-e2e-faults: images
	hack/test.sh e2e-faults

bench: etcd build
	hack/test.sh bench

# Briefly, in CI: fails when a speed falls 20 % below its recorded figure.
bench-gate: etcd
	hack/bench-gate.sh

verify:
	hack/verify.sh

# Every commit of the series builds and vets (slow: it builds each commit).
verify-series:
	hack/verify-series.sh

# make rebase VERSION=v1.37.3: move to another upstream release (hack/rebase.sh).
rebase:
	hack/rebase.sh $(VERSION)

update:
	hack/update-codegen.sh
	hack/update-lifecycle-data.sh
	hack/update-openapi-spec.sh

# The figures of the docs, from docs/figures and the repository
# (docs/figures/README.md); make verify checks them with --check.
docs:
	hack/update-docs.sh

clean:
	rm -rf _output
