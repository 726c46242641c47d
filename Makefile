# Targets of the feature lifecycle patch set (KEP-3920). See README.md.
#
#   make            build our binaries into _output/bin
#   make test       unit + integration tests (etcd is built from its Go module)
#   make verify     generated code is fresh, gofmt, go vet
#   make update     regenerate everything generated
#   make bench      benchmarks (ratios against upstream in one run)

SHELL := /usr/bin/env bash -o errexit -o nounset -o pipefail
GO ?= go
OUT := _output
BIN := $(OUT)/bin
ETCD := third_party/etcd/etcd
GOTEST_FLAGS ?=
# Integration tests start apiservers; keep them to one package at a time on
# small machines.
INTEGRATION_FLAGS ?= -p 1 -timeout 30m

UNIT_PKGS := ./cmd/... ./pkg/... ./staging/src/k8s.io/features/...
INTEGRATION_PKGS := ./test/integration/...

.PHONY: all build test test-unit test-integration bench verify update clean etcd

all: build

build: $(BIN)/kube-apiserver

# Go decides what is stale; always ask it (cheap when nothing changed).
.PHONY: $(BIN)/kube-apiserver
$(BIN)/kube-apiserver:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/kube-apiserver

etcd:
	hack/install-etcd.sh

test: test-unit test-integration

test-unit:
	$(GO) test $(GOTEST_FLAGS) $(UNIT_PKGS)

test-integration: etcd build
	FEATUREFLAGS_KUBE_APISERVER=$(CURDIR)/$(BIN)/kube-apiserver \
	  $(GO) test $(GOTEST_FLAGS) $(INTEGRATION_FLAGS) $(INTEGRATION_PKGS)

bench: etcd build
	FEATUREFLAGS_KUBE_APISERVER=$(CURDIR)/$(BIN)/kube-apiserver \
	  $(GO) test -run '^$$' -bench . -benchmem $(UNIT_PKGS) $(INTEGRATION_PKGS)

verify:
	hack/verify.sh

update:
	hack/update-codegen.sh

clean:
	rm -rf $(OUT)
