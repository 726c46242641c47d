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

package customresources

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/test/integration/features/harness"
)

var gizmosGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gizmos"}

// stateLog records the states a Feature goes through, as a watch sees them.
type stateLog struct {
	mu     sync.Mutex
	states []string
	offAt  time.Time
}

// watchStates records the states of the vendor's Feature name until the
// test ends.
func watchStates(t *testing.T, client kubernetes.Interface, name string) *stateLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := client.FeaturesV1alpha1().Features(vendor).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		t.Fatal(err)
	}
	log := &stateLog{}
	go func() {
		for ev := range w.ResultChan() {
			f, ok := ev.Object.(*featuresv1alpha1.Feature)
			if !ok {
				continue
			}
			log.mu.Lock()
			if s := string(f.Status.State); len(log.states) == 0 || log.states[len(log.states)-1] != s {
				log.states = append(log.states, s)
				if f.Status.State == featuresv1alpha1.FeatureStateDisabled && log.offAt.IsZero() {
					log.offAt = time.Now()
				}
			}
			log.mu.Unlock()
		}
	}()
	return log
}

// firstOff returns when the watch first saw Disabled, and the states it saw.
func (l *stateLog) firstOff() (time.Time, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.offAt, append([]string(nil), l.states...)
}

// sizes counts the Gizmos etcd holds, read directly, by spec.size ("" for
// none).
func sizes(t *testing.T, prefix string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, spec := range harness.StoredSpecs(t, prefix, "example.com", "gizmos", vendor) {
		s, _ := spec["size"].(string)
		out[s]++
	}
	return out
}

// checkpointPass reads the pass of a task's checkpoint.
func checkpointPass(task featuresv1alpha1.FeatureTask) int64 {
	var cp struct {
		Pass int64 `json:"pass"`
	}
	_ = json.Unmarshal([]byte(task.Checkpoint), &cp)
	return cp.Pass
}

