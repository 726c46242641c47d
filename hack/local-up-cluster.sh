#!/usr/bin/env bash
# Starts a local control plane (etcd, and kube-apiserver,
# kube-controller-manager and kube-scheduler built from the patched tree,
# _output/tree, with the FeatureLifecycle gate on and features.k8s.io/v1alpha1
# served) for development, in the spirit of upstream's hack/local-up-cluster.sh
# but without kubelet, kube-proxy or a container runtime: no pod ever runs.
#
# Usage:
#   hack/local-up-cluster.sh          build, start, wait; Ctrl-C stops everything
#   hack/local-up-cluster.sh stop     stop a cluster started with ENABLE_DAEMON=true
#   hack/local-up-cluster.sh --help   print this text
#
# Options, from the environment:
#   DATA_DIR               etcd data, certificates, kubeconfigs, pids
#                          (default /tmp/featureflags-local-up); reused when it
#                          exists, certificates are only created when missing
#   LOG_DIR                one log file per process (default $DATA_DIR/logs)
#   LOG_LEVEL              --v of the Kubernetes components (default 2)
#   API_HOST               host name or IP the API server is reached at and
#                          certified for (default 127.0.0.1)
#   API_BIND_ADDR          --bind-address of kube-apiserver (default 127.0.0.1
#                          when API_HOST is loopback, else 0.0.0.0)
#   ADVERTISE_ADDRESS      --advertise-address of kube-apiserver (default
#                          API_HOST when it is an IP, else 127.0.0.1)
#   API_SECURE_PORT        kube-apiserver port (default 6443)
#   ETCD_PORT              etcd client port (default 2379)
#   ETCD_PEER_PORT         etcd peer port (default 2380)
#   KCM_SECURE_PORT        kube-controller-manager port (default 10257)
#   SCHEDULER_SECURE_PORT  kube-scheduler port (default 10259)
#   FEATURE_GATES          extra kube-apiserver gates, appended to
#                          FeatureLifecycle=true (e.g. "Foo=true,Bar=false")
#   COMPONENT_FEATURE_GATES  extra --feature-gates of kube-controller-manager
#                          and kube-scheduler, appended to FeatureLifecycle=true
#                          (e.g. "SchedulerAsyncPreemption=false"); they report
#                          what they find in their FeatureReports
#   RUNTIME_CONFIG         extra kube-apiserver --runtime-config entries,
#                          appended to features.k8s.io/v1alpha1=true
#   EMULATED_VERSION       --emulated-version of kube-apiserver,
#                          kube-controller-manager and kube-scheduler (e.g.
#                          1.36; default: the binaries' own version). Restart
#                          with another value to try an upgrade or a
#                          downgrade (README.md, "Upgrades and downgrades")
#   APISERVER_EXTRA_ARGS   extra kube-apiserver flags, split on spaces (e.g.
#                          "--feature-lifecycle-dynamic-gates=PodDeletionCost")
#   KUBE_CONTROLLERS       --controllers of kube-controller-manager (default *)
#   SKIP_BUILD             true: use the binaries already in _output/bin and
#                          third_party/etcd (etcd is still built when missing)
#   ENABLE_DAEMON          true: start everything, print how to use it and exit
#                          0, leaving the processes running (pids in
#                          $DATA_DIR/pids); "hack/local-up-cluster.sh stop" with
#                          the same DATA_DIR stops them
#   START_TIMEOUT          seconds to wait for each component (default 180)

set -o errexit -o nounset -o pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
ROOT=${FEATUREFLAGS_ROOT}
BIN_DIR="${BIN}"
ETCD_BIN="${ETCD_DIR}/etcd"
BUILD_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubectl kubectl-features)

DATA_DIR=${DATA_DIR:-/tmp/featureflags-local-up}
LOG_DIR=${LOG_DIR:-${DATA_DIR}/logs}
LOG_LEVEL=${LOG_LEVEL:-2}
API_HOST=${API_HOST:-127.0.0.1}
API_SECURE_PORT=${API_SECURE_PORT:-6443}
ETCD_PORT=${ETCD_PORT:-2379}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-2380}
KCM_SECURE_PORT=${KCM_SECURE_PORT:-10257}
SCHEDULER_SECURE_PORT=${SCHEDULER_SECURE_PORT:-10259}
FEATURE_GATES=${FEATURE_GATES:-}
COMPONENT_FEATURE_GATES=${COMPONENT_FEATURE_GATES:-}
RUNTIME_CONFIG=${RUNTIME_CONFIG:-}
KUBE_CONTROLLERS=${KUBE_CONTROLLERS:-*}
SKIP_BUILD=${SKIP_BUILD:-false}
ENABLE_DAEMON=${ENABLE_DAEMON:-false}
START_TIMEOUT=${START_TIMEOUT:-180}

