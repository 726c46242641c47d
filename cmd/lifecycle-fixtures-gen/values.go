/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
)

// The values of field paths. They are keyed by path, not by gate: a value
// serves every gate (today's and tomorrow's) whose inventory records the
// path, and every resource that holds it. The generator checks each one
// against upstream's validation and strategy with the gate on and off, and
// leaves out, with the reason in the fixture, what they refuse.

// containerValues are fragments of a container, by path relative to a
// container (containers[*].X, initContainers[*].X, ephemeralContainers[*].X),
// with what the pod spec needs besides (under "pod").
var containerValues = map[string]struct{ container, pod string }{
	"restartPolicy": {container: `
restartPolicy: Never
restartPolicyRules:
- action: Restart
  exitCodes: {operator: In, values: [42]}
`},
	"restartPolicyRules": {container: `
restartPolicy: Never
restartPolicyRules:
- action: Restart
  exitCodes: {operator: In, values: [42]}
`},
	"lifecycle.stopSignal": {container: `
lifecycle: {stopSignal: SIGTERM}
`, pod: `
os: {name: linux}
`},
	"livenessProbe.grpc.mode":              {container: `livenessProbe: {grpc: {port: 8080, mode: TLS}}`},
	"readinessProbe.grpc.mode":             {container: `readinessProbe: {grpc: {port: 8080, mode: TLS}}`},
	"startupProbe.grpc.mode":               {container: `startupProbe: {grpc: {port: 8080, mode: TLS}}`},
	"livenessProbe.httpGet.protocol":       {container: `livenessProbe: {httpGet: {port: 8080, protocol: HTTP2}}`},
	"readinessProbe.httpGet.protocol":      {container: `readinessProbe: {httpGet: {port: 8080, protocol: HTTP2}}`},
	"startupProbe.httpGet.protocol":        {container: `startupProbe: {httpGet: {port: 8080, protocol: HTTP2}}`},
	"lifecycle.postStart.httpGet.protocol": {container: `lifecycle: {postStart: {httpGet: {port: 8080, protocol: HTTP2}}}`},
	"lifecycle.preStop.httpGet.protocol":   {container: `lifecycle: {preStop: {httpGet: {port: 8080, protocol: HTTP2}}}`},
	"env[*].valueFrom.fileKeyRef": {container: `
env:
- {name: FROM_FILE, valueFrom: {fileKeyRef: {volumeName: env-file, path: vars.env, key: FROM_FILE}}}
`, pod: `
volumes:
- {name: env-file, emptyDir: {}}
`},
	"volumeMounts[*].bindMountOptions": {container: `
volumeMounts:
- {name: bind-mount-options, mountPath: /bind, bindMountOptions: [noexec, nosuid]}
`, pod: `
volumes:
- {name: bind-mount-options, emptyDir: {}}
`},
}

// containers are the containers a container fragment goes into, by the
// pod spec field that lists them: the app container of the template, a
// sidecar init container (probes and lifecycle hooks are allowed on those
// only), an ephemeral container.
var containers = map[string]string{
	"containers":          `{name: app}`,
	"initContainers":      `{name: init, image: "registry.k8s.io/pause:3.10", restartPolicy: Always}`,
	"ephemeralContainers": `{name: debug, image: "registry.k8s.io/pause:3.10"}`,
}

