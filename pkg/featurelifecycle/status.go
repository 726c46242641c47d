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
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/featurelifecycle/leader"
)

// outbox holds what a pass records once its status write succeeded: the
// events and metrics of transitions and completed tasks.
type outbox []func()

func (o *outbox) add(record func()) { *o = append(*o, record) }

// flush records everything added, in order.
func (o *outbox) flush() {
	for _, record := range *o {
		record()
	}
	*o = nil
}

// statusWriter makes the one status write of a pass, only when the status
// changed, and remembers which copy of each Feature it stepped from.
type statusWriter struct {
	client kubernetes.Interface

	mu sync.Mutex
	// steppedFrom holds, per Feature, the resourceVersion this apiserver
	// last stepped from and then wrote over: while the informer still has
	// that version, the Feature is not stepped again from it.
	steppedFrom map[string]string
}

func newStatusWriter(client kubernetes.Interface) *statusWriter {
	return &statusWriter{client: client, steppedFrom: map[string]string{}}
}

// write stores status unless it is unchanged, then records what after
// holds; the state gauge follows status either way. It says whether it
// wrote.
func (w *statusWriter) write(ctx context.Context, f *featuresv1alpha1.Feature, status *featuresv1alpha1.FeatureStatus, after *outbox) (bool, error) {
	if f.Namespace == KubeNamespace {
		observeState(f.Name, status.State)
	}
	if apiequality.Semantic.DeepEqual(status, &f.Status) {
		after.flush()
		return false, nil
	}
	updated := f.DeepCopy()
	updated.Status = *status
	if _, err := w.client.FeaturesV1alpha1().Features(f.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: "kube-apiserver"}); err != nil {
		return false, err
	}
	after.flush()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.steppedFrom[leader.Key(f)] = f.ResourceVersion
	return true, nil
}

// steppedFromCopy says whether f is the copy this apiserver last stepped
// from and wrote over.
func (w *statusWriter) steppedFromCopy(f *featuresv1alpha1.Feature) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return f.ResourceVersion != "" && w.steppedFrom[leader.Key(f)] == f.ResourceVersion
}

// forget forgets what was recorded of a Feature that is gone.
func (w *statusWriter) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.steppedFrom, key)
}

var allStates = []featuresv1alpha1.FeatureState{featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateDisabled,
	featuresv1alpha1.FeatureStateEnabling, featuresv1alpha1.FeatureStateDisabling}

// observeState sets the state gauge of feature.
func observeState(feature string, state featuresv1alpha1.FeatureState) {
	for _, s := range allStates {
		v := 0.0
		if s == state {
			v = 1
		}
		stateGauge.WithLabelValues(feature, string(s)).Set(v)
	}
}
