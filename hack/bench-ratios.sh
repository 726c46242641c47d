#!/usr/bin/env bash
# Reads `go test -bench` output on stdin, passes it through, and prints for
# every benchmark with an upstream/<case> and an ours/<case> (or reporting/<case>)
# sub-benchmark the ratio ours/upstream of ns/op, and for every one with a
# before/<case> and an after/<case> the ratio after/before of ns/op and of
# allocations, from the same run.
set -o errexit -o nounset -o pipefail
awk '
  { print }
  /^Benchmark/ && / ns\/op/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") ns = $i
    n = split(name, parts, "/")
    if (n < 3) next
    kind = parts[n-1]; key = parts[1] "/" parts[n]
    allocs = ""
    for (i = 2; i < NF; i++) if ($(i+1) == "allocs/op") allocs = $i
    if (kind == "upstream") up[key] = ns
    else if (kind == "reporting" || kind == "ours") mine[key] = ns
    else if (kind == "before") { beforeNs[key] = ns; beforeAllocs[key] = allocs }
    else if (kind == "after") { afterNs[key] = ns; afterAllocs[key] = allocs }
  }
  END {
    printed = 0
    for (k in mine) if (k in up) {
      if (!printed) { print ""; print "Ratios (ours / upstream, ns/op, same run):"; printed = 1 }
      printf "  %-40s %8.3f  (%s / %s ns/op)\n", k, mine[k] / up[k], mine[k], up[k]
    }
    printed = 0
    for (k in afterNs) if (k in beforeNs) {
      if (!printed) { print ""; print "Ratios (after / before, ns/op and allocs/op, same run):"; printed = 1 }
      line = sprintf("  %-40s %8.3f  (%s / %s ns/op)", k, afterNs[k] / beforeNs[k], afterNs[k], beforeNs[k])
      if (beforeAllocs[k] > 0) line = line sprintf("  %8.3f  (%s / %s allocs/op)", afterAllocs[k] / beforeAllocs[k], afterAllocs[k], beforeAllocs[k])
      print line
    }
  }'
