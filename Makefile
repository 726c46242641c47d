# Targets of the feature lifecycle patch set (KEP-3920). See README.md.
#
#   make            build our binaries into _output/bin
#   make test       unit + integration tests (etcd is built from its Go module)
#   make verify     generated code and api/openapi-spec are fresh, gofmt, go vet
#   make update     regenerate everything generated (the OpenAPI spec needs etcd)
#   make bench      benchmarks (ratios against upstream in one run)
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

UNIT_PKGS := ./cmd/... ./pkg/... ./plugin/... ./hack/tools/upstreamdeps/... ./hack/tools/gate-inventory/... ./staging/src/k8s.io/features/...
INTEGRATION_PKGS := ./test/integration/...

.PHONY: all build test test-unit test-integration bench verify update clean etcd rebase

all: build

# Our binaries, built in one go build (Go decides what is stale, cheaply).
COMMANDS := kube-apiserver kube-controller-manager kube-scheduler kubelet

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
