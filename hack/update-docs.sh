#!/usr/bin/env bash
# Writes the figures of the docs from where they are measured, so that none
# is typed by hand and none goes stale silently.
#
# The docs (every *.md of ours, and the KEP's kep.yaml) hold generated
# blocks between markers:
#
#   <!-- BEGIN GENERATED: <block> -->      (# BEGIN GENERATED: <block> in YAML)
#   ...
#   <!-- END GENERATED: <block> -->
#
# and this script rewrites what is between them. Each block comes from a
# data file of docs/figures (see its README.md: which script or test wrote
# it, on which series tip and machine) or from a cheap command run here:
#
#   series, series-summary   the series' subjects (docs/figures/series.txt,
#                            written here from patches/)
#   churn                    hack/churn.sh (docs/figures/churn.txt, written here)
#   metrics, metrics-yaml    the metrics the code registers (read from the code)
#   coverage                 docs/figures/coverage.txt (hack/measure-coverage.sh)
#   ci-timings               docs/figures/ci-timings.txt (hack/ci-timings.sh)
#   bench-gate               hack/bench-gate.figures
#   objects, idle            docs/figures/objects.txt (hack/measure-objects.sh),
#                            docs/figures/idle.txt (its measuring script)
#   inventory                the counts of the generated gate inventory
#   test <Test>              the lines <Test> logged, from docs/figures/{unit,
#                            integration,e2e-faults,e2e,bench}.txt
#                            (hack/test-figures.sh)
#
# Usage: hack/update-docs.sh           rewrite the cheap data files and every block
#        hack/update-docs.sh --check   change nothing; fail when a cheap data file
#                                      or a block is stale, README.md has 350 lines
#                                      or more, a document links outside the
#                                      repository, or kep.yaml's metrics are not
#                                      the code's (make verify runs it)
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
cd "${FEATUREFLAGS_ROOT}"
FIGURES=docs/figures
KEP=docs/keps/3920-finish-feature-flags
check=false
[[ "${1:-}" == "--check" ]] && check=true

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
failures=()

# --- the cheap data files -------------------------------------------------

# series_txt prints the series: "<NNNN> <subject>" per patch.
series_txt() {
  echo "# Written by hack/update-docs.sh: the series' commits on $(<patches/RELEASE), in order, from patches/*.patch."
  local f
  for f in patches/[0-9][0-9][0-9][0-9]-*.patch; do
    awk -v n="$(basename "${f}" | cut -c1-4)" '
      /^Subject: / { s = substr($0, 10); while ((getline line) > 0 && line ~ /^ /) s = s line; print n, s; exit }' "${f}"
  done
}

# churn_txt prints hack/churn.sh's table (it ensures the tree).
churn_txt() {
  echo "# Written by hack/churn.sh: hand-written lines of the series in upstream's code (hack/update-docs.sh runs it)."
  hack/churn.sh
}

series_txt >"${work}/series.txt"
churn_txt >"${work}/churn.txt"
for f in series.txt churn.txt; do
  if ${check}; then
    cmp -s "${work}/${f}" "${FIGURES}/${f}" || failures+=("${FIGURES}/${f} is stale")
  else
    cp "${work}/${f}" "${FIGURES}/${f}"
  fi
done

# --- the blocks -----------------------------------------------------------

# provenance <data file> prints the line that names where a block comes
# from: the script that wrote it, the series tip and the machine; or, for a
# file written by hand (transcribed from an earlier run's record, or a
# placeholder), what its header says of itself.
provenance() {
  local file=$1 name
  name=$(basename "${file}")
  local by what tip machine note source
  by=$(sed -n 's/^# Written by \([^:]*\):.*/\1/p' "${file}" | head -1)
  what=$(sed -n 's/^# Written by [^:]*: //p' "${file}" | head -1)
  note=$(sed -n 's/^# Written by hand: //p' "${file}" | head -1)
  tip=$(sed -n 's/^# Series tip: //p' "${file}" | head -1)
  machine=$(sed -n 's/^# Machine: //p' "${file}" | head -1)
  source=$(sed -n 's/^# Source: //p' "${file}" | head -1)
  if [[ -z "${by}" || "${by}" == hand ]]; then
    printf '<sub>Generated from `docs/figures/%s`, written by hand: %s' "${name}" "${note%.}"
  else
    printf '<sub>Generated from `docs/figures/%s`, written by `%s` from %s' "${name}" "${by}" "${what%.}"
    [[ -n "${tip}" ]] && printf ' on the series tip `%s`' "${tip%% *}"
  fi
  [[ -n "${machine}" ]] && printf ' (%s)' "${machine%.}"
  [[ -n "${source}" ]] && printf '; source: %s' "${source%.}"
  printf '.</sub>\n'
}

