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
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"
)

// podSpec is the minimal pod spec of every object that holds one: pods
// are only stored (no node, no kubelet), and name the fixture's
// ServiceAccount, which admission needs to exist.
const podSpec = `
serviceAccountName: lifecycle
automountServiceAccountToken: false
containers:
- name: app
  image: registry.k8s.io/pause:3.10
`

// template is a minimal valid object of a resource, in the version the
// inventory records its paths in. Objects of namespaced resources go in
// the fixture's namespace, named "lifecycle"; cluster-scoped ones are named
// after the namespace, so the fixtures of many gates can be created in one
// cluster. A resource that holds a pod spec gets podSpec at the inventory's
// pod spec path, with restartPolicy.
type template struct {
	clusterScoped bool
	restartPolicy string
	yaml          string
}

// templates are the resources fixtures may hold, by resource.
var templates = map[schema.GroupResource]template{
	{Resource: "pods"}: {restartPolicy: "Never", yaml: `
apiVersion: v1
kind: Pod
`},
	{Resource: "podtemplates"}: {restartPolicy: "Always", yaml: `
apiVersion: v1
kind: PodTemplate
template:
  metadata:
    labels: {app: lifecycle}
`},
	{Resource: "replicationcontrollers"}: {restartPolicy: "Always", yaml: `
apiVersion: v1
kind: ReplicationController
spec:
  replicas: 1
  selector: {app: lifecycle}
  template:
    metadata:
      labels: {app: lifecycle}
`},
	{Group: "apps", Resource: "deployments"}: {restartPolicy: "Always", yaml: `
apiVersion: apps/v1
kind: Deployment
spec:
  replicas: 1
  selector:
    matchLabels: {app: lifecycle}
  template:
    metadata:
      labels: {app: lifecycle}
`},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}: {yaml: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: lifecycle}
  maxReplicas: 2
`},
	{Group: "apps", Resource: "replicasets"}: {restartPolicy: "Always", yaml: `
apiVersion: apps/v1
kind: ReplicaSet
spec:
  replicas: 1
  selector:
    matchLabels: {app: lifecycle}
  template:
    metadata:
      labels: {app: lifecycle}
`},
	{Group: "apps", Resource: "daemonsets"}: {restartPolicy: "Always", yaml: `
apiVersion: apps/v1
kind: DaemonSet
spec:
  selector:
    matchLabels: {app: lifecycle}
  template:
    metadata:
      labels: {app: lifecycle}
`},
	{Group: "apps", Resource: "statefulsets"}: {restartPolicy: "Always", yaml: `
apiVersion: apps/v1
kind: StatefulSet
spec:
  replicas: 1
  serviceName: lifecycle
  selector:
    matchLabels: {app: lifecycle}
  template:
    metadata:
      labels: {app: lifecycle}
`},
	{Group: "batch", Resource: "jobs"}: {restartPolicy: "Never", yaml: `
apiVersion: batch/v1
kind: Job
spec:
  template: {}
`},
	{Group: "batch", Resource: "cronjobs"}: {restartPolicy: "Never", yaml: `
apiVersion: batch/v1
kind: CronJob
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template: {}
`},
	{Group: "coordination.k8s.io", Resource: "leases"}: {yaml: `
apiVersion: coordination.k8s.io/v1
kind: Lease
spec: {}
`},
	{Resource: "nodes"}: {clusterScoped: true, yaml: `
