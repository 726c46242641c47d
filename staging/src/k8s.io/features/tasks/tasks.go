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

// Package tasks lets a third party's controller complete the tasks its
// component owns in a Feature's transition (features.k8s.io, KEP-3920).
//
// A third party declares a task in its Feature's spec.declaration.tasks,
// with the transition that runs it and the component that owns it. When
// the transition reaches it, kube-apiserver waits: the owner's controller
// sees the task in status.tasks (Active), does its work, may report
// progress (Update), and marks it done (Complete); kube-apiserver then goes
// on. The controller needs update on features/status in the Feature's
// namespace and, as the component's reporter, the verb "report" on
// featurereports named after the component there; admission lets it write
// only the done, message and progress of the tasks that component owns.
//
//	if t, ok := tasks.Active(feature, "widget-controller"); ok {
//		if err := migrateWidgets(ctx); err != nil {
//			return err
//		}
//		return tasks.Complete(ctx, client, feature.Namespace, feature.Name, t.Name, "rewrote 1200 widgets")
//	}
package tasks

import (
	"context"
	"fmt"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// Active returns the task of f's transition that kube-apiserver waits on
// now, when owner owns it and has not marked it done.
func Active(f *featuresv1alpha1.Feature, owner string) (featuresv1alpha1.FeatureTask, bool) {
	if f == nil || len(f.Status.Tasks) == 0 {
		return featuresv1alpha1.FeatureTask{}, false
	}
	t := f.Status.Tasks[0]
	if t.Owner != owner || t.Done {
		return featuresv1alpha1.FeatureTask{}, false
	}
	return t, true
}

// Update sets the progress and message of the task named task of the
// Feature namespace/name, retrying on conflicts with kube-apiserver's own
// writes. It fails when the Feature no longer lists the task (its
// transition ended or was reversed).
func Update(ctx context.Context, client kubernetes.Interface, namespace, name, task, progress, message string) error {
	return write(ctx, client, namespace, name, task, func(t *featuresv1alpha1.FeatureTask) {
		t.Progress, t.Message = progress, message
	})
}

// Complete marks the task named task of the Feature namespace/name done,
// with a message saying what was done, retrying on conflicts with
// kube-apiserver's own writes. Completing a task already done is no error.
func Complete(ctx context.Context, client kubernetes.Interface, namespace, name, task, message string) error {
	return write(ctx, client, namespace, name, task, func(t *featuresv1alpha1.FeatureTask) {
		t.Done, t.Message = true, message
	})
}

// write applies change to the task and updates the Feature's status.
func write(ctx context.Context, client kubernetes.Interface, namespace, name, task string, change func(*featuresv1alpha1.FeatureTask)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		f, err := client.FeaturesV1alpha1().Features(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range f.Status.Tasks {
			if f.Status.Tasks[i].Name != task {
				continue
			}
			before := f.Status.Tasks[i]
			change(&f.Status.Tasks[i])
			if f.Status.Tasks[i] == before {
				return nil
			}
			_, err = client.FeaturesV1alpha1().Features(namespace).UpdateStatus(ctx, f, metav1.UpdateOptions{})
			return err
		}
		return fmt.Errorf("feature %s/%s has no task %q in status.tasks: its transition is over or was reversed", namespace, name, task)
	})
}
