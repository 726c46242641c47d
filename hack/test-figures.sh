#!/usr/bin/env bash
# Extracts the figures tests print from `go test -v` output, for
# docs/figures: every one-line t.Logf/b.Logf of a test or benchmark, as
# "<TopLevelTest>: <message>", each top-level test's result as
# "<TopLevelTest>: PASS (<seconds>s)", and each benchmark result as
# "<Benchmark/case>: <the result line's measurements>". hack/update-docs.sh
# quotes a test's lines where the KEP cites it (a block named
# "test <TopLevelTest>"), so that a figure in the KEP is the test's own
# words from a named run, never typed by hand.
#
# Usage: hack/test-figures.sh <what was run> <log>... > docs/figures/<kind>.txt
#   e.g. GOTEST_FLAGS=-v hack/test.sh integration 2>&1 | tee /tmp/integration.log
#        hack/test-figures.sh "GOTEST_FLAGS=-v hack/test.sh integration" /tmp/integration.log \
#          > docs/figures/integration.txt
#   (hack/test.sh e2e-faults and e2e run with -v already; make bench prints
#   its benchmarks' lines.)
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/figures.sh"
if [[ $# -lt 2 ]]; then featureflags::figures::usage "$0"; fi
what=$1
shift
featureflags::figures::header hack/test-figures.sh "the figures logged by ${what}"
# Messages are cut at 600 characters; a message spanning several lines
# (a component's log tail) keeps its first line only. Only the packages of
# the feature lifecycle count (a package path with "feature" in it:
# features, featurelifecycle, featuregate; go test prints each package's
# output whole, ending with its ok or FAIL line), and of their lines only
# those of a _test.go file: upstream's test server logs its flags with
# t.Logf from testserver.go.
awk '
  function flush(pkg) { if (pkg ~ /feature/) printf "%s", buf; buf = "" }
  /^(ok|FAIL|---)[ \t]+k8s\.io\// { flush($2); next }
  function top(name) { sub(/\/.*/, "", name); return name }
  function out(name, msg) {
    gsub(/[ \t]+$/, "", msg)
    if (length(msg) > 600) msg = substr(msg, 1, 597) "..."
    if (msg != "") buf = buf name ": " msg "\n"
  }
  /^=== (RUN|CONT|NAME|PAUSE) / { current = top($3); next }
  /^--- (PASS|FAIL|SKIP): / {
    name = $3
    if (index(name, "/") == 0) { d = $4; gsub(/[()]/, "", d); buf = buf name ": " substr($2, 1, length($2) - 1) " (" d ")\n" }
    next
  }
  /^Benchmark[^ \t]*$/ { current = top($1); next }
  /^Benchmark[^ \t]*[ \t]+[0-9]+[ \t]/ {
    name = $1; sub(/-[0-9]+$/, "", name); current = top(name)
    rest = ""; for (i = 3; i <= NF; i++) rest = rest (rest == "" ? "" : " ") $i
    out(name, rest)
    next
  }
  /^ +[^ ]+_test\.go:[0-9]+: / {
    if (current == "") next
    msg = $0; sub(/^ +[^ ]+_test\.go:[0-9]+: /, "", msg)
    out(current, msg)
  }
' "$@"