apiVersion: v1
kind: Node
spec: {}
`},
	{Resource: "persistentvolumeclaims"}: {yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`},
	{Group: "storage.k8s.io", Resource: "csinodes"}: {clusterScoped: true, yaml: `
apiVersion: storage.k8s.io/v1
kind: CSINode
spec:
  drivers:
  - {name: lifecycle.example.com, nodeID: lifecycle}
`},
	{Group: "storage.k8s.io", Resource: "csidrivers"}: {clusterScoped: true, yaml: `
apiVersion: storage.k8s.io/v1
kind: CSIDriver
spec: {}
`},
	{Group: "resource.k8s.io", Resource: "deviceclasses"}: {clusterScoped: true, yaml: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
spec: {}
`},
	{Group: "resource.k8s.io", Resource: "resourceslices"}: {clusterScoped: true, yaml: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
spec:
  driver: lifecycle.example.com
  pool: {name: pool, generation: 1, resourceSliceCount: 1}
  devices:
  - name: device
`},
	{Group: "resource.k8s.io", Resource: "resourceclaims"}: {yaml: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
spec:
  devices:
    requests:
    - name: req
      exactly:
        deviceClassName: lifecycle.example.com
`},
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: {yaml: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
spec:
  spec:
    devices:
      requests:
      - name: req
        exactly:
          deviceClassName: lifecycle.example.com
`},
	{Group: "resource.k8s.io", Resource: "resourcepoolstatusrequests"}: {clusterScoped: true, yaml: `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourcePoolStatusRequest
spec:
  driver: lifecycle.example.com
`},
	{Group: "scheduling.k8s.io", Resource: "workloads"}: {yaml: `
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
spec:
  podGroupTemplates:
  - name: group
    schedulingPolicy:
      basic: {}
`},
	{Group: "scheduling.k8s.io", Resource: "podgroups"}: {yaml: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
spec:
  schedulingPolicy:
    basic: {}
`},
	{Group: "scheduling.k8s.io", Resource: "compositepodgroups"}: {yaml: `
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
spec:
  workloadRef: {workloadName: lifecycle, templateName: composite}
  schedulingPolicy:
    basic: {}
`},
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}: {clusterScoped: true, yaml: `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
spec:
  resource: {group: apps, resource: deployments}
`},
	{Group: "lifecycle.k8s.io", Resource: "evictionrequests"}: {yaml: `
apiVersion: lifecycle.k8s.io/v1alpha1
kind: EvictionRequest
spec:
  target:
    pod: {name: lifecycle, uid: 00000000-0000-0000-0000-000000000001}
  requester: lifecycle.example.com/requester
  intent: Eviction
`},
	{Group: "lifecycle.k8s.io", Resource: "evictions"}: {yaml: `
apiVersion: lifecycle.k8s.io/v1alpha1
kind: Eviction
spec:
  target:
    pod: {name: lifecycle, uid: 00000000-0000-0000-0000-000000000001}
`},
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}: {clusterScoped: true, yaml: `
apiVersion: certificates.k8s.io/v1
kind: ClusterTrustBundle
spec: {}
`},
}

// template returns a minimal valid object of gr for gate's fixture.
func (g *generator) template(gr schema.GroupResource, gate featuregate.Feature, ns string) (map[string]interface{}, error) {
	t, ok := templates[gr]
	if !ok {
		return nil, fmt.Errorf("the generator has no template of %s (add one to cmd/lifecycle-fixtures-gen/templates.go)", gr)
	}
	obj := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(t.yaml), &obj); err != nil {
		return nil, fmt.Errorf("template of %s: %w", gr, err)
	}
	if t.clusterScoped {
		obj["metadata"] = map[string]interface{}{"name": ns}
	} else {
		obj["metadata"] = map[string]interface{}{"name": "lifecycle", "namespace": ns}
	}
	if gr == (schema.GroupResource{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}) {
		pem, err := trustBundle()
		if err != nil {
			return nil, err
		}
		if err := unstructured.SetNestedField(obj, pem, "spec", "trustBundle"); err != nil {
			return nil, err
		}
	}
	if prefix, ok := g.prefixes[gr]; ok {
		spec := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(podSpec), &spec); err != nil {
			return nil, err
		}
		spec["restartPolicy"] = t.restartPolicy
		fields := make([]string, len(prefix))
		for i, s := range prefix {
			if s.Each != 0 {
				return nil, fmt.Errorf("the pod spec of %s is under a list: %s", gr, prefix)
			}
			fields[i] = s.Field
		}
		if err := unstructured.SetNestedField(obj, spec, fields...); err != nil {
			return nil, fmt.Errorf("template of %s: %w", gr, err)
		}
	}
	return obj, nil
}