// TestRefusedValuesHoldOrClear: values of an enum field refused while their
// Feature is off are never stored when the Feature is Disabled. The binding of
// the Gizmo CRD refuses Huge with the default whenStored, Hold, for the
// Feature huge-gizmos, and Giant with whenStored Clear for giant-gizmos; 300
// stored Gizmos hold each. Turned off, huge-gizmos holds Disabling through
// pass after pass, naming ten of the 300 Gizmos that etcd, read directly,
// still holds as Huge, keeps a held value on an unrelated update, refuses
// a new one; once their owners changed or deleted them it reaches Disabled, and
// etcd holds no Huge. giant-gizmos reaches Disabled with every Giant cleared
// from etcd, the 300 Gizmos kept.
func TestRefusedValuesHoldOrClear(t *testing.T) {
	const n = 300
	ctx := context.Background()
	prefix := harness.SharedEtcd().Prefix
	apiserver := harness.StartAPIServerProcess(t, "apiserver", prefix,
		"--feature-gates=FeatureLifecycle=true", "--runtime-config=features.k8s.io/v1alpha1=true")
	cfg := apiserver.ClientConfig()
	var seen bytes.Buffer
	cfg.WarningHandler = restclient.NewWarningWriter(&seen, restclient.WarningWriterOptions{})
	admin := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	installVendor(t, admin, "HugeGizmos", "GiantGizmos")
	createCRD(t, apiextensionsclient.NewForConfigOrDie(cfg), vendorCRD("gizmos", "Gizmo"))
	refuse := featuresv1alpha1.CustomResourceWhenOffRefuse
	if _, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Create(ctx, binding("gizmos.example.com",
		featuresv1alpha1.CustomResourceFieldBinding{Name: "huge", Path: "spec.size", Value: ptr.To("Huge"), Feature: vendorFeature("huge-gizmos"), WhenOff: refuse},
		featuresv1alpha1.CustomResourceFieldBinding{Name: "giant", Path: "spec.size", Value: ptr.To("Giant"), Feature: vendorFeature("giant-gizmos"), WhenOff: refuse,
			WhenStored: featuresv1alpha1.CustomResourceWhenStoredClear},
	), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gizmo := func(name, size string) *unstructured.Unstructured {
		return vendorObject("Gizmo", name, map[string]interface{}{"size": size})
	}
	createAll(t, dyn, gizmosGVR, 2*n+10, func(i int) *unstructured.Unstructured {
		switch {
		case i < n:
			return gizmo(fmt.Sprintf("huge-%03d", i), "Huge")
		case i < 2*n:
			return gizmo(fmt.Sprintf("giant-%03d", i-n), "Giant")
		}
		return gizmo(fmt.Sprintf("small-%03d", i-2*n), "Small")
	})
	if got := sizes(t, prefix); got["Huge"] != n || got["Giant"] != n || got["Small"] != 10 {
		t.Fatalf("etcd holds %v before the Features turn off, want %d Huge, %d Giant, 10 Small", got, n, n)
	}
	// The default of a refused value is Hold.
	if b, err := admin.FeaturesV1alpha1().CustomResourceFeatureBindings().Get(ctx, "gizmos.example.com", metav1.GetOptions{}); err != nil || b.Spec.Bindings[0].WhenStored != featuresv1alpha1.CustomResourceWhenStoredHold {
		t.Fatalf("the binding of Huge: %+v, %v; want whenStored Hold by default", b, err)
	}

	// Hold.
	states := watchStates(t, admin, "huge-gizmos")
	asked := time.Now()
	setDesired(t, admin, "huge-gizmos", featuresv1alpha1.FeatureDesiredStateDisabled)
	const task = "wait-for-no-gizmos-example-com"
	const held = `300 gizmos.example.com in 1 namespace hold spec.size "Huge": change or delete them to turn the feature off: `
	var named time.Duration
	f := waitForState(t, admin, "huge-gizmos", featuresv1alpha1.FeatureStateDisabling, 2*time.Minute, func(f *featuresv1alpha1.Feature) bool {
		if len(f.Status.Tasks) == 0 || f.Status.Tasks[0].Name != task || !strings.HasPrefix(f.Status.Tasks[0].Message, held) {
			return false
		}
		if named == 0 {
			named = time.Since(asked)
		}
		// Two passes found them: the third is under way.
		return checkpointPass(f.Status.Tasks[0]) >= 3
	})
	sample := strings.Split(strings.TrimSuffix(strings.TrimPrefix(f.Status.Tasks[0].Message, held), ", ..."), ", ")
	if len(sample) != 10 || !strings.HasPrefix(sample[0], vendor+"/huge-") {
		t.Errorf("the message names %d Gizmos (%q), want 10", len(sample), sample)
	}
	heldFor := time.Since(asked)
	if got := sizes(t, prefix); got["Huge"] != n {
		t.Fatalf("while huge-gizmos holds Disabling, etcd holds %d Huge, want %d", got["Huge"], n)
	}
	// A new Huge is refused; an unrelated update of a held one keeps it,
	// with a warning.
	admitted(t, dyn, gizmosGVR, gizmo("probe", "Huge"), true)
	err := create(dyn, gizmosGVR, gizmo("new-huge", "Huge"))
	if want := `spec.size: Forbidden: spec.size "Huge" cannot be set: feature widgets-system/huge-gizmos is Disabling`; !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("creating a Huge Gizmo while huge-gizmos turns off: want 422 with %q, got %v", want, err)
	}
	seen.Reset()
	if _, err := dyn.Resource(gizmosGVR).Namespace(vendor).Patch(ctx, "huge-000", types.MergePatchType, []byte(`{"spec":{"label":"kept"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := `spec.size "Huge" was kept as the object held it: feature widgets-system/huge-gizmos is Disabling; change it to let the feature turn off`; !strings.Contains(seen.String(), want) {
		t.Errorf("warnings of an update of a held Gizmo: %q, want %q", seen.String(), want)
	}
	if spec := harness.StoredSpecs(t, prefix, "example.com", "gizmos", vendor)["huge-000"]; spec["size"] != "Huge" || spec["label"] != "kept" {
		t.Errorf("the updated held Gizmo is stored as %v", spec)
	}
	if off, seen := states.firstOff(); !off.IsZero() {
		t.Fatalf("huge-gizmos reached Disabled while %d Gizmos held Huge (states %v)", n, seen)
	}
	// Their owners make half of them Small and delete the others.
	changed := time.Now()
	for i := range n {
		name := fmt.Sprintf("huge-%03d", i)
		var err error
		if i%2 == 0 {
			_, err = dyn.Resource(gizmosGVR).Namespace(vendor).Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"size":"Small"}}`), metav1.PatchOptions{})
		} else {
			err = dyn.Resource(gizmosGVR).Namespace(vendor).Delete(ctx, name, metav1.DeleteOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	lastChange := time.Now()
	waitForState(t, admin, "huge-gizmos", featuresv1alpha1.FeatureStateDisabled, 2*time.Minute, nil)
	got := sizes(t, prefix)
	if got["Huge"] != 0 || got["Small"] != 10+n/2 {
		t.Errorf("with huge-gizmos Disabled, etcd holds %v: want no Huge and %d Small", got, 10+n/2)
	}
	offAt, seenStates := states.firstOff()
	if offAt.Before(lastChange) {
		t.Errorf("huge-gizmos was first Disabled at %v, before the last Gizmo changed at %v (states %v)", offAt, lastChange, seenStates)
	}
	t.Logf("Hold: huge-gizmos named 10 of %d Huge Gizmos %.1fs after it was asked Disabled and held Disabling for %.1fs over 2 passes with etcd holding %d Huge; "+
		"its owners changed %d and deleted %d in %.1fs; Disabled %.1fs after the last change, etcd then holding %v; states %v",
		n, named.Seconds(), heldFor.Seconds(), n, n/2, n/2, lastChange.Sub(changed).Seconds(), offAt.Sub(lastChange).Seconds(), got, seenStates)

	// Clear.
	states = watchStates(t, admin, "giant-gizmos")
	asked = time.Now()
	setDesired(t, admin, "giant-gizmos", featuresv1alpha1.FeatureDesiredStateDisabled)
	waitForState(t, admin, "giant-gizmos", featuresv1alpha1.FeatureStateDisabled, 2*time.Minute, nil)
	tookClear := time.Since(asked)
	stored := harness.StoredSpecs(t, prefix, "example.com", "gizmos", vendor)
	got = sizes(t, prefix)
	cleared := 0
	for name, spec := range stored {
		if strings.HasPrefix(name, "giant-") {
			if _, ok := spec["size"]; !ok {
				cleared++
			}
		}
	}
	if got["Giant"] != 0 || cleared != n {
		t.Errorf("with giant-gizmos Disabled, etcd holds %v, %d of %d Giant Gizmos stored without a size: want no Giant, all %d kept and cleared", got, cleared, n, n)
	}
	events, err := admin.CoreV1().Events(vendor).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.name", "giant-gizmos"), fields.OneTermEqualSelector("reason", "TaskCompleted")).String()})
	if err != nil {
		t.Fatal(err)
	}
	var completed []string
	for _, e := range events.Items {
		completed = append(completed, e.Message)
	}
	if !strings.Contains(strings.Join(completed, "\n"), fmt.Sprintf("task clear-gizmos-example-com: %d gizmos.example.com cleared", n)) {
		t.Errorf("TaskCompleted events of giant-gizmos: %q, want clear-gizmos-example-com clearing %d", completed, n)
	}
	_, seenStates = states.firstOff()
	t.Logf("Clear: giant-gizmos Disabled %.1fs after it was asked Disabled, etcd then holding %v (%d Giant Gizmos kept without a size); states %v",
		tookClear.Seconds(), got, cleared, seenStates)
	// No Giant can be written any more.
	admitted(t, dyn, gizmosGVR, gizmo("new-giant", "Giant"), true)
}