// podSpecValues are fragments of a pod spec, by path relative to it.
var podSpecValues = map[string]string{
	"volumes[*].configMap.defaultUser": `
volumes:
- {name: config-map-default-user, configMap: {name: lifecycle, defaultUser: 1000}}`,
	"volumes[*].configMap.items[*].user": `
volumes:
- {name: config-map-item-user, configMap: {name: lifecycle, items: [{key: key, path: file, user: 1000}]}}`,
	"volumes[*].downwardAPI.defaultUser": `
volumes:
- {name: downward-api-default-user, downwardAPI: {defaultUser: 1000, items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}}`,
	"volumes[*].projected.defaultUser": `
volumes:
- {name: projected-default-user, projected: {defaultUser: 1000, sources: [{configMap: {name: lifecycle}}]}}`,
	"volumes[*].projected.sources[*].secret.items[*].user": `
volumes:
- {name: projected-secret-item-user, projected: {sources: [{secret: {name: lifecycle, items: [{key: key, path: file, user: 1000}]}}]}}`,
	"volumes[*].secret.defaultUser": `
volumes:
- {name: secret-default-user, secret: {secretName: lifecycle, defaultUser: 1000}}`,
	"volumes[*].secret.items[*].user": `
volumes:
- {name: secret-item-user, secret: {secretName: lifecycle, items: [{key: key, path: file, user: 1000}]}}`,
	"volumes[*].projected.sources[*].clusterTrustBundle": `
volumes:
- {name: cluster-trust-bundle, projected: {sources: [{clusterTrustBundle: {signerName: lifecycle.example.com/signer, labelSelector: {}, path: ca.pem}}]}}`,
	"volumes[*].emptyDir.mode": `
volumes:
- {name: empty-dir-mode, emptyDir: {mode: 488}}`,
	"evictionResponders": `
evictionResponders:
- {name: lifecycle.example.com/responder, priority: 5000}`,
	"schedulingGroup": `
schedulingGroup: {podGroupName: lifecycle}`,
	// matchLabelKeys with a requirement on its key in the selector: what
	// kube-apiserver merges into a pod's selector, copied into a template
	// (with MatchLabelKeysInPodTopologySpreadSelectorMerge off, validation
	// refuses a key in both).
	"topologySpreadConstraints[*].matchLabelKeys": `
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: DoNotSchedule
  labelSelector:
    matchLabels: {app: lifecycle}
    matchExpressions: [{key: version, operator: In, values: [v1]}]
  matchLabelKeys: [version]`,
	"resources": `
resources:
  limits: {cpu: "1", memory: 1Gi}`,

	// Relational values (the inventory's relationalValues): what
	// validation refuses with the gate off only together with another
	// value, keyed by the field it refuses.
	"hostNetwork": `
hostNetwork: true
hostUsers: false`,

	"tolerations": `
tolerations:
- {key: lifecycle.example.com/taint, operator: Equal, value: "42", effect: NoSchedule}`,
	"securityContext.seLinuxChangePolicy": `
securityContext: {seLinuxChangePolicy: Recursive}`,
}

// appStatus starts the status of a pod whose one container is "app" (the
// pod spec's), as the kubelet writes it; a value adds the container
// status' gated field at four spaces.
const appStatus = `status:
  containerStatuses:
  - name: app
    image: registry.k8s.io/pause:3.10
    imageID: ""
    ready: false
    restartCount: 0
`

