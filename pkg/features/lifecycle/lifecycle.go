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

package lifecycle

import (
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/certificates"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubefeatures "k8s.io/kubernetes/pkg/features"

	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
)

// Lifecycle declares what a gate's transitions need besides WaitForUses,
// which every transition runs first.
type Lifecycle struct {
	// OnEnable runs, in order, while the feature is Enabling.
	OnEnable []tasks.Task
	// OnDisable runs, in order, while the feature is Disabling: clearing the
	// fields the feature added, waiting for objects that use it to go away.
	OnDisable []tasks.Task
	// Upgrades run when the cluster's emulation version crosses a version
	// upwards, Downgrades when it crosses one downwards, whatever the
	// feature's state (versiontasks.go). The leader queues them when the
	// version its Feature holds for (status.version) moves, and steps them
	// once every live kube-apiserver emulates that version.
	Upgrades   []OnUpgrade
	Downgrades []OnDowngrade
}

// Inspectors returns, by name, the tasks of l that look at stored objects
// (the ones a fixture must exercise and a harness can check etcd with).
func (l Lifecycle) Inspectors() map[string]tasks.Inspector {
	out := map[string]tasks.Inspector{}
	for _, list := range [][]tasks.Task{l.OnEnable, l.OnDisable} {
		for _, t := range list {
			if in, ok := t.(tasks.Inspector); ok {
				out[t.Name()] = in
			}
		}
	}
	return out
}

// Lifecycles are the explicit registrations of the lifecycle registry: the
// one place a feature author declares the tasks of a gate by hand. Every
// gate the gate inventory (inventory/) finds a storage footprint for also
// has a lifecycle derived from it (Derived); an entry here replaces its
// gate's derived one (Registry). A gate in neither only waits for uses.
// Every entry needs a fixture in testdata/<gate> (see README.md).
var Lifecycles = map[featuregate.Feature]Lifecycle{
	// spec.updateStrategy.rollingUpdate.maxUnavailable of StatefulSets. With
	// the gate off the StatefulSet strategy keeps a stored value on update
	// (maxUnavailableInUse), so the field must be cleared for the feature to
	// be really off; the StatefulSet controller then goes back to one pod at
	// a time. With the gate on, apps/v1 defaulting sets maxUnavailable: 1 on
	// every RollingUpdate StatefulSet written, so the task rewrites all of
	// those: harmless (1 is the behaviour without the feature; the generation
	// moves but the pod template, hence the revision, does not).
	//
	// Derived: the same path, in a task named clear-fields.
	kubefeatures.MaxUnavailableStatefulSet: {
		OnDisable: []tasks.Task{
			tasks.ClearFields("clear-statefulset-max-unavailable",
				"Clear spec.updateStrategy.rollingUpdate.maxUnavailable of every StatefulSet.",
				apps.Resource("statefulsets"), clearStatefulSetMaxUnavailable),
		},
	},

	// Projected clusterTrustBundle volume sources of pods. A pod spec cannot
	// lose a volume source (pods are immutable there), so the feature waits
	// for the admin to delete those pods. Workload templates are left alone:
	// pods created from them with the gate off do not get the source.
	//
	// Derived: would also offer the opt-in clearing of workload templates
	// and wait for Jobs whose template has the source.
	kubefeatures.ClusterTrustBundleProjection: {
		OnDisable: []tasks.Task{
			tasks.WaitForAbsence("wait-for-no-cluster-trust-bundle-volumes",
				"Wait until no pod has a projected clusterTrustBundle volume source; delete those pods to go on.",
				api.Resource("pods"), "clusterTrustBundle volumes", usesClusterTrustBundleProjection),
		},
	},

	// Projected podCertificate volume sources of pods: as for
	// ClusterTrustBundleProjection, the pods have to go. The gate also
	// serves podcertificaterequests.certificates.k8s.io, which are
	// unreachable once it is Disabled: the served-only tasks (the derived ones)
	// offer their deletion (opt-in) and wait until none is stored.
	//
	// Derived: would also offer the opt-in clearing of workload templates
	// and wait for Jobs with the source.
	kubefeatures.PodCertificateRequest: {
		OnDisable: append([]tasks.Task{
			tasks.WaitForAbsence("wait-for-no-pod-certificate-volumes",
				"Wait until no pod has a projected podCertificate volume source; delete those pods to go on.",
				api.Resource("pods"), "podCertificate volumes", usesPodCertificateProjection),
		}, servedOnlyWithTasks(string(kubefeatures.PodCertificateRequest), certificates.Resource("podcertificaterequests"))...),
	},

	// spec.hostnameOverride of pods and of the pod templates of workloads.
	//
	// Clearing a template field changes the template, and a changed template
	// rolls out new pods: StatefulSets and DaemonSets replace theirs (their
	// revisions hash the template), CronJobs' next Jobs differ. That is why
	// the first task is opt-in: it runs only if the admin names it in the
	// Feature's features.k8s.io/opt-in-tasks annotation before the
	// transition. Without it the templates keep the field (pods created from
	// them with the gate off do not get it, the pod strategy drops it), and
	// would give it to new pods again if the gate were turned back on.
	//
	// The pods themselves cannot be changed: the second task holds until the
	// admin (or a rollout) deletes those that use the field.
	//
	// Not derived: the gate is locked at 1.37 (GA), the version the
	// inventory examines; the entry serves emulated versions 1.34-1.36.
	kubefeatures.HostnameOverride: {
		OnDisable: []tasks.Task{
			tasks.OptIn(tasks.ClearPodTemplateFields("clear-template-hostname-override",
				"Clear spec.hostnameOverride in the pod template of every workload; this rolls out new pods.",
				clearHostnameOverride)),
			tasks.WaitForAbsence("wait-for-no-hostname-override-pods",
				"Wait until no pod sets spec.hostnameOverride; delete those pods to go on.",
				api.Resource("pods"), "spec.hostnameOverride", usesHostnameOverride),
		},
	},

	// A stateless gate, the KEP's OpenAPIV3 story (OpenAPIV3 itself went GA
	// in 1.27 and its gate is gone from 1.36). OpenAPIEnums (beta, on by
	// default, not locked) only changes the OpenAPI documents the apiservers
	// publish – enum values in the schemas – and stores nothing, so turning
	// it off or on needs no task beyond the implicit WaitForUses. It is
	// registered, empty, to say so explicitly. Not in the inventory: no
	// strategy reads it.
	genericfeatures.OpenAPIEnums: {},
}