data() { grep -v '^#' "$1" | grep -v '^[[:space:]]*$' || true; }

render_series() {
  local n=0
  while read -r num subject; do
    n=$((n + 1))
    printf '%d. `%s` (`patches/%s-*`)\n' "${n}" "${subject}" "${num}"
  done < <(data "${FIGURES}/series.txt")
}

render_series_summary() {
  printf 'The series is %d commits on kubernetes %s (`patches/`).\n' \
    "$(data "${FIGURES}/series.txt" | wc -l)" "$(<patches/RELEASE)"
}

render_churn() {
  provenance "${FIGURES}/churn.txt"
  echo
  echo '| # | commit | + | − | new | tests of new |'
  echo '| ---: | --- | ---: | ---: | ---: | ---: |'
  data "${FIGURES}/churn.txt" | awk '
    $1 == "#" { next }
    $5 == "total:" {
      s = $0; sub(/^.*total: /, "", s)
      printf "| | **total: %s** | **%d** | **%d** | **%d** | **%d** |\n", s, $1, $2, $3, $4; next }
    $1 ~ /^[0-9]+$/ && NF >= 6 {
      if ($2 + $3 + $4 + $5 == 0) next
      s = $0; sub(/^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+  /, "", s)
      printf "| %d | %s | %d | %d | %d | %d |\n", $1, s, $2, $3, $4, $5 }'
  echo
  echo 'Commits that change no upstream file by hand are left out: their'
  echo 'upstream changes, if any, are generated.'
}

