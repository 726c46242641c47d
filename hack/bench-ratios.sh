#!/usr/bin/env bash
# Reads `go test -bench` output on stdin, passes it through, and prints for
# every benchmark with an upstream/<case> and an ours/<case> (or reporting/<case>)
# sub-benchmark the ratio ours/upstream of ns/op, from the same run.
set -o errexit -o nounset -o pipefail
awk '
  { print }
  /^Benchmark/ && / ns\/op/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") ns = $i
    n = split(name, parts, "/")
    if (n < 3) next
    kind = parts[n-1]; key = parts[1] "/" parts[n]
    if (kind == "upstream") up[key] = ns
    else if (kind == "reporting" || kind == "ours") mine[key] = ns
  }
  END {
    printed = 0
    for (k in mine) if (k in up) {
      if (!printed) { print ""; print "Ratios (ours / upstream, ns/op, same run):"; printed = 1 }
      printf "  %-40s %8.3f  (%s / %s ns/op)\n", k, mine[k] / up[k], mine[k], up[k]
    }
  }'