// clearStatefulSetMaxUnavailable clears what MaxUnavailableStatefulSet adds.
func clearStatefulSetMaxUnavailable(ss *apps.StatefulSet) bool {
	ru := ss.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return false
	}
	ru.MaxUnavailable = nil
	return true
}

// usesClusterTrustBundleProjection reports whether a pod projects a
// ClusterTrustBundle.
func usesClusterTrustBundleProjection(pod *api.Pod) bool {
	return projects(&pod.Spec, func(s *api.VolumeProjection) bool { return s.ClusterTrustBundle != nil })
}

// usesPodCertificateProjection reports whether a pod projects a pod
// certificate.
func usesPodCertificateProjection(pod *api.Pod) bool {
	return projects(&pod.Spec, func(s *api.VolumeProjection) bool { return s.PodCertificate != nil })
}

// projects reports whether a projected volume of spec has a source matching
// source.
func projects(spec *api.PodSpec, source func(*api.VolumeProjection) bool) bool {
	for i := range spec.Volumes {
		p := spec.Volumes[i].Projected
		if p == nil {
			continue
		}
		for j := range p.Sources {
			if source(&p.Sources[j]) {
				return true
			}
		}
	}
	return false
}

// usesHostnameOverride reports whether a pod sets spec.hostnameOverride.
func usesHostnameOverride(pod *api.Pod) bool {
	return pod.Spec.HostnameOverride != nil
}

// clearHostnameOverride clears spec.hostnameOverride of a pod template.
func clearHostnameOverride(spec *api.PodSpec) bool {
	if spec.HostnameOverride == nil {
		return false
	}
	spec.HostnameOverride = nil
	return true
}
