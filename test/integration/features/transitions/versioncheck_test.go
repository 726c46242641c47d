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

package transitions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	featuresclient "k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/cmd/kubectl-features/app"
	"k8s.io/kubernetes/pkg/featurelifecycle/versioncheck"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// TestVersionCheck runs kubectl features check against our kube-apiserver
// at 1.37: lowering the emulation version to 1.36 is blocked by the
// features on now that are off by default or missing at 1.36, each named
// with what to do; once the apiserver runs with them off (and the Features
// are Disabled) and the check is told which gates the 1.36 apiservers will keep
// on, it is safe.
func TestVersionCheck(t *testing.T) {
	ctx := context.Background()
	apiserver := harness.StartAPIServerProcess(t, "versioncheck", harness.SharedEtcd().Prefix, harness.LifecycleFlags...)
	client := featuresclient.NewForConfigOrDie(apiserver.ClientConfig())
	waitForFeatureState(t, client, "MaxUnavailableStatefulSet", featuresv1alpha1.FeatureStateEnabled)

	// The Feature's own signal, set by its leader.
	waitForCondition(t, client, "MaxUnavailableStatefulSet", featuresv1alpha1.FeatureConditionDowngradeSafe, metav1.ConditionFalse, "TurnsOffAtTarget")
	waitForCondition(t, client, "MaxUnavailableStatefulSet", featuresv1alpha1.FeatureConditionUpgradeSafe, metav1.ConditionUnknown, "NoVersionKnown")

	var out bytes.Buffer
	err := app.Check(ctx, &out, client, "kube-system", "1.36", nil)
	if !errors.Is(err, app.ErrBlocked) {
		t.Fatalf("check --to-version 1.36 at 1.37 = %v, want blocked:\n%s", err, out.String())
	}
	t.Logf("kubectl features check --to-version 1.36:\n%s", out.String())
	for _, want := range []string{"Emulation version 1.37 -> 1.36: NOT SAFE", "BLOCKER", "MaxUnavailableStatefulSet", "TurnsOffAtTarget", "wait for its Feature to be Disabled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q", want)
		}
	}

	// What the operator does: turn off what is missing at 1.36 or should
	// not stay on, keep on with 1.36's flags what must stay.
	list, err := client.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vc, err := inventory.LoadVersionChanges()
	if err != nil {
		t.Fatal(err)
	}
	report, err := versioncheck.Check(list.Items, vc, "1.36", nil)
	if err != nil {
		t.Fatal(err)
	}
	var off []string
	keep := map[string]bool{}
	for _, b := range report.Blockers {
		switch {
		case b.Reason == "GateMissingAtTarget" || b.Gate == "MaxUnavailableStatefulSet":
			off = append(off, b.Gate)
		case b.Reason == "TurnsOffAtTarget":
			keep[b.Gate] = true
		default:
			t.Errorf("unexpected blocker at rest: %+v", b)
		}
	}
	flags := append([]string{}, harness.LifecycleFlags...)
	gates := "FeatureLifecycle=true"
	for _, g := range off {
		gates += "," + g + "=false"
	}
	flags[0] = "--feature-gates=" + gates
	apiserver.Restart(t, flags...)
	for _, g := range off {
		waitForFeatureState(t, client, g, featuresv1alpha1.FeatureStateDisabled)
	}
	waitForCondition(t, client, "MaxUnavailableStatefulSet", featuresv1alpha1.FeatureConditionDowngradeSafe, metav1.ConditionTrue, "NothingBlocks")
	out.Reset()
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		out.Reset()
		err := app.Check(ctx, &out, client, "kube-system", "1.36", keep)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("with %v off and %d gates kept on at 1.36, the check still says:\n%s", off, len(keep), out.String())
	}
	t.Logf("with %v off and %d gates kept on (--feature-gates of 1.36):\n%s", off, len(keep), out.String())
	if !strings.Contains(out.String(), "1.37 -> 1.36: safe") {
		t.Errorf("the report does not say the move is safe:\n%s", out.String())
	}
}

// waitForFeatureState waits until gate's Feature is in state.
func waitForFeatureState(t *testing.T, client featuresclient.Interface, gate string, state featuresv1alpha1.FeatureState) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, f := range list.Items {
			if f.Spec.Gate == gate {
				last = fmt.Sprintf("%s (%d tasks)", f.Status.State, len(f.Status.Tasks))
				return f.Status.State == state, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("Feature of %s is %s, want %s", gate, last, state)
	}
}

// waitForCondition waits until gate's Feature has the condition with status
// and reason.
func waitForCondition(t *testing.T, client featuresclient.Interface, gate, condition string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.FeaturesV1alpha1().Features("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, f := range list.Items {
			if f.Spec.Gate != gate {
				continue
			}
			c := meta.FindStatusCondition(f.Status.Conditions, condition)
			if c == nil {
				last = "absent"
				return false, nil
			}
			last = fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
			return c.Status == status && c.Reason == reason, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s of %s is %s, want %s/%s", condition, gate, last, status, reason)
	}
}