SERVICE_CLUSTER_IP_RANGE=10.0.0.0/24
SERVICE_CLUSTER_IP=10.0.0.1
CERT_DIR="${DATA_DIR}/certs"
PID_FILE="${DATA_DIR}/pids"
KUBECTL="${BIN_DIR}/kubectl"

case "${API_HOST}" in
  127.*|localhost|::1) API_BIND_ADDR=${API_BIND_ADDR:-127.0.0.1} ;;
  *) API_BIND_ADDR=${API_BIND_ADDR:-0.0.0.0} ;;
esac
if [[ ${API_HOST} =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ || ${API_HOST} == *:* ]]; then
  ADVERTISE_ADDRESS=${ADVERTISE_ADDRESS:-${API_HOST}}
else
  ADVERTISE_ADDRESS=${ADVERTISE_ADDRESS:-127.0.0.1}
fi
if [[ ${API_HOST} == *:* ]]; then
  API_URL="https://[${API_HOST}]:${API_SECURE_PORT}"
else
  API_URL="https://${API_HOST}:${API_SECURE_PORT}"
fi

usage() {
  sed -n '2,/^$/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
}

log() {
  echo "+++ $*" >&2
}

fail() {
  echo "!!! $*" >&2
  exit 1
}

# is_ip reports whether $1 is an IPv4 or IPv6 address rather than a host name.
is_ip() {
  [[ $1 =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ || $1 == *:* ]]
}

# is_running reports whether process $1 exists and is not a zombie.
is_running() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ ${state} != Z* ]]
}

