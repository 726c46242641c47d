#!/usr/bin/env bash
# Measures what the feature lifecycle costs kube-apiserver at idle: one
# etcd, one kube-apiserver of this tree (_output/bin), nothing else, with
# the FeatureLifecycle gate on and then off, the same binary and the same
# etcd data (the Features of every gate exist: a first start with the gate
# on announces them). For each mode, kube-apiserver is restarted and
# measured:
#
#   start to ready     CPU seconds of the process until /readyz is ok
#   idle CPU           CPU seconds over IDLE seconds after ready (120)
#   RSS                VmRSS at the end of the idle period
#   sys / live heap    runtime.MemStats Sys and HeapAlloc right after a
#                      forced GC (/debug/pprof/heap?gc=1&debug=1)
#   API requests       the growth of apiserver_request_total over the idle
#                      period, by verb and resource (-v prints them)
#
# with, for each row but Sys / live heap, how the median with the gate on
# compares with the median with it off. The table is printed as Markdown,
# with the machine's load average before and after, under the header of a
# docs/figures data file. The CPU figures come from /proc/<pid>/stat. The
# start's own CPU varies by a few tenths of a second from one start to the
# next, whatever the gate (the RSA key of the loopback certificate is
# generated anew at every start): take several ROUNDS.
#
# Usage: hack/measure-idle.sh [-v] [> docs/figures/idle.txt]
# Environment: IDLE (seconds, default 120), ROUNDS (how many times each
#   mode is measured, alternating on and off; default 1), SKIP_BUILD=true
#   (use _output/bin/kube-apiserver as it is), KEEP=true (keep the
#   temporary directory with the logs), PROFILES (a directory: the heap
#   profile after a GC and the profile of every allocation since the start
#   of each mode are saved there at the end of its idle period, for
#   go tool pprof), LIFECYCLE_CONFIG (a file passed to
#   the gate-on runs as --feature-lifecycle-config-file).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/figures.sh"

verbose=false
[[ "${1:-}" == "-v" ]] && verbose=true
IDLE=${IDLE:-120}
ROUNDS=${ROUNDS:-1}

if [[ "${SKIP_BUILD:-false}" != true ]]; then
  "${FEATUREFLAGS_ROOT}/hack/build.sh" kube-apiserver
fi
[[ -x "${ETCD_DIR}/etcd" ]] || "${FEATUREFLAGS_ROOT}/hack/install-etcd.sh"

dir=$(mktemp -d /tmp/featureflags-measure-idle.XXXXXX)
etcd_pid="" apiserver_pid=""
cleanup() {
  local rc=$?
  [[ -n "${apiserver_pid}" ]] && kill "${apiserver_pid}" 2>/dev/null && { wait "${apiserver_pid}" 2>/dev/null || true; }
  [[ -n "${etcd_pid}" ]] && kill "${etcd_pid}" 2>/dev/null && { wait "${etcd_pid}" 2>/dev/null || true; }
  if [[ "${KEEP:-false}" == true ]]; then echo "logs in ${dir}" >&2; else rm -rf "${dir}"; fi
  exit "${rc}"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
etcd_port=$(free_port) peer_port=$(free_port) port=$(free_port)
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "${token},measure,measure,system:masters" >"${dir}/tokens.csv"
openssl genrsa -out "${dir}/sa.key" 2048 2>/dev/null

"${ETCD_DIR}/etcd" --data-dir "${dir}/etcd" --listen-client-urls "http://127.0.0.1:${etcd_port}" \
  --advertise-client-urls "http://127.0.0.1:${etcd_port}" --listen-peer-urls "http://127.0.0.1:${peer_port}" \
  >"${dir}/etcd.log" 2>&1 &
etcd_pid=$!

api() { curl -sk -H "Authorization: Bearer ${token}" "https://127.0.0.1:${port}$1"; }
# cpu prints the CPU seconds (user + system) pid used so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
# requests prints "verb resource count" for every apiserver_request_total series.
requests() {
  api /metrics | awk '/^apiserver_request_total\{/ {
    match($0, /verb="[^"]*"/); verb = substr($0, RSTART + 6, RLENGTH - 7)
    match($0, /resource="[^"]*"/); res = substr($0, RSTART + 10, RLENGTH - 11)
    n[verb " " res] += $NF } END { for (k in n) print k, n[k] }' | sort
}

# start starts kube-apiserver with the gate in mode (on|off) and waits until
# /readyz is ok; it sets apiserver_pid and ready_cpu.
start() {
  local mode=$1 flags=()
  if [[ "${mode}" == on ]]; then
    flags=(--feature-gates=FeatureLifecycle=true --runtime-config=features.k8s.io/v1alpha1=true)
    [[ -n "${LIFECYCLE_CONFIG:-}" ]] && flags+=(--feature-lifecycle-config-file="${LIFECYCLE_CONFIG}")
  fi
  "${BIN}/kube-apiserver" --etcd-servers="http://127.0.0.1:${etcd_port}" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="${port}" \
    --endpoint-reconciler-type=none --cert-dir="${dir}/certs" \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="${dir}/sa.key" \
    --service-account-signing-key-file="${dir}/sa.key" --token-auth-file="${dir}/tokens.csv" \
    --authorization-mode=RBAC --service-cluster-ip-range=10.0.0.0/24 "${flags[@]}" \
    >>"${dir}/kube-apiserver-${mode}.log" 2>&1 &
  apiserver_pid=$!
  local deadline=$((SECONDS + 180))
  until [[ "$(api /readyz 2>/dev/null)" == ok ]]; do
    kill -0 "${apiserver_pid}" 2>/dev/null || { tail -20 "${dir}/kube-apiserver-${mode}.log" >&2; exit 1; }
    ((SECONDS < deadline)) || { echo "kube-apiserver not ready after 180s" >&2; exit 1; }
    sleep 0.05
  done
  ready_cpu=$(cpu "${apiserver_pid}")
}

