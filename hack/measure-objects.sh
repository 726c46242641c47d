#!/usr/bin/env bash
# Counts and sizes the objects of features.k8s.io on a running cluster
# (KUBECONFIG; e.g. ENABLE_DAEMON=true hack/local-up-cluster.sh), for the
# KEP's scalability answers: per resource, how many objects there are and
# their size as served in compact JSON (managedFields included: an upper
# bound of what etcd stores in protobuf), in all, on average and the
# largest; and the gates each component's report lists. Writes the lines
# to stdout under a header naming the series tip and the machine.
#
# Usage: hack/measure-objects.sh "<what the cluster is>" > docs/figures/objects.txt
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${FEATUREFLAGS_ROOT}/hack/lib/figures.sh"
if [[ $# -ne 1 ]]; then featureflags::figures::usage "$0"; fi
kubectl=${KUBECTL:-${BIN}/kubectl}
featureflags::figures::header hack/measure-objects.sh "the features.k8s.io objects of ${1}"
echo "# Lines: \"<resource> objects <n> bytes <total> mean <bytes> max <bytes> (<name of the largest>)\", \"report <name> gates <n> enabled <n>\"."
for resource in features featurereports featuretargets; do
  "${kubectl}" get "${resource}.features.k8s.io" -A -o json |
    jq -r --arg r "${resource}" '
      [.items[] | {name: (.metadata.namespace + "/" + .metadata.name), size: (tojson | length)}] as $o
      | if ($o | length) == 0 then "\($r) objects 0"
        else ($o | max_by(.size)) as $m
          | "\($r) objects \($o | length) bytes \($o | map(.size) | add) mean \(($o | map(.size) | add) / ($o | length) | floor) max \($m.size) (\($m.name))"
        end'
done
"${kubectl}" get featurereports.features.k8s.io -A -o json |
  jq -r '.items[] | "report \(.metadata.namespace)/\(.metadata.name) gates \(.spec.gates | length) enabled \([.spec.gates[] | select(.enabled)] | length)"'
