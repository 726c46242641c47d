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

package migrator

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// PodTemplateResources returns the group-resources that embed a pod
// template, in the order a migration should clear them: a ReplicaSet before
// its Deployment and a Job before its CronJob, so that a controller comparing
// its template with its children's finds them cleared alike and does not
// start a rollout of its own. Pods are not in the list: most of a pod's spec
// is immutable, and PodTemplateSpec reaches a pod's spec for a ClearFields
// over pods when the field is mutable.
func PodTemplateResources() []schema.GroupResource {
	out := make([]schema.GroupResource, len(podTemplateResources))
	for i, r := range podTemplateResources {
		out[i] = r.resource
	}
	return out
}

// podTemplateResources are PodTemplateResources, in order, each with the
// internal type of its objects.
var podTemplateResources = []struct {
	resource schema.GroupResource
	kind     reflect.Type
}{
	{api.Resource("podtemplates"), reflect.TypeFor[*api.PodTemplate]()},
	{api.Resource("replicationcontrollers"), reflect.TypeFor[*api.ReplicationController]()},
	{apps.Resource("replicasets"), reflect.TypeFor[*apps.ReplicaSet]()},
	{apps.Resource("deployments"), reflect.TypeFor[*apps.Deployment]()},
	{apps.Resource("statefulsets"), reflect.TypeFor[*apps.StatefulSet]()},
	{apps.Resource("daemonsets"), reflect.TypeFor[*apps.DaemonSet]()},
	{batch.Resource("jobs"), reflect.TypeFor[*batch.Job]()},
	{batch.Resource("cronjobs"), reflect.TypeFor[*batch.CronJob]()},
}

// PodTemplateType returns the internal type of the objects of gr, one of
// PodTemplateResources (e.g. *apps.Deployment), or nil for another
// resource.
func PodTemplateType(gr schema.GroupResource) reflect.Type {
	for _, r := range podTemplateResources {
		if r.resource == gr {
			return r.kind
		}
	}
	return nil
}

// PodTemplateSpec returns the pod spec of the template obj embeds (a
// CronJob's spec.jobTemplate.spec.template, a pod's own spec) for the
// internal objects of PodTemplateResources and for pods. It returns false
// for any other object and for a ReplicationController without a template.
func PodTemplateSpec(obj runtime.Object) (*api.PodSpec, bool) {
	switch o := obj.(type) {
	case *api.Pod:
		return &o.Spec, true
	case *api.PodTemplate:
		return &o.Template.Spec, true
	case *api.ReplicationController:
		if o.Spec.Template == nil {
			return nil, false
		}
		return &o.Spec.Template.Spec, true
	case *apps.ReplicaSet:
		return &o.Spec.Template.Spec, true
	case *apps.Deployment:
		return &o.Spec.Template.Spec, true
	case *apps.StatefulSet:
		return &o.Spec.Template.Spec, true
	case *apps.DaemonSet:
		return &o.Spec.Template.Spec, true
	case *batch.Job:
		return &o.Spec.Template.Spec, true
	case *batch.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec, true
	}
	return nil, false
}
