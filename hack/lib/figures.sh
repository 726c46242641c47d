#!/usr/bin/env bash
# Sourced by the scripts that write docs/figures: the header every data
# file starts with, so that a figure names the run and machine it came from.

FIGURES_DIR=${FIGURES_DIR:-${FEATUREFLAGS_ROOT}/docs/figures}

# featureflags::figures::machine prints the machine a measurement ran on:
# "<cores> cores, <memory> GiB".
featureflags::figures::machine() {
  local kib
  kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
  echo "$(nproc) cores, $(( (kib + 524288) / 1048576 )) GiB"
}

# featureflags::figures::header <producer> <what> prints a data file's
# header: who wrote it, from what, on which series tip and machine, when.
featureflags::figures::header() {
  local producer=$1 what=$2 tip
  tip=$(git -C "${TREE}" log -1 --format='%h %s' 2>/dev/null || echo unknown)
  echo "# Written by ${producer}: ${what}."
  echo "# Series tip: ${tip}"
  echo "# Machine: $(featureflags::figures::machine); measured $(date -u +%Y-%m-%d)."
}

# featureflags::figures::usage <script> prints the script's header comment
# (its usage) to stderr and exits 2.
featureflags::figures::usage() {
  sed -n '2,/^set /p' "$1" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