# metrics_list prints "<name> <kind> <labels> <help>" (tab-separated) of
# every metric our non-test code registers.
metrics_list() {
  local files
  mapfile -t files < <(git ls-files 'pkg/featurelifecycle/*.go' 'staging/src/k8s.io/features/*.go' 'plugin/pkg/admission/feature*/*.go' |
    grep -v '_test\.go$' | xargs grep -l 'metrics\.New[A-Za-z]*Vec(' || true)
  [[ ${#files[@]} -eq 0 ]] && return 0
  awk '
    function q(line,   s) { s = line; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); return s }
    FNR == 1 { subsys = "" }
    /const metricsSubsystem = "/ { subsys = q($0) }
    /metrics\.New[A-Za-z]*Vec\(/ { on = 1; kind = $0; sub(/.*metrics\.New/, "", kind); sub(/Vec\(.*/, "", kind); ns = ""; ss = ""; nm = ""; help = ""; labels = "" }
    on && /Namespace:/ { ns = q($0) }
    on && /Subsystem:/ { ss = ($0 ~ /"/) ? q($0) : subsys }
    on && /Name:/ && !/Subsystem|Namespace/ { nm = q($0) }
    on && /Help:/ { help = $0; sub(/^[^"]*"/, "", help); sub(/",[ \t]*$/, "", help) }
    on && /\[\]string\{/ {
      labels = $0; sub(/.*\[\]string\{/, "", labels); sub(/\}.*/, "", labels); gsub(/"/, "", labels); gsub(/, */, ", ", labels)
      printf "%s_%s_%s\t%s\t%s\t%s\n", ns, ss, nm, tolower(kind), labels, help; on = 0 }
  ' "${files[@]}" | sort
}

render_metrics() {
  echo '| metric | kind | labels | what it says |'
  echo '| --- | --- | --- | --- |'
  metrics_list | awk -F '\t' '{ h = $4; gsub(/\|/, "\\|", h); printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, h }'
}

render_metrics_yaml() {
  metrics_list | awk -F '\t' '{ printf "  - %s\n", $1 }'
}

render_coverage() {
  local file="${FIGURES}/coverage.txt"
  provenance "${file}"
  echo
  echo '| package | statements covered |'
  echo '| --- | ---: |'
  data "${file}" | awk '{ printf "| `%s` | %s |\n", $1, $2 }'
}

render_ci_timings() {
  local file="${FIGURES}/ci-timings.txt"
  provenance "${file}"
  echo
  echo '| stage | from (min) | takes (min) |'
  echo '| --- | ---: | ---: |'
  # Each stage runs from the first status line matching its start to the
  # first later one matching its end; make verify's runs alongside the
  # integration stage.
  data "${file}" | awk '
    $1 == "at" { n++; t[n] = $2; s = $0; sub(/^at [0-9]+ /, "", s); msg[n] = s }
    $1 == "total" { total = $2 }
    function stage(name, from, to,   i, j) {
      for (i = 1; i <= n; i++) if (msg[i] ~ from) break
      if (i > n) return
      for (j = i + 1; j <= n; j++) if (msg[j] ~ to) break
      if (j > n) return
      printf "| %s | %.1f | %.1f |\n", name, t[i] / 60, (t[j] - t[i]) / 60
    }
    END {
      stage("unit tests (`hack/test.sh unit`)", "^go test \\./pkg/", "^hack/tools/tree")
      stage("the tree tool'"'"'s tests, etcd and the binaries the tests start", "^hack/tools/tree", "^alongside the integration tests")
      stage("our integration packages (`test/integration/features/...`)", "^go test .*-timeout 10m \\./test/integration/features/", "^our integration packages ended")
      stage("`make verify` && `make images`, alongside our integration packages", "^gofmt of our files", "^go test -timeout 10m \\./test/integration/")
      stage("&nbsp;&nbsp;`go vet` of our packages", "^go vet of our packages", "^upstream.s hack/verify-gofmt")
      stage("&nbsp;&nbsp;upstream'"'"'s verify scripts and import restrictions", "^upstream.s hack/verify-gofmt", "^generated code$")
      stage("&nbsp;&nbsp;generated code (upstream'"'"'s generators)", "^generated code$", "^lifecycle data$")
      stage("&nbsp;&nbsp;lifecycle data (the inventory'"'"'s generators)", "^lifecycle data$", "^api/openapi-spec and api/discovery$")
      stage("&nbsp;&nbsp;OpenAPI spec and discovery documents", "^api/openapi-spec and api/discovery$", "^the series applies")
      stage("&nbsp;&nbsp;the series applies; the rebase is a no-op", "^the series applies", "^the rebase onto .* is a no-op$")
      stage("upstream'"'"'s gate-off integration set", "^go test -timeout 10m \\./test/integration/", "^output of ")
      stage("`make bench-gate`", "^the migrator and the derived clear", "e2e_features/faults")
      stage("the fault tests on Docker (`hack/test.sh e2e-faults`)", "e2e_features/faults", "^\\.ci/run passed")
      if (total) printf "| **the whole `.ci/run`** | | **%.1f** (%d s) |\n", total / 60, total
    }'
  echo
  echo '| integration or end-to-end package | seconds |'
  echo '| --- | ---: |'
  data "${file}" | awk '$1 == "package" && $3 ~ /^test\// { printf "%d %s\n", $2 + 0.5, $3 }' |
    sort -rn | awk '{ printf "| `%s` | %d |\n", $2, $1 }'
}

render_bench_gate() {
  echo '<sub>Generated from `hack/bench-gate.figures`, the speeds `make bench-gate` holds CI to (the reference'"'"'s time over ours: higher is faster).</sub>'
  echo
  echo '| benchmark | recorded speed |'
  echo '| --- | ---: |'
  data hack/bench-gate.figures | awk '{ printf "| `%s` | %s |\n", $1, $2 }'
}

# render_inventory prints the gate inventory's counts (it is generated, and
# make verify checks it fresh).
render_inventory() {
  local inv=pkg/features/inventory/zz_generated.inventory.yaml
  echo '<sub>Generated from the counts of `'"${inv}"'` (cmd/feature-inventory-gen).</sub>'
  echo
  echo '| inventory of upstream'"'"'s strategies | count |'
  echo '| --- | ---: |'
  awk -F ': ' '/^(upstreamVersion|emulationVersion|seedsPerResource|singleFieldObjects|gatesExamined|gatesLockedSkipped|resourcesExamined|gatesWithFieldFootprint|gatesWithStatusFieldFootprint|gatesWithValueFootprint|gatesStricterWhenOn):/ {
    v = $2; gsub(/"/, "", v); printf "| `%s` | %s |\n", $1, v }' "${inv}"
  printf '| `resourcesServedOnlyWith` (gates) | %s |\n' "$(sed -n '/^resourcesServedOnlyWith:/,/^[a-z]/p' "${inv}" | grep -c '^  [A-Za-z]')"
}

render_lines() {
  local file="${FIGURES}/$1.txt"
  provenance "${file}"
  echo
  data "${file}" | sed 's/^/    /'
}

render_test() {
  local test=$1 file found=false
  for file in "${FIGURES}"/unit.txt "${FIGURES}"/integration.txt "${FIGURES}"/e2e-faults.txt "${FIGURES}"/e2e.txt "${FIGURES}"/bench.txt; do
    [[ -f "${file}" ]] || continue
    if data "${file}" | grep -q "^${test}[:/]"; then
      provenance "${file}"
      echo
      data "${file}" | grep "^${test}[:/]" | sed 's/^/    /'
      found=true
      break
    fi
  done
  ${found} || { echo "no figures of ${test} in ${FIGURES}" >&2; return 1; }
}

# render <block> writes the block's content to stdout.
render() {
  local block=$1
  case "${block}" in
    series) render_series ;;
    series-summary) render_series_summary ;;
    churn) render_churn ;;
    metrics) render_metrics ;;
    metrics-yaml) render_metrics_yaml ;;
    coverage) render_coverage ;;
    ci-timings) render_ci_timings ;;
    bench-gate) render_bench_gate ;;
    inventory) render_inventory ;;
    objects | idle) render_lines "${block}" ;;
    test\ *) render_test "${block#test }" ;;
    *) echo "unknown generated block: ${block}" >&2; return 1 ;;
  esac
}

# In --check, the blocks are rendered from the cheap data files as they
# would be now, so that a stale block and a stale data file both show.
if ${check}; then
  mkdir -p "${work}/figures"
  cp "${FIGURES}"/*.txt "${work}/figures/"
  cp "${work}/series.txt" "${work}/churn.txt" "${work}/figures/"
  FIGURES="${work}/figures"
fi

mapfile -t docs < <(git ls-files --cached --others --exclude-standard -- '*.md' "${KEP}/kep.yaml" | sort -u |
  xargs grep -l 'BEGIN GENERATED: ' 2>/dev/null || true)
for doc in "${docs[@]}"; do
  [[ -f "${doc}" ]] || continue
  blocks="${work}/blocks"
  rm -rf "${blocks}"
  mkdir -p "${blocks}"
  i=0
  while IFS= read -r block; do
    i=$((i + 1))
    render "${block}" >"${blocks}/${i}" || { failures+=("${doc}: block \"${block}\" cannot be rendered"); : >"${blocks}/${i}"; }
  done < <(sed -n 's/^\(<!--\|#\) BEGIN GENERATED: \(.*[^ ]\)\( -->\)\{0,1\}$/\2/p' "${doc}" | sed 's/ -->$//')
  awk -v dir="${blocks}" '
    /^(<!--|#) BEGIN GENERATED: / { print; n++; f = dir "/" n; while ((getline line < f) > 0) print line; close(f); skip = 1; next }
    /^(<!--|#) END GENERATED: / { skip = 0 }
    !skip { print }
  ' "${doc}" >"${work}/rendered"
  if ! cmp -s "${work}/rendered" "${doc}"; then
    if ${check}; then
      failures+=("${doc}: generated blocks are stale")
      diff -u "${doc}" "${work}/rendered" | head -20 >&2 || true
    else
      cp "${work}/rendered" "${doc}"
      echo "updated ${doc}"
    fi
  fi
done
FIGURES=docs/figures

# --- checks that hold whether or not anything was rewritten ---------------

readme_lines=$(wc -l <README.md)
[[ ${readme_lines} -lt 350 ]] || failures+=("README.md has ${readme_lines} lines: a guide stays under 350")

# No link leaves the repository. Allowed: the staging modules' boilerplate
# that every staging repository of upstream carries (CONTRIBUTING.md,
# code-of-conduct.md); in Go comments, the license header and the API
# conventions' "More info" of every list and object metadata field.
mapfile -t md < <(git ls-files --cached --others --exclude-standard -- '*.md' |
  grep -Ev '^staging/src/k8s\.io/[^/]+/(CONTRIBUTING|code-of-conduct)\.md$' || true)
links=$(grep -nE 'https?://' "${md[@]}" /dev/null || true)
[[ -z "${links}" ]] || failures+=("links outside the repository in documents:
${links}")
mapfile -t gofiles < <(git ls-files --cached --others --exclude-standard -- '*.go' |
  grep -Ev '(zz_generated|generated\.pb\.go|_swagger_doc_generated\.go|/applyconfigurations/)' || true)
links=$(grep -nE '^[[:space:]]*//.*https?://' "${gofiles[@]}" /dev/null |
  grep -v 'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata$' || true)
[[ -z "${links}" ]] || failures+=("links outside the repository in Go comments:
${links}")
cites=$(grep -nE 'DESIGN\.md|shared/reference|\.\./shared/' "${md[@]}" "${gofiles[@]}" /dev/null || true)
[[ -z "${cites}" ]] || failures+=("documents outside the repository cited:
${cites}")

# kep.yaml names the metrics the code registers.
want=$(metrics_list | cut -f1)
have=$(awk '/^metrics:/ { m = 1; next } m && /^[a-z]/ { m = 0 } m && /^  - / { sub(/^  - /, ""); print }' "${KEP}/kep.yaml")
[[ "${want}" == "${have}" ]] || failures+=("${KEP}/kep.yaml's metrics are not the code's: run hack/update-docs.sh")

if [[ ${#failures[@]} -gt 0 ]]; then
  printf '%s\n' "${failures[@]}" >&2
  ${check} && echo "run hack/update-docs.sh (and the measuring script a stale data file names)" >&2
  exit 1
fi
