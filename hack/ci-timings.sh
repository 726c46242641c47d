#!/usr/bin/env bash
# Reads the log of a .ci/run and writes its timings for docs/figures: when
# each status line ("+++ [HH:MM:SS] ...", hack/lib/init.sh's
# featureflags::log) came, in seconds from the first, and how long each
# test package took ("ok <package> <seconds>s"), under a header naming the
# run and the machine. hack/update-docs.sh renders it as README.md's
# "Timings" table. .ci/run prints a status line first and last, so the
# total is the last line's time.
#
# Usage: hack/ci-timings.sh <what was run> <log> > docs/figures/ci-timings.txt
#   e.g. .ci/run 2>&1 | tee /tmp/ci.log
#        hack/ci-timings.sh "a clean-clone .ci/run" /tmp/ci.log > docs/figures/ci-timings.txt
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/figures.sh"
if [[ $# -ne 2 ]]; then featureflags::figures::usage "$0"; fi
featureflags::figures::header hack/ci-timings.sh "the status lines and package times of ${1}"
echo "# Lines: \"at <seconds> <status line>\", \"package <seconds> <package>\", \"total <seconds>\"."
# Status lines come from processes that run alongside (make verify's log is
# printed after the integration stage), so they are sorted by time; a time
# smaller than the first is taken to be after midnight.
lines=$(awk '
  function secs(t,   p) { split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
  /^\+\+\+ \[[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\] / {
    s = secs(substr($0, 6, 8)); if (first == "") first = s
    if (s < first) s += 86400
    msg = substr($0, 16); gsub(/\t/, " ", msg)
    if (length(msg) > 160) msg = substr(msg, 1, 157) "..."
    printf "at %d %s\n", s - first, msg
    if (s - first > last) last = s - first
    next
  }
  /^ok[ \t]+[^ \t]+[ \t]+[0-9.]+s/ {
    d = $3; sub(/s$/, "", d); p = $2; sub(/^k8s\.io\/kubernetes\//, "", p)
    printf "package %s %s\n", d, p
  }
  END { if (first != "") printf "total %d\n", last }
' "$2")
grep '^at ' <<<"${lines}" | sort -s -n -k2,2 || true
grep '^package ' <<<"${lines}" || true
grep '^total ' <<<"${lines}" || { echo "no status line in $2" >&2; exit 1; }