// objectValues are fragments of an object, by resource and path.
var objectValues = map[string]string{
	"jobs.batch spec.scheduling": `
spec: {scheduling: {schedulingPolicy: {basic: {}}}}`,
	"cronjobs.batch spec.jobTemplate.spec.scheduling": `
spec: {jobTemplate: {spec: {scheduling: {schedulingPolicy: {basic: {}}}}}}`,
	"leases.coordination.k8s.io spec.strategy": `
spec: {strategy: OldestEmulationVersion}`,
	"leases.coordination.k8s.io spec.preferredHolder": `
spec: {strategy: OldestEmulationVersion, preferredHolder: lifecycle}`,
	"nodes spec.podPreemptionPolicy": `
spec: {podPreemptionPolicy: {disableResizePreemption: [cpu]}}`,
	"csidrivers.storage.k8s.io spec.preventPodSchedulingIfMissing": `
spec: {preventPodSchedulingIfMissing: true}`,

	// Status, written after create as a status update writes it
	// (test/integration/features/lifecycle.Prepare).
	"deployments.apps status.terminatingReplicas": `
status: {replicas: 1, terminatingReplicas: 1}`,
	"replicasets.apps status.terminatingReplicas": `
status: {replicas: 1, terminatingReplicas: 1}`,
	"nodes status.nodeInfo.runningInUserNamespace": `
status: {nodeInfo: {runningInUserNamespace: true}}`,
	"persistentvolumeclaims status.healthStatus": `
status: {phase: Pending, healthStatus: {conditions: [{status: Degraded, reason: SlowIO}]}}`,
	"csinodes.storage.k8s.io status.storageHealth": `
status: {storageHealth: [{name: lifecycle.example.com, healthConditions: [{status: StorageDegraded, reason: SlowIO}]}]}`,
	"pods status.allocatedResources": `
spec: {resources: {limits: {cpu: "1", memory: 1Gi}}}
status: {allocatedResources: {cpu: "1", memory: 1Gi}}`,
	"pods status.resources": `
spec: {resources: {limits: {cpu: "1", memory: 1Gi}}}
status: {resources: {limits: {cpu: "1", memory: 1Gi}, requests: {cpu: "1", memory: 1Gi}}}`,
	"pods status.containerStatuses[*].volumeMounts[*].volumeStatus": `
spec:
  containers: [{name: app, volumeMounts: [{name: image, mountPath: /image}]}]
  volumes: [{name: image, image: {reference: "registry.k8s.io/pause:3.10"}}]
` + appStatus + `    volumeMounts: [{name: image, mountPath: /image, volumeStatus: {image: {imageRef: "registry.k8s.io/pause@sha256:0000000000000000000000000000000000000000000000000000000000000000"}}}]`,
	"pods status.containerStatuses[*].allocatedResourcesStatus": `
spec:
  containers: [{name: app, resources: {limits: {lifecycle.example.com/device: "1"}}}]
` + appStatus + `    allocatedResourcesStatus: [{name: lifecycle.example.com/device, resources: [{resourceID: device-0, health: Healthy}]}]`,
	"pods status.containerStatuses[*].allocatedResourcesStatus[*].resources[*].message": `
spec:
  containers: [{name: app, resources: {limits: {lifecycle.example.com/device: "1"}}}]
` + appStatus + `    allocatedResourcesStatus: [{name: lifecycle.example.com/device, resources: [{resourceID: device-0, health: Unhealthy, message: lifecycle}]}]`,
	"statefulsets.apps spec.updateStrategy.type": `
spec: {updateStrategy: {type: Recreate}}`,
	// Scaling to zero needs an object or external metric.
	"horizontalpodautoscalers.autoscaling spec.minReplicas": `
spec:
  minReplicas: 0
  metrics:
  - type: Object
    object:
      describedObject: {apiVersion: v1, kind: Service, name: lifecycle}
      metric: {name: requests-per-second}
      target: {type: Value, value: "10"}`,
	"persistentvolumeclaims spec.dataSourceRef.namespace": `
spec: {dataSourceRef: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: lifecycle, namespace: default}}`,

	// Dynamic resource allocation.
	"resourceslices.resource.k8s.io spec.devices[*].allowMultipleAllocations": `
spec: {nodeName: $NODE, devices: [{name: device, allowMultipleAllocations: true}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].capacity[*].requestPolicy": `
spec: {nodeName: $NODE, devices: [{name: device, allowMultipleAllocations: true, capacity: {memory: {value: 8Gi, requestPolicy: {default: 1Gi, validRange: {min: 1Gi}}}}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].bindingConditions": `
spec: {nodeName: $NODE, devices: [{name: device, bindingConditions: [ready], bindingFailureConditions: [failed]}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].bindingFailureConditions": `
spec: {nodeName: $NODE, devices: [{name: device, bindingConditions: [ready], bindingFailureConditions: [failed]}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].bindsToNode": `
spec: {nodeName: $NODE, devices: [{name: device, bindsToNode: true, bindingConditions: [ready], bindingFailureConditions: [failed]}]}`,
	// A fractional range: a step of 1.5 divides 3 - 1.5, its whole-number
	// rounding (2) does not.
	"resourceslices.resource.k8s.io spec.devices[*].capacity[*].requestPolicy.validRange.step": `
spec: {nodeName: $NODE, devices: [{name: device, allowMultipleAllocations: true, capacity: {memory: {value: "3", requestPolicy: {default: 1500m, validRange: {min: 1500m, max: "3", step: 1500m}}}}}]}`,
	// Valid values that round to the same whole number.
	"resourceslices.resource.k8s.io spec.devices[*].capacity[*].requestPolicy.validValues": `
spec: {nodeName: $NODE, devices: [{name: device, allowMultipleAllocations: true, capacity: {memory: {value: "3", requestPolicy: {default: "1", validValues: [500m, "1"]}}}}]}`,
	// A selector that reads a field of the consumable capacity API (the
	// CEL environment has it only with the gate on).
	"deviceclasses.resource.k8s.io spec.selectors[*].cel.expression": `
spec: {selectors: [{cel: {expression: "device.allowMultipleAllocations == true"}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].taints": `
spec: {nodeName: $NODE, devices: [{name: device, taints: [{key: lifecycle.example.com/taint, effect: NoSchedule}]}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].attributes[*].bools": `
spec: {nodeName: $NODE, devices: [{name: device, attributes: {bools: {bools: [true, false]}}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].attributes[*].ints": `
spec: {nodeName: $NODE, devices: [{name: device, attributes: {ints: {ints: [1, 2]}}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].attributes[*].strings": `
spec: {nodeName: $NODE, devices: [{name: device, attributes: {strings: {strings: [a, b]}}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].attributes[*].versions": `
spec: {nodeName: $NODE, devices: [{name: device, attributes: {versions: {versions: [1.0.0, 2.0.0]}}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].nodeAllocatableResources": `
spec: {nodeName: $NODE, devices: [{name: device, nodeAllocatableResources: {cpu: {overhead: {perPod: 100m}}}}]}`,
	"resourceslices.resource.k8s.io spec.skipNodeOperations": `
spec: {nodeName: $NODE, skipNodeOperations: [NodePrepareResources, NodeUnprepareResources]}`,
	"resourceslices.resource.k8s.io spec.devices[*].consumesCounters[*].compatibilityGroups": `
spec: {perDeviceNodeSelection: true, devices: [{name: device, nodeName: $NODE, consumesCounters: [{counterSet: counters, counters: {memory: {value: 1Gi}}, compatibilityGroups: [group]}]}]}`,
	"resourceslices.resource.k8s.io spec.sharedCounters": `
spec: {nodeName: $NODE, devices: null, sharedCounters: [{name: counters, counters: {memory: {value: 8Gi}}}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].consumesCounters": `
spec: {perDeviceNodeSelection: true, devices: [{name: device, nodeName: $NODE, consumesCounters: [{counterSet: counters, counters: {memory: {value: 1Gi}}}]}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].nodeName": `
spec: {perDeviceNodeSelection: true, devices: [{name: device, nodeName: $NODE}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].allNodes": `
spec: {perDeviceNodeSelection: true, devices: [{name: device, allNodes: true}]}`,
	"resourceslices.resource.k8s.io spec.devices[*].nodeSelector": `
spec: {perDeviceNodeSelection: true, devices: [{name: device, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: lifecycle, operator: Exists}]}]}}]}`,
	"resourceslices.resource.k8s.io spec.perDeviceNodeSelection": `
spec: {perDeviceNodeSelection: true, devices: [{name: device, allNodes: true}]}`,
	"resourceslices.resource.k8s.io spec.partitionTypeAttribute": `
spec: {perDeviceNodeSelection: true, partitionTypeAttribute: lifecycle.example.com/type, devices: [{name: device, nodeName: $NODE, attributes: {lifecycle.example.com/type: {string: partition}}, consumesCounters: [{counterSet: counters, counters: {memory: {value: 1Gi}}}]}]}`,
	"resourcepoolstatusrequests.resource.k8s.io spec.defaultPartitionTypeAttribute": `
spec: {defaultPartitionTypeAttribute: lifecycle.example.com/type}`,
	"resourceclaims.resource.k8s.io spec.devices.constraints[*].distinctAttribute": `
spec: {devices: {constraints: [{distinctAttribute: lifecycle.example.com/attr}]}}`,
	"resourceclaims.resource.k8s.io spec.devices.requests[*].exactly.capacity": `
spec: {devices: {requests: [{name: req, exactly: {deviceClassName: lifecycle.example.com, capacity: {requests: {memory: 1Gi}}}}]}}`,
	"resourceclaims.resource.k8s.io spec.devices.requests[*].exactly.derivedAttributes": `
spec: {devices: {requests: [{name: req, exactly: {deviceClassName: lifecycle.example.com, derivedAttributes: [{name: lifecycle.example.com/derived, expression: "1"}]}}], constraints: [{requests: [req], matchAttribute: lifecycle.example.com/derived}]}}`,
	"resourceclaims.resource.k8s.io spec.devices.requests[*].exactly.tolerations": `
spec: {devices: {requests: [{name: req, exactly: {deviceClassName: lifecycle.example.com, tolerations: [{key: lifecycle.example.com/taint, operator: Exists, effect: NoSchedule}]}}]}}`,
	"resourceclaims.resource.k8s.io spec.devices.requests[*].firstAvailable[*].capacity": `
spec: {devices: {requests: [{name: first, firstAvailable: [{name: sub, deviceClassName: lifecycle.example.com, capacity: {requests: {memory: 1Gi}}}]}]}}`,
	"resourceclaims.resource.k8s.io spec.devices.requests[*].firstAvailable[*].derivedAttributes": `
spec: {devices: {requests: [{name: first, firstAvailable: [{name: sub, deviceClassName: lifecycle.example.com, derivedAttributes: [{name: lifecycle.example.com/derived, expression: "1"}]}]}], constraints: [{requests: [first], matchAttribute: lifecycle.example.com/derived}]}}`,
	"resourceclaims.resource.k8s.io spec.devices.requests[*].firstAvailable[*].tolerations": `
spec: {devices: {requests: [{name: first, firstAvailable: [{name: sub, deviceClassName: lifecycle.example.com, tolerations: [{key: lifecycle.example.com/taint, operator: Exists, effect: NoSchedule}]}]}]}}`,

	// Workload-aware scheduling.
	"podgroups.scheduling.k8s.io spec.parentCompositePodGroupName": `
spec: {parentCompositePodGroupName: lifecycle, workloadRef: {workloadName: lifecycle, templateName: inner}}`,
	"podgroups.scheduling.k8s.io spec.schedulingConstraints": `
spec: {schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}}`,
	"podgroups.scheduling.k8s.io spec.resourceClaims": `
spec: {resourceClaims: [{name: claim, resourceClaimName: lifecycle}]}`,
	"podgroups.scheduling.k8s.io spec.preemptionPolicy": `
spec: {preemptionPolicy: PreemptLowerPriority}`,
	"workloads.scheduling.k8s.io spec.podGroupTemplates[*].schedulingConstraints": `
spec: {podGroupTemplates: [{name: group, schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}}]}`,
	"workloads.scheduling.k8s.io spec.podGroupTemplates[*].resourceClaims": `
spec: {podGroupTemplates: [{name: group, resourceClaims: [{name: claim, resourceClaimName: lifecycle}]}]}`,
	"workloads.scheduling.k8s.io spec.podGroupTemplates[*].preemptionPolicy": `
spec: {podGroupTemplates: [{name: group, preemptionPolicy: PreemptLowerPriority}]}`,
	"workloads.scheduling.k8s.io spec.compositePodGroupTemplates": `
spec: {podGroupTemplates: null, compositePodGroupTemplates: [{name: composite, schedulingPolicy: {basic: {}}, podGroupTemplates: [{name: inner, schedulingPolicy: {basic: {}}}]}]}`,
	"workloads.scheduling.k8s.io spec.compositePodGroupTemplates[*].preemptionPolicy": `
spec: {podGroupTemplates: null, compositePodGroupTemplates: [{name: composite, schedulingPolicy: {basic: {}}, preemptionPolicy: PreemptLowerPriority, podGroupTemplates: [{name: inner, schedulingPolicy: {basic: {}}}]}]}`,
	"workloads.scheduling.k8s.io spec.compositePodGroupTemplates[*].podGroupTemplates[*].preemptionPolicy": `
spec: {podGroupTemplates: null, compositePodGroupTemplates: [{name: composite, schedulingPolicy: {basic: {}}, podGroupTemplates: [{name: inner, schedulingPolicy: {basic: {}}, preemptionPolicy: PreemptLowerPriority}]}]}`,
	"workloads.scheduling.k8s.io spec.compositePodGroupTemplates[*].podGroupTemplates[*].resourceClaims": `
spec: {podGroupTemplates: null, compositePodGroupTemplates: [{name: composite, schedulingPolicy: {basic: {}}, podGroupTemplates: [{name: inner, schedulingPolicy: {basic: {}}, resourceClaims: [{name: claim, resourceClaimName: lifecycle}]}]}]}`,
	"compositepodgroups.scheduling.k8s.io spec.preemptionPolicy": `
spec: {preemptionPolicy: PreemptLowerPriority}`,
}

// controlValues are objects that hold, once kube-apiserver prepared them
// with the gate on, content the inventory says needs no task when the gate
// turns off (relationalValues' noneNeeded), by resource and field: the
// fixture holds one as a control object, which the harness checks stays
// stored untouched and writable with the gate off.
var controlValues = map[string]string{
	// The user's pod; kube-apiserver merges version In (v1) into the
	// selector.
	"pods spec.topologySpreadConstraints[*].matchLabelKeys": `
metadata: {labels: {app: lifecycle, version: v1}}
spec:
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: lifecycle}}
    matchLabelKeys: [version]`,
}

// embedded are resources that embed the object of another resource under
// a field (a ResourceClaimTemplate's spec holds a ResourceClaim's spec): a
// path under it takes the other resource's value.
var embedded = map[schema.GroupResource]struct {
	from  schema.GroupResource
	field string
}{
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: {from: schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, field: "spec"},
}

// fragment returns the fragment of an object of gr that sets p.
func (g *generator) fragment(gr schema.GroupResource, p gatedfield.Path) (map[string]interface{}, error) {
	if prefix, ok := g.prefixes[gr]; ok {
		if rel, ok := p.TrimPrefix(prefix); ok {
			spec, err := podSpecFragment(rel.String())
			if err != nil {
				return nil, err
			}
			out := spec
			for i := len(prefix) - 1; i >= 0; i-- {
				out = map[string]interface{}{prefix[i].Field: out}
			}
			return out, nil
		}
	}
	s, ok := objectValues[gr.String()+" "+p.String()]
	if e, embeds := embedded[gr]; !ok && embeds {
		if rel, under := p.TrimPrefix(gatedfield.Path{{Field: e.field}}); under {
			if frag, err := g.fragment(e.from, rel); err == nil {
				return map[string]interface{}{e.field: frag}, nil
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("the generator has no value for it (add one to objectValues in cmd/lifecycle-fixtures-gen/values.go)")
	}
	return parse(strings.ReplaceAll(s, nodePlaceholder, g.node))
}

// typed returns value (as the inventory writes every value, a string) as
// a number when the fragment's values of the field (old) are numbers.
func typed(old []interface{}, value string) interface{} {
	if len(old) == 0 {
		return value
	}
	switch old[0].(type) {
	case int64:
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			return n
		}
	case float64:
		if n, err := strconv.ParseFloat(value, 64); err == nil {
			return n
		}
	}
	return value
}

// valueFragment returns the fragment of an object of gr that sets p, set
// to the first of values when there are any (a value validation refuses
// with the gate off): the fragment of p, or else of the field holding it,
// with p set to that value.
func (g *generator) valueFragment(gr schema.GroupResource, p gatedfield.Path, values []string) (map[string]interface{}, error) {
	if len(values) == 0 {
		return g.fragment(gr, p)
	}
	frag, err := g.fragment(gr, p)
	if err != nil && len(p) > 1 {
		parent := slices.Clone(p[:len(p)-1])
		parent[len(parent)-1].Each = 0
		if f, perr := g.fragment(gr, parent); perr == nil {
			frag, err = f, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if p.Replace(frag, typed(p.Values(frag), values[0])) == 0 {
		return nil, fmt.Errorf("the generator's value for it (or the field holding it) does not set it")
	}
	return frag, nil
}

// nodePlaceholder stands for the name of the fixture's Node in values: a
// ResourceSlice's devices must be on a node that exists (the apiserver
// checks), so a fixture whose objects name it gets a Node of that name,
// named after the fixture's namespace.
const nodePlaceholder = "$NODE"

// podSpecFragment returns the fragment of a pod spec that sets rel.
func podSpecFragment(rel string) (map[string]interface{}, error) {
	if s, ok := podSpecValues[rel]; ok {
		return parse(s)
	}
	list, rest, ok := strings.Cut(rel, "[*].")
	base, isContainer := containers[list]
	v, known := containerValues[rest]
	if !ok || !isContainer || !known {
		return nil, fmt.Errorf("the generator has no value for it (add one to podSpecValues or containerValues in cmd/lifecycle-fixtures-gen/values.go)")
	}
	c, err := parse(base)
	if err != nil {
		return nil, err
	}
	frag, err := parse(v.container)
	if err != nil {
		return nil, err
	}
	spec, err := parse(v.pod)
	if err != nil {
		return nil, err
	}
	spec = merge(spec, map[string]interface{}{list: []interface{}{merge(c, frag)}})
	return spec, nil
}

func parse(s string) (map[string]interface{}, error) {
	out := map[string]interface{}{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	if err := yaml.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("value %q: %w", s, err)
	}
	return out, nil
}

// merge merges src into dst and returns dst: maps field by field, lists
// element by element where both elements have the same name, otherwise by
// appending; a null in src removes the field (a one-of choice of the
// template the value replaces); any other value of src replaces dst's.
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		switch sv := v.(type) {
		case nil:
			delete(dst, k)
			continue
		case map[string]interface{}:
			if dv, ok := dst[k].(map[string]interface{}); ok {
				dst[k] = merge(dv, sv)
				continue
			}
		case []interface{}:
			if dv, ok := dst[k].([]interface{}); ok {
				dst[k] = mergeList(dv, sv)
				continue
			}
		}
		dst[k] = runtime.DeepCopyJSONValue(v)
	}
	return dst
}

func mergeList(dst, src []interface{}) []interface{} {
	for _, e := range src {
		if !isObject(e) && slices.ContainsFunc(dst, func(d interface{}) bool { return d == e }) {
			continue // a set: no duplicates
		}
		em, ok := e.(map[string]interface{})
		merged := false
		if ok && em["name"] != nil {
			for i, d := range dst {
				if dm, ok := d.(map[string]interface{}); ok && dm["name"] == em["name"] {
					dst[i] = merge(dm, em)
					merged = true
					break
				}
			}
		}
		if !merged {
			dst = append(dst, runtime.DeepCopyJSONValue(e))
		}
	}
	return dst
}

func isObject(v interface{}) bool {
	switch v.(type) {
	case map[string]interface{}, []interface{}:
		return true
	}
	return false
}

func deepCopy(m map[string]interface{}) map[string]interface{} {
	return runtime.DeepCopyJSON(m)
}

// trustBundle returns a PEM certificate for ClusterTrustBundles: self-signed
// with an Ed25519 key from a fixed seed and fixed dates, so the generated
// fixture is the same on every run (Ed25519 signatures are deterministic).
func trustBundle() (string, error) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "lifecycle fixture CA"},
		NotBefore:             time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2126, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}