# port_in_use reports whether something already listens on 127.0.0.1:$1.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# stop_pids NAME:PID... sends SIGTERM to each running process, waits up to 30s
# and then SIGKILLs what is left.
stop_pids() {
  local entry pid deadline=$((SECONDS + 30)) left
  for entry in "$@"; do
    pid=${entry##*:}
    if is_running "${pid}"; then
      log "stopping ${entry%:*} (pid ${pid})"
      kill -TERM "${pid}" 2>/dev/null || true
    fi
  done
  while :; do
    left=()
    for entry in "$@"; do
      if is_running "${entry##*:}"; then left+=("${entry}"); fi
    done
    if [[ ${#left[@]} -eq 0 ]]; then break; fi
    if ((SECONDS >= deadline)); then
      for entry in "${left[@]}"; do
        log "killing ${entry%:*} (pid ${entry##*:})"
        kill -KILL "${entry##*:}" 2>/dev/null || true
      done
      break
    fi
    sleep 0.2
  done
  # Reap our own children; harmless for processes of an earlier run.
  for entry in "$@"; do
    wait "${entry##*:}" 2>/dev/null || true
  done
}

# recorded_pids prints NAME:PID for each process in $PID_FILE that is still
# running the binary it was started with (guards against reused pids). A
# script (hack/lib/supervise.sh) shows as its interpreter followed by its
# path, so the path may also be the second word.
recorded_pids() {
  local name pid bin args entries=() words
  [[ -f ${PID_FILE} ]] || return 0
  while read -r name pid bin; do
    [[ -n ${pid} ]] || continue
    args=$(ps -o args= -p "${pid}" 2>/dev/null) || continue
    read -r -a words <<<"${args}"
    if [[ ${words[0]:-} == "${bin}" || ${words[1]:-} == "${bin}" ]] && is_running "${pid}"; then
      entries+=("${name}:${pid}")
    fi
  done <"${PID_FILE}"
  # Stop in reverse start order.
  local i
  for ((i = ${#entries[@]} - 1; i >= 0; i--)); do
    echo "${entries[i]}"
  done
}

stop_recorded() {
  local entries=()
  mapfile -t entries < <(recorded_pids)
  if [[ ${#entries[@]} -eq 0 ]]; then
    log "nothing recorded in ${PID_FILE} is running"
  else
    stop_pids "${entries[@]}"
  fi
  rm -f "${PID_FILE}"
}

### Processes started by this run ###

PROC_NAMES=()
PROC_PIDS=()
DETACHED=false

cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [[ ${DETACHED} == true || ${#PROC_PIDS[@]} -eq 0 ]]; then
    return "${rc}"
  fi
  echo >&2
  local i entries=()
  for ((i = ${#PROC_PIDS[@]} - 1; i >= 0; i--)); do
    entries+=("${PROC_NAMES[i]}:${PROC_PIDS[i]}")
  done
  stop_pids "${entries[@]}"
  rm -f "${PID_FILE}"
  log "stopped"
  return "${rc}"
}

# start_process NAME BINARY ARGS... starts BINARY in the background, logging to
# $LOG_DIR/NAME.log, and records its pid.
start_process() {
  local name=$1
  shift
  local logfile="${LOG_DIR}/${name}.log"
  log "starting ${name}, logging to ${logfile}"
  if [[ ${ENABLE_DAEMON} == true ]] && command -v setsid >/dev/null 2>&1; then
    # Own session: not hung up with the terminal that started us.
    setsid "$@" </dev/null >"${logfile}" 2>&1 &
  else
    "$@" </dev/null >"${logfile}" 2>&1 &
  fi
  local pid=$!
  PROC_NAMES+=("${name}")
  PROC_PIDS+=("${pid}")
  printf '%s %s %s\n' "${name}" "${pid}" "$1" >>"${PID_FILE}"
}

# died NAME PID prints why process NAME stopped, with the tail of its log, and
# exits non-zero.
died() {
  local name=$1 pid=$2 rc=0
  wait "${pid}" 2>/dev/null || rc=$?
  echo "!!! ${name} (pid ${pid}) exited with status ${rc}; last lines of ${LOG_DIR}/${name}.log:" >&2
  tail -n 30 "${LOG_DIR}/${name}.log" >&2 || true
  exit 1
}

# check_processes exits through died when any started process has stopped.
check_processes() {
  local i
  for i in "${!PROC_PIDS[@]}"; do
    if ! is_running "${PROC_PIDS[i]}"; then
      died "${PROC_NAMES[i]}" "${PROC_PIDS[i]}"
    fi
  done
}

# wait_healthy NAME CURL_ARGS... polls an endpoint until it answers 2xx while
# checking that every started process is still alive.
wait_healthy() {
  local name=$1
  shift
  local deadline=$((SECONDS + START_TIMEOUT))
  until curl --fail --silent --show-error --max-time 5 --output /dev/null "$@" 2>/dev/null; do
    check_processes
    if ((SECONDS >= deadline)); then
      echo "!!! ${name} did not become healthy within ${START_TIMEOUT}s; last lines of ${LOG_DIR}/${name}.log:" >&2
      tail -n 30 "${LOG_DIR}/${name}.log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
  check_processes
  log "${name} is healthy"
}

### Certificates and kubeconfigs ###

# write_ext_file FILE LINES... writes an OpenSSL extensions file.
write_ext_file() {
  local file=$1
  shift
  printf '%s\n' "$@" >"${file}"
}

# ensure_ca NAME CN creates a self-signed CA unless a valid one exists.
ensure_ca() {
  local name=$1 cn=$2
  local crt="${CERT_DIR}/${name}.crt" key="${CERT_DIR}/${name}.key"
  if [[ -s ${crt} && -s ${key} ]] && openssl x509 -checkend 86400 -noout -in "${crt}" >/dev/null 2>&1; then
    return 0
  fi
  log "creating CA ${name}"
  local cfg="${CERT_DIR}/${name}.cnf"
  write_ext_file "${cfg}" \
    "[req]" "distinguished_name = dn" "[dn]" \
    "[v3_ca]" \
    "basicConstraints = critical,CA:TRUE" \
    "keyUsage = critical,digitalSignature,keyEncipherment,keyCertSign,cRLSign" \
    "subjectKeyIdentifier = hash"
  openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days 3650 \
    -config "${cfg}" -extensions v3_ca -subj "/CN=${cn}" \
    -keyout "${key}" -out "${crt}" 2>/dev/null
  rm -f "${cfg}"
}

# ensure_cert NAME CA SUBJECT EXTENSION... creates a key and a certificate
# signed by CA unless a valid one exists (with the same extensions).
ensure_cert() {
  local name=$1 ca=$2 subject=$3
  shift 3
  local crt="${CERT_DIR}/${name}.crt" key="${CERT_DIR}/${name}.key" ext="${CERT_DIR}/${name}.ext"
  local want
  want=$(printf '%s\n' "basicConstraints = critical,CA:FALSE" \
    "keyUsage = critical,digitalSignature,keyEncipherment" \
    "authorityKeyIdentifier = keyid" "$@")
  if [[ -s ${crt} && -s ${key} && -f ${ext} && $(<"${ext}") == "${want}" ]] &&
    openssl verify -CAfile "${CERT_DIR}/${ca}.crt" "${crt}" >/dev/null 2>&1 &&
    openssl x509 -checkend 86400 -noout -in "${crt}" >/dev/null 2>&1; then
    return 0
  fi
  log "creating certificate ${name} (${subject})"
  echo "${want}" >"${ext}"
  openssl req -new -newkey rsa:2048 -nodes -subj "${subject}" \
    -keyout "${key}" -out "${CERT_DIR}/${name}.csr" 2>/dev/null
  openssl x509 -req -sha256 -days 3650 -in "${CERT_DIR}/${name}.csr" \
    -CA "${CERT_DIR}/${ca}.crt" -CAkey "${CERT_DIR}/${ca}.key" \
    -set_serial "0x$(openssl rand -hex 16)" -extfile "${ext}" \
    -out "${crt}" 2>/dev/null
  rm -f "${CERT_DIR}/${name}.csr"
}

create_certs() {
  mkdir -p "${CERT_DIR}"
  chmod 700 "${CERT_DIR}"
  local host_san
  if is_ip "${API_HOST}"; then host_san="IP:${API_HOST}"; else host_san="DNS:${API_HOST}"; fi

  ensure_ca ca featureflags-local-ca
  ensure_cert kube-apiserver ca "/CN=kube-apiserver" \
    "extendedKeyUsage = serverAuth" \
    "subjectAltName = IP:127.0.0.1,DNS:localhost,${host_san},IP:${SERVICE_CLUSTER_IP},DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  ensure_cert admin ca "/O=system:masters/CN=system:admin" "extendedKeyUsage = clientAuth"
  ensure_cert kube-controller-manager ca "/CN=system:kube-controller-manager" "extendedKeyUsage = clientAuth"
  ensure_cert kube-scheduler ca "/CN=system:kube-scheduler" "extendedKeyUsage = clientAuth"

  ensure_ca front-proxy-ca featureflags-local-front-proxy-ca
  ensure_cert front-proxy-client front-proxy-ca "/CN=front-proxy-client" "extendedKeyUsage = clientAuth"

  if [[ ! -s ${CERT_DIR}/service-account.key ]]; then
    log "creating the service account signing key"
    openssl genrsa -out "${CERT_DIR}/service-account.key" 2048 2>/dev/null
  fi
  chmod 600 "${CERT_DIR}"/*.key
}

# write_kubeconfig NAME USER writes $DATA_DIR/NAME.kubeconfig for the client
# certificate $CERT_DIR/NAME.crt.
write_kubeconfig() {
  local name=$1 user=$2
  local file="${DATA_DIR}/${name}.kubeconfig"
  local tmp="${file}.tmp"
  rm -f "${tmp}"
  "${KUBECTL}" config set-cluster local --kubeconfig="${tmp}" --server="${API_URL}" \
    --certificate-authority="${CERT_DIR}/ca.crt" --embed-certs=true >/dev/null
  "${KUBECTL}" config set-credentials "${user}" --kubeconfig="${tmp}" \
    --client-certificate="${CERT_DIR}/${name}.crt" --client-key="${CERT_DIR}/${name}.key" \
    --embed-certs=true >/dev/null
  "${KUBECTL}" config set-context local --kubeconfig="${tmp}" --cluster=local --user="${user}" >/dev/null
  "${KUBECTL}" config use-context local --kubeconfig="${tmp}" >/dev/null
  chmod 600 "${tmp}"
  mv "${tmp}" "${file}"
}

### Steps ###

build() {
  if [[ ${SKIP_BUILD} == true ]]; then
    log "SKIP_BUILD=true: using the binaries in ${BIN_DIR}"
  else
    log "building ${BUILD_COMMANDS[*]} in ${TREE#"${ROOT}"/} into ${BIN_DIR}"
    "${ROOT}/hack/build.sh" "${BUILD_COMMANDS[@]}"
  fi
  local bin
  for bin in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [[ -x ${BIN_DIR}/${bin} ]] || fail "${BIN_DIR}/${bin} is missing; run without SKIP_BUILD=true"
  done
  if [[ ${SKIP_BUILD} != true || ! -x ${ETCD_BIN} ]]; then
    "${ROOT}/hack/install-etcd.sh"
  fi
  [[ -x ${ETCD_BIN} ]] || fail "${ETCD_BIN} is missing"
}

start_etcd() {
  start_process etcd "${ETCD_BIN}" \
    --name=featureflags-local \
    --data-dir="${DATA_DIR}/etcd" \
    --listen-client-urls="http://127.0.0.1:${ETCD_PORT}" \
    --advertise-client-urls="http://127.0.0.1:${ETCD_PORT}" \
    --listen-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-advertise-peer-urls="http://127.0.0.1:${ETCD_PEER_PORT}" \
    --initial-cluster="featureflags-local=http://127.0.0.1:${ETCD_PEER_PORT}"
  wait_healthy etcd "http://127.0.0.1:${ETCD_PORT}/health"
}

start_apiserver() {
  local extra=()
  case "${ADVERTISE_ADDRESS}" in
    # The kubernetes Endpoints may not hold a loopback address: without this
    # the apiserver logs an error every 10s. No pod runs here to use them.
    127.*|::1) extra+=(--endpoint-reconciler-type=none) ;;
  esac
  if [[ -n "${EMULATED_VERSION:-}" ]]; then
    extra+=(--emulated-version="${EMULATED_VERSION}")
  fi
  if [[ -n "${APISERVER_EXTRA_ARGS:-}" ]]; then
    local args
    read -r -a args <<<"${APISERVER_EXTRA_ARGS}"
    extra+=("${args[@]}")
  fi
  start_process kube-apiserver "${BIN_DIR}/kube-apiserver" \
    --v="${LOG_LEVEL}" \
    --feature-gates="FeatureLifecycle=true${FEATURE_GATES:+,${FEATURE_GATES}}" \
    --runtime-config="features.k8s.io/v1alpha1=true${RUNTIME_CONFIG:+,${RUNTIME_CONFIG}}" \
    --authorization-mode=Node,RBAC \
    --enable-admission-plugins=NodeRestriction \
    --allow-privileged=true \
    --etcd-servers="http://127.0.0.1:${ETCD_PORT}" \
    --bind-address="${API_BIND_ADDR}" \
    --secure-port="${API_SECURE_PORT}" \
    --advertise-address="${ADVERTISE_ADDRESS}" \
    --service-cluster-ip-range="${SERVICE_CLUSTER_IP_RANGE}" \
    --client-ca-file="${CERT_DIR}/ca.crt" \
    --tls-cert-file="${CERT_DIR}/kube-apiserver.crt" \
    --tls-private-key-file="${CERT_DIR}/kube-apiserver.key" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="${CERT_DIR}/service-account.key" \
    --service-account-signing-key-file="${CERT_DIR}/service-account.key" \
    --requestheader-client-ca-file="${CERT_DIR}/front-proxy-ca.crt" \
    --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="${CERT_DIR}/front-proxy-client.crt" \
    --proxy-client-key-file="${CERT_DIR}/front-proxy-client.key" \
    "${extra[@]}"
  wait_healthy kube-apiserver --cacert "${CERT_DIR}/ca.crt" \
    --cert "${CERT_DIR}/admin.crt" --key "${CERT_DIR}/admin.key" "${API_URL}/readyz"
}

start_controllers() {
  local kcm_kubeconfig="${DATA_DIR}/kube-controller-manager.kubeconfig"
  local sched_kubeconfig="${DATA_DIR}/kube-scheduler.kubeconfig"
  # The components report and follow features only with the gate on.
  local gates=(--feature-gates="FeatureLifecycle=true${COMPONENT_FEATURE_GATES:+,${COMPONENT_FEATURE_GATES}}")
  if [[ -n "${EMULATED_VERSION:-}" ]]; then
    gates+=(--emulated-version="${EMULATED_VERSION}")
  fi
  # Under a supervisor that restarts them when they exit cleanly, as they do
  # to follow a Central feature whose gate they read only at start.
  start_process kube-controller-manager "${ROOT}/hack/lib/supervise.sh" "${BIN_DIR}/kube-controller-manager" \
    --v="${LOG_LEVEL}" \
    "${gates[@]}" \
    --feature-desired-state-cache-file="${DATA_DIR}/kube-controller-manager/feature-desired-state.json" \
    --kubeconfig="${kcm_kubeconfig}" \
    --authentication-kubeconfig="${kcm_kubeconfig}" \
    --authorization-kubeconfig="${kcm_kubeconfig}" \
    --use-service-account-credentials \
    --service-account-private-key-file="${CERT_DIR}/service-account.key" \
    --root-ca-file="${CERT_DIR}/ca.crt" \
    --cluster-signing-cert-file="${CERT_DIR}/ca.crt" \
    --cluster-signing-key-file="${CERT_DIR}/ca.key" \
    --service-cluster-ip-range="${SERVICE_CLUSTER_IP_RANGE}" \
    --controllers="${KUBE_CONTROLLERS}" \
    --leader-elect=false \
    --bind-address=127.0.0.1 \
    --secure-port="${KCM_SECURE_PORT}"
  start_process kube-scheduler "${ROOT}/hack/lib/supervise.sh" "${BIN_DIR}/kube-scheduler" \
    --v="${LOG_LEVEL}" \
    "${gates[@]}" \
    --feature-desired-state-cache-file="${DATA_DIR}/kube-scheduler/feature-desired-state.json" \
    --kubeconfig="${sched_kubeconfig}" \
    --authentication-kubeconfig="${sched_kubeconfig}" \
    --authorization-kubeconfig="${sched_kubeconfig}" \
    --leader-elect=false \
    --bind-address=127.0.0.1 \
    --secure-port="${SCHEDULER_SECURE_PORT}"
  # /healthz is always allowed without credentials on both.
  wait_healthy kube-controller-manager --insecure "https://127.0.0.1:${KCM_SECURE_PORT}/healthz"
  wait_healthy kube-scheduler --insecure "https://127.0.0.1:${SCHEDULER_SECURE_PORT}/healthz"
}

print_usage_info() {
  local stop_cmd="hack/local-up-cluster.sh stop"
  if [[ ${DATA_DIR} != /tmp/featureflags-local-up ]]; then
    stop_cmd="DATA_DIR=${DATA_DIR} ${stop_cmd}"
  fi
  cat <<EOF

Local cluster is running at ${API_URL}. To use it:

  export KUBECONFIG=${DATA_DIR}/admin.kubeconfig
  ${KUBECTL} get features -n kube-system

Logs:
EOF
  local name
  for name in "${PROC_NAMES[@]}"; do
    echo "  ${LOG_DIR}/${name}.log"
  done
  echo
  if [[ ${ENABLE_DAEMON} == true ]]; then
    echo "The processes keep running (pids in ${PID_FILE}). To stop them (from ${ROOT}):"
    echo
    echo "  ${stop_cmd}"
  else
    echo "Press Ctrl-C to shut the cluster down."
  fi
  echo
}

main() {
  case "${1:-}" in
    -h|--help|help) usage; return 0 ;;
    stop) stop_recorded; return 0 ;;
    "") ;;
    *) usage >&2; fail "unknown argument: $1" ;;
  esac

  local cmd
  for cmd in openssl curl ps; do
    command -v "${cmd}" >/dev/null 2>&1 || fail "${cmd} is required"
  done
  if [[ ${SKIP_BUILD} != true ]]; then
    command -v go >/dev/null 2>&1 || fail "go is required (or set SKIP_BUILD=true)"
  fi

  mkdir -p "${DATA_DIR}" "${LOG_DIR}"
  if [[ -n $(recorded_pids) ]]; then
    fail "a cluster from ${DATA_DIR} is already running; stop it with: DATA_DIR=${DATA_DIR} hack/local-up-cluster.sh stop"
  fi
  local port
  for port in "${ETCD_PORT}" "${ETCD_PEER_PORT}" "${API_SECURE_PORT}" "${KCM_SECURE_PORT}" "${SCHEDULER_SECURE_PORT}"; do
    if port_in_use "${port}"; then
      fail "port ${port} is already in use; see the port options in: hack/local-up-cluster.sh --help"
    fi
  done

  build
  create_certs
  write_kubeconfig admin system:admin
  write_kubeconfig kube-controller-manager system:kube-controller-manager
  write_kubeconfig kube-scheduler system:kube-scheduler

  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  rm -f "${PID_FILE}"

  start_etcd
  start_apiserver
  start_controllers
  print_usage_info

  if [[ ${ENABLE_DAEMON} == true ]]; then
    DETACHED=true
    return 0
  fi
  while :; do
    check_processes
    sleep 1 || true
  done
}

main "$@"
