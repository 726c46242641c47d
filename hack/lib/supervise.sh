#!/usr/bin/env bash
# Copyright 2026 The Kubernetes Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# supervise.sh COMMAND ARGS... runs COMMAND, and runs it again each time it
# exits with status 0, as systemd's Restart=on-success would: our components
# exit cleanly when a Central feature's desired state changes and the gate
# applies only at start (KEP-3920). Any other exit status ends the
# supervision with that status; SIGTERM and SIGINT are passed on to the
# command and end it.
set -o nounset -o pipefail

child=0
stop() {
  trap - TERM INT
  if ((child)); then
    kill -TERM "${child}" 2>/dev/null
    wait "${child}"
  fi
  exit 143
}
trap stop TERM INT

while true; do
  "$@" &
  child=$!
  wait "${child}"
  rc=$?
  child=0
  if ((rc != 0)); then
    exit "${rc}"
  fi
  echo "supervise.sh: $1 exited cleanly; starting it again" >&2
  sleep 1
done
