# Targets of the feature lifecycle patch set (KEP-3920). See README.md.
#
#   make            build our binaries into _output/bin
#   make test       unit + integration tests (etcd is built from its Go module)
#   make verify     generated code and api/openapi-spec are fresh, gofmt, go vet
#   make update     regenerate everything generated (the OpenAPI spec needs etcd)
#   make bench      benchmarks (ratios against upstream in one run)
#   make images     control-plane images for Docker (hack/build-images.sh)
#   make node-image the kind node image featureflags/node:<release> (hack/build-node-image.sh)
#   make kind       kind itself from its Go module into _output/bin (hack/install-kind.sh)
#   make test-e2e   end-to-end tests on Docker (not part of make test)
#   make test-e2e-faults   only the fault tests of test/e2e/faults
#   make rebase VERSION=v1.x.y   move to another upstream release

SHELL := /usr/bin/env bash -o errexit -o nounset -o pipefail
GO ?= go
OUT := _output
BIN := $(OUT)/bin
ETCD := third_party/etcd/etcd
GOTEST_FLAGS ?=
# Integration tests start apiservers; keep them to one package at a time on
# small machines.
INTEGRATION_FLAGS ?= -p 1 -timeout 30m

UNIT_PKGS := ./cmd/... ./pkg/... ./plugin/... ./hack/tools/upstreamdeps/... ./hack/tools/gate-inventory/... ./hack/tools/lifecycle-fixtures/... ./hack/tools/version-changes/... ./staging/src/k8s.io/features/...
INTEGRATION_PKGS := ./test/integration/...

.PHONY: all build test test-unit test-integration test-e2e test-e2e-faults images node-image kind bench verify update clean etcd rebase

all: build

# Our binaries, built in one go build (Go decides what is stale, cheaply).
COMMANDS := kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl-features

build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags "$$(hack/lib/version.sh)" -o $(BIN)/ $(addprefix ./cmd/,$(COMMANDS))

etcd:
	hack/install-etcd.sh

test: test-unit test-integration

test-unit:
	$(GO) test $(GOTEST_FLAGS) $(UNIT_PKGS)

# Checks a machine cannot run (the kubelet needs root) are recorded in
# $(SKIP_LOG) and reported loudly; under CI (CI=true) any of them fails.
SKIP_LOG := $(OUT)/skipped-integration-checks.txt

test-integration: etcd build
	@mkdir -p $(OUT) && rm -f $(SKIP_LOG)
	FEATUREFLAGS_BIN_DIR=$(CURDIR)/$(BIN) FEATUREFLAGS_SKIP_LOG=$(CURDIR)/$(SKIP_LOG) \
	  $(GO) test $(GOTEST_FLAGS) $(INTEGRATION_FLAGS) $(INTEGRATION_PKGS)
	hack/report-skips.sh $(SKIP_LOG)

# Control-plane images of our binaries (static builds in _output/images/bin)
# and etcd, FROM scratch, tagged featureflags/<name>:e2e and as kubeadm
# expects (registry.k8s.io/<name>:<release>).
images:
	hack/build-images.sh

# The kind node image of this tree (kind create cluster --image
# featureflags/node:<release>): a Debian root file system, containerd, runc,
# crictl and CNI plugins from their Go modules, our kubelet, upstream's
# kubeadm and kubectl, and the images above plus pause, CoreDNS and ffnetd
# imported into containerd. Built offline; cached under _output/node.
node-image:
	hack/build-node-image.sh

# kind itself, from its Go module (hack/install-kind.sh), into $(BIN)/kind:
# test/e2e/node creates a cluster from the node image with it.
kind:
	hack/install-kind.sh

# End-to-end tests on a Docker engine: the harness's own test and the fault
# tests (test/e2e). They are not part of make test. FEATUREFLAGS_E2E=1 makes
# a missing engine or image fail them instead of skipping them; -v prints
# what they measured.
E2E_PKGS := ./test/e2e/...
E2E_FAULT_PKGS := ./test/e2e/faults/...
E2E_FLAGS ?= -p 1 -timeout 60m -v

test-e2e: build images node-image kind
	FEATUREFLAGS_E2E=1 FEATUREFLAGS_E2E_NODE=1 FEATUREFLAGS_BIN_DIR=$(CURDIR)/$(BIN) \
	  $(GO) test $(GOTEST_FLAGS) $(E2E_FLAGS) $(E2E_PKGS)

test-e2e-faults: images
	FEATUREFLAGS_E2E=1 $(GO) test $(GOTEST_FLAGS) $(E2E_FLAGS) $(E2E_FAULT_PKGS)

bench: etcd build
	FEATUREFLAGS_BIN_DIR=$(CURDIR)/$(BIN) \
	  $(GO) test -run '^$$' -bench . -benchmem $(UNIT_PKGS) $(INTEGRATION_PKGS) | hack/bench-ratios.sh

verify:
	hack/verify.sh

# make rebase VERSION=v1.37.2: move to another upstream release (hack/rebase.sh).
rebase:
	hack/rebase.sh $(if $(ALLOW_DOWNGRADE),--allow-downgrade) $(VERSION)

update:
	hack/update-codegen.sh
	hack/update-openapi-spec.sh

clean:
	rm -rf $(OUT)
