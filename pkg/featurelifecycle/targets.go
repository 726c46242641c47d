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

package featurelifecycle

import (
	"context"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	featuresinformers "k8s.io/client-go/informers"
	featuresclient "k8s.io/client-go/kubernetes"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/features/cohort"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// targets publishes, as each followed Feature's leader, the FeatureTarget
// that the components following the Feature watch instead of the Feature:
// what they take, written only when that changes, so that the Feature's
// status writes reach no follower.
type targets struct {
	client   featuresclient.Interface
	lister   featureslisters.FeatureTargetLister
	informer cache.SharedIndexInformer
}

// newTargets returns the targets job. A target changed or deleted by
// anyone but the leader brings its Feature back (enqueue), so that the
// leader writes it again.
func newTargets(client featuresclient.Interface, factory featuresinformers.SharedInformerFactory, enqueue func(key string)) (*targets, error) {
	informer := factory.Features().V1alpha1().FeatureTargets()
	t := &targets{client: client, lister: informer.Lister(), informer: informer.Informer()}
	requeue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			enqueue(key)
		}
	}
	_, err := t.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { requeue(obj) },
		DeleteFunc: requeue,
	})
	return t, err
}

// targetOf returns what the components following f take, given the status
// its leader writes, and the target they take now (nil: none). nil: f has
// no target, because no component follows it (management CommandLine, or
// no desired state). While a Dynamic Feature rolls out in steps
// (spec.rollout) and its leader has not published the rollout of its
// current desired state yet, the target stays as it is: a follower never
// takes a value ahead of the rollout.
func targetOf(f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, current *featuresv1alpha1.FeatureTargetSpec) *featuresv1alpha1.FeatureTargetSpec {
	m := f.Spec.Management
	if m != featuresv1alpha1.FeatureManagementCentral && m != featuresv1alpha1.FeatureManagementDynamic {
		return nil
	}
	desired := f.Spec.DesiredState
	if desired != featuresv1alpha1.FeatureDesiredStateEnabled && desired != featuresv1alpha1.FeatureDesiredStateDisabled {
		return nil
	}
	spec := &featuresv1alpha1.FeatureTargetSpec{
		Gate:                f.Spec.Gate,
		Management:          m,
		DesiredState:        desired,
		AppliesWhileRunning: status.AppliesWhileRunning || m == featuresv1alpha1.FeatureManagementDynamic,
	}
	if f.Spec.Rollout == nil || m != featuresv1alpha1.FeatureManagementDynamic {
		return spec
	}
	r := status.Rollout
	if r == nil || r.To != desired {
		return current
	}
	// An unreadable cohort (validation refuses one) counts as nobody: the
	// safe side.
	switch c, err := cohort.FromAPI(r.Cohort); {
	case err == nil && c.All:
		spec.DesiredState = r.To
	case err != nil || c.Empty():
		spec.DesiredState = r.From
	default:
		spec.DesiredState = r.From
		spec.Rollout = &featuresv1alpha1.FeatureTargetRollout{Scope: r.Scope, DesiredState: r.To, Cohort: *r.Cohort.DeepCopy()}
	}
	return spec
}

// publish makes f's FeatureTarget say what targetOf says, given the status
// f's leader wrote: it creates, updates or deletes the target, and writes
// nothing when the target already says it.
func (t *targets) publish(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus) error {
	existing, err := t.lister.FeatureTargets(f.Namespace).Get(f.Name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var current *featuresv1alpha1.FeatureTargetSpec
	if existing != nil {
		current = &existing.Spec
	}
	spec := targetOf(f, status, current)
	if spec == nil {
		return t.delete(ctx, existing)
	}
	owners := []metav1.OwnerReference{*metav1.NewControllerRef(f, featuresv1alpha1.SchemeGroupVersion.WithKind("Feature"))}
	owners[0].BlockOwnerDeletion = ptr.To(false)
	api := t.client.FeaturesV1alpha1().FeatureTargets(f.Namespace)
	if existing == nil {
		_, err = api.Create(ctx, &featuresv1alpha1.FeatureTarget{
			ObjectMeta: metav1.ObjectMeta{Name: f.Name, Namespace: f.Namespace, OwnerReferences: owners},
			Spec:       *spec,
		}, metav1.CreateOptions{FieldManager: "kube-apiserver"})
		if apierrors.IsAlreadyExists(err) {
			// The informer has not seen it yet: update what is stored.
			existing, err = api.Get(ctx, f.Name, metav1.GetOptions{})
		}
		if err != nil {
			return err
		}
	}
	if existing != nil {
		if apiequality.Semantic.DeepEqual(existing.Spec, *spec) && apiequality.Semantic.DeepEqual(existing.OwnerReferences, owners) {
			return nil
		}
		updated := existing.DeepCopy()
		updated.Spec, updated.OwnerReferences = *spec, owners
		if _, err := api.Update(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"}); err != nil {
			return err
		}
	}
	klog.FromContext(ctx).V(2).Info("Published the target of a Feature", "feature", klog.KObj(f), "desiredState", spec.DesiredState, "rollout", spec.Rollout != nil)
	return nil
}

// forget deletes the target of a Feature that is gone, when there is one
// and a Feature controls it (the garbage collector does too, from its owner
// reference). A target no Feature controls is not the lifecycle's: it is
// left as it is, as controllers leave the objects they did not create.
func (t *targets) forget(ctx context.Context, namespace, name string) error {
	existing, err := t.lister.FeatureTargets(namespace).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if existing == nil {
		return nil
	}
	if owner := metav1.GetControllerOf(existing); owner == nil || !isFeature(owner) {
		return nil
	}
	return t.delete(ctx, existing)
}

// delete deletes existing, if not nil, unless it was replaced meanwhile.
func (t *targets) delete(ctx context.Context, existing *featuresv1alpha1.FeatureTarget) error {
	if existing == nil {
		return nil
	}
	err := t.client.FeaturesV1alpha1().FeatureTargets(existing.Namespace).Delete(ctx, existing.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &existing.UID}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		klog.FromContext(ctx).V(2).Info("Deleted the target of a Feature that no component follows", "featureTarget", klog.KObj(existing))
	}
	return err
}

// isFeature reports whether ref names a Feature, of any version of
// features.k8s.io.
func isFeature(ref *metav1.OwnerReference) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == featuresv1alpha1.GroupName && ref.Kind == "Feature"
}
