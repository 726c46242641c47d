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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
	"k8s.io/kubernetes/pkg/featurelifecycle/transition"
)

// retirement is the job of the Features of kube-system that their gate no
// longer announces: those whose gate no live kube-apiserver knows (kept,
// marked Known=False, deleted some minor versions later), and those named
// after an older rule of the gate name mapping.
type retirement struct {
	self       string
	client     kubernetes.Interface
	recorder   record.EventRecorder
	features   featureslisters.FeatureLister
	elector    *leader.Elector
	apiservers *apiServers
	gates      *gateSpecs
	// livenessWindow, retainMinorVersions and resync are Config's.
	livenessWindow      time.Duration
	retainMinorVersions int
	resync              time.Duration
}

// syncUnknown marks a Feature whose gate this apiserver does not know, when
// it leads the Feature among all live apiservers because no live apiserver
// reports the gate: the Feature is kept with Known=False, and deleted once
// this apiserver's version is more than RetainMinorVersions minor versions
// past the version in its status. A Feature announced by a newer apiserver
// (a downgrade) is only marked.
func (r *retirement) syncUnknown(ctx context.Context, f *featuresv1alpha1.Feature, now time.Time) (time.Duration, error) {
	key := leader.Key(f)
	leaderName, ok := r.elector.Leader(f)
	live, err := r.apiservers.live(now)
	if err != nil {
		return 0, err
	}
	config := transition.ConfigurationOf(f, live)
	reported := len(config.Enabled)+len(config.Disabled) > 0
	// Right after a Feature is created, or its uses are reset, nobody
	// reports a gate that some apiserver knows either: the announcer
	// creates a Feature before its reporter writes uses. Give the
	// apiservers that know it a liveness window to report.
	quietSince := f.CreationTimestamp.Time
	if f.Status.UsesResetTime != nil && f.Status.UsesResetTime.After(quietSince) {
		quietSince = f.Status.UsesResetTime.Time
	}
	settling := r.livenessWindow - now.Sub(quietSince)
	leads := ok && leaderName == r.self && !reported && settling <= 0
	r.elector.Observe(key, leads)
	if !leads {
		if ok && leaderName == r.self && !reported {
			return settling, nil
		}
		return 0, nil
	}
	message, deleted, err := r.unknownMessage(ctx, f)
	if deleted || err != nil {
		return 0, err
	}
	status := f.Status.DeepCopy()
	transition.SetKnown(status, f.Generation, false, "NoLiveAPIServerKnowsGate", message, metav1.NewTime(now))
	if apiequality.Semantic.DeepEqual(status, &f.Status) {
		return 0, nil
	}
	updated := f.DeepCopy()
	updated.Status = *status
	if _, err := r.client.FeaturesV1alpha1().Features(f.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"}); err != nil {
		return 0, err
	}
	if !meta.IsStatusConditionFalse(f.Status.Conditions, featuresv1alpha1.FeatureConditionKnown) {
		r.recorder.Eventf(f, corev1.EventTypeWarning, "GateUnknown", "%s", message)
	}
	return 0, nil
}

// unknownMessage returns what the Known=False condition of f says, or
// deletes f when it was announced more than RetainMinorVersions minor
// versions before this apiserver's.
func (r *retirement) unknownMessage(ctx context.Context, f *featuresv1alpha1.Feature) (string, bool, error) {
	own := r.gates.gate.EmulationVersion()
	retain := uint(r.retainMinorVersions)
	announced, err := version.Parse(f.Status.Version)
	switch {
	case err != nil:
		return fmt.Sprintf("no live kube-apiserver knows gate %s; kept, since status.version %q is not a version", f.Spec.Gate, f.Status.Version), false, nil
	case announced.Major() != own.Major() || announced.Minor() >= own.Minor():
		return fmt.Sprintf("no live kube-apiserver knows gate %s, announced at %s by a newer kube-apiserver than this %d.%d; kept", f.Spec.Gate, f.Status.Version, own.Major(), own.Minor()), false, nil
	case own.Minor()-announced.Minor() <= retain:
		return fmt.Sprintf("no live kube-apiserver knows gate %s, last announced at %s; kept until %d.%d, deleted from %d.%d on",
			f.Spec.Gate, f.Status.Version, own.Major(), announced.Minor()+retain, own.Major(), announced.Minor()+retain+1), false, nil
	}
	err = r.client.FeaturesV1alpha1().Features(f.Namespace).Delete(ctx, f.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &f.UID, ResourceVersion: &f.ResourceVersion}})
	if apierrors.IsNotFound(err) {
		err = nil
	}
	if err != nil {
		return "", false, err
	}
	r.recorder.Eventf(f, corev1.EventTypeNormal, "FeatureDeleted", "no live kube-apiserver knows gate %s, last announced at %s, %d minor versions ago (more than %d): deleted the Feature",
		f.Spec.Gate, f.Status.Version, own.Minor()-announced.Minor(), r.retainMinorVersions)
	klog.FromContext(ctx).Info("Deleted a Feature no live kube-apiserver knows", "feature", leader.Key(f), "version", f.Status.Version)
	r.elector.Forget(leader.Key(f))
	return "", true, nil
}

// retireRenamed deletes a Feature named after an older rule of the gate
// name mapping (a release renamed it, see docs/release-notes.md) once the
// announcer has created the Feature under the current name, which takes
// over: nothing announces or reports under the old name any more.
func (r *retirement) retireRenamed(ctx context.Context, f *featuresv1alpha1.Feature, current string) (time.Duration, error) {
	if _, err := r.features.Features(f.Namespace).Get(current); apierrors.IsNotFound(err) {
		return r.resync, nil // not announced yet
	} else if err != nil {
		return 0, err
	}
	err := r.client.FeaturesV1alpha1().Features(f.Namespace).Delete(ctx, f.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &f.UID, ResourceVersion: &f.ResourceVersion}})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	r.recorder.Eventf(f, corev1.EventTypeNormal, "FeatureRenamed", "gate %s is announced as Feature %s now: deleted this Feature", f.Spec.Gate, current)
	klog.FromContext(ctx).Info("Deleted a Feature under the old name of its gate", "feature", leader.Key(f), "gate", f.Spec.Gate, "current", current)
	r.elector.Forget(leader.Key(f))
	return 0, nil
}