stop() {
  kill "${apiserver_pid}" && wait "${apiserver_pid}" 2>/dev/null || true
  apiserver_pid=""
}

# First start with the gate on: the announcer creates every Feature.
start on
features=0
for _ in $(seq 1 300); do
  features=$(api /apis/features.k8s.io/v1alpha1/namespaces/kube-system/features | jq '.items | length')
  states=$(api /apis/features.k8s.io/v1alpha1/namespaces/kube-system/features | jq '[.items[] | select(.status.state != null)] | length')
  ((features > 0 && states == features)) && break
  sleep 1
done
stop
echo "Features in kube-system: ${features}" >&2

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A result
for round in $(seq 1 "${ROUNDS}"); do
  for mode in on off; do
    start "${mode}"
    before=$(requests)
    cpu0=$(cpu "${apiserver_pid}")
    sleep "${IDLE}"
    cpu1=$(cpu "${apiserver_pid}")
    after=$(requests)
    rss=$(awk '/^VmRSS:/ { printf "%d", $2 / 1024 }' "/proc/${apiserver_pid}/status")
    heap=$(api '/debug/pprof/heap?gc=1&debug=1' | awk '/^# Sys = / { sys = $4 } /^# HeapAlloc = / { heap = $4 } END { printf "%d %d", sys / 1048576, heap / 1048576 }')
    if [[ -n "${PROFILES:-}" ]]; then
      mkdir -p "${PROFILES}"
      api '/debug/pprof/heap?gc=1' >"${PROFILES}/heap-${mode}-${round}.pb.gz"
      api /debug/pprof/allocs >"${PROFILES}/allocs-${mode}-${round}.pb.gz"
    fi
    total=$(join -a 2 -j 1 <(echo "${before}" | awk '{ print $1 "/" $2, $3 }' | sort) <(echo "${after}" | awk '{ print $1 "/" $2, $3 }' | sort) |
      awk '{ d = (NF == 3 ? $3 - $2 : $2); if (d > 0) { print d, $1 > "/dev/stderr"; t += d } } END { print t + 0 }' 2>"${dir}/requests-${mode}-${round}")
    idle_cpu=$(awk -v a="${cpu0}" -v b="${cpu1}" 'BEGIN { printf "%.2f", b - a }')
    result[${mode},rss]+="${rss} " result[${mode},mem]+="${heap% *}/${heap#* } " result[${mode},idle]+="${idle_cpu} "
    result[${mode},ready]+="${ready_cpu} " result[${mode},requests]+="${total} "
    if [[ "${verbose}" == true ]]; then
      echo "== ${mode}, round ${round}: requests in ${IDLE} s" >&2
      sort -rn "${dir}/requests-${mode}-${round}" >&2
    fi
    stop
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# median prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# compare prints how the median of on compares with that of off: a ratio
# (ratio), a change in per cent (percent) or a difference (difference).
compare() {
  local how=$1 on off
  on=$(median ${result[on,$2]}) off=$(median ${result[off,$2]})
  case "${how}" in
    ratio) awk -v a="${on}" -v b="${off}" 'BEGIN { printf "%.2f×", a / b }' ;;
    percent) awk -v a="${on}" -v b="${off}" 'BEGIN { printf "%+.0f %%", (a / b - 1) * 100 }' ;;
    difference) awk -v a="${on}" -v b="${off}" 'BEGIN { printf "%+d", a - b }' ;;
  esac
}
row() {
  printf '| %s | %s | %s | %s |\n' "$1" "$(echo ${result[on,$2]} | sed 's/ \([0-9]\)/, \1/g')" \
    "$(echo ${result[off,$2]} | sed 's/ \([0-9]\)/, \1/g')" "${3:+$(compare "$3" "$2")}"
}
featureflags::figures::header hack/measure-idle.sh "kube-apiserver at idle, one etcd and nothing else, FeatureLifecycle on and off (same binary and etcd data), ${features} Features, ${ROUNDS} round(s) of ${IDLE} s, load average before ${load_before}, after ${load_after}"
echo "| | on | off | on against off (medians) |"
echo "|---|---|---|---|"
row "RSS after restart, idle (MB)" rss percent
row "Sys / live heap after GC (MB)" mem
row "CPU in ${IDLE} s idle (after restart, s)" idle ratio
row "CPU from start to ready (s)" ready ratio
row "API requests in those ${IDLE} s" requests difference
