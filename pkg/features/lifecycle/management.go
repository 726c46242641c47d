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
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/featuregate"
	zpagesfeatures "k8s.io/component-base/zpages/features"
	kubefeatures "k8s.io/kubernetes/pkg/features"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Management declares how a gate may be managed beyond each component's
// own command line (KEP stages 2 and 3). Every gate may be managed by the
// command line; kube-apiserver opts a gate into another mode with
// --feature-lifecycle-central-gates or --feature-lifecycle-dynamic-gates,
// and refuses to start when the gate's entry here does not allow it.
type Management struct {
	// Central: the gate's other components (kube-controller-manager,
	// kube-scheduler, kubelet) may take its value from the Feature, whose
	// desired state is the apiservers' configured value, instead of their
	// own --feature-gates.
	Central bool
	// Dynamic: the gate takes no configuration and is safe to change while
	// every component runs, so an administrator may set its desired state
	// through the API, and every component, kube-apiserver included,
	// applies it while running. Implies AppliesWhileRunning.
	Dynamic bool
	// AppliesWhileRunning: every component reads the gate each time it
	// uses it, so a component that follows the Feature applies a new
	// desired state while running; otherwise it exits to be restarted with
	// the new value.
	AppliesWhileRunning bool
}

// Managements are the gates that may be managed beyond the command line.
// A feature author adds a gate here after checking where every component
// reads it (the comment says where).
var Managements = map[featuregate.Feature]Management{
	// kube-controller-manager's StatefulSet controller reads the gate on
	// every sync, kube-apiserver's StatefulSet strategy on every write: the
	// KEP's story of a gate set on the apiserver only.
	kubefeatures.MaxUnavailableStatefulSet: {Central: true, AppliesWhileRunning: true},
	// kube-apiserver's pod validation reads the gate on every write of a
	// pod's controller.kubernetes.io/pod-deletion-cost annotation, and
	// kube-controller-manager's ReplicaSet controller whenever it ranks
	// pods to delete; it takes no configuration.
	kubefeatures.PodDeletionCost: {Central: true, Dynamic: true, AppliesWhileRunning: true},
	// The kubelet's server reads the gate on every exec, attach and
	// port-forward request, kube-apiserver's pod subresources on every
	// request they proxy; it takes no configuration, and no gate depends on
	// it.
	kubefeatures.ExtendWebSocketsToKubelet: {Dynamic: true, AppliesWhileRunning: true},
	// The kubelet reads the gate once, when it builds its back-off: it
	// follows a change by restarting.
	kubefeatures.KubeletCrashLoopBackOffMax: {Central: true},
	// Every component reads the gate once, when it installs its /statusz
	// endpoint: one place turns the endpoint on or off everywhere, and the
	// components restart to follow.
	zpagesfeatures.ComponentStatusz: {Central: true},
}

// AppliesWhileRunning says whether components apply a new desired state of
// gate while running (Managements: AppliesWhileRunning or Dynamic).
func AppliesWhileRunning(gate featuregate.Feature) bool {
	m := Managements[gate]
	return m.AppliesWhileRunning || m.Dynamic
}

// OptIns returns the management kube-apiserver's flags opt each gate into:
// Central for the gates of central, Dynamic for those of dynamic. It
// refuses, naming every offending gate, a gate known returns false for, a
// gate in both lists, and a gate whose Managements entry does not allow
// the mode.
func OptIns(central, dynamic []string, known func(featuregate.Feature) bool) (map[featuregate.Feature]featuresv1alpha1.FeatureManagement, error) {
	out := map[featuregate.Feature]featuresv1alpha1.FeatureManagement{}
	var errs []string
	allowed := func(mode featuresv1alpha1.FeatureManagement) string {
		var gates []string
		for g, m := range Managements {
			if (mode == featuresv1alpha1.FeatureManagementCentral && m.Central) || (mode == featuresv1alpha1.FeatureManagementDynamic && m.Dynamic) {
				gates = append(gates, string(g))
			}
		}
		slices.Sort(gates)
		return strings.Join(gates, ", ")
	}
	for _, opt := range []struct {
		flag  string
		mode  featuresv1alpha1.FeatureManagement
		gates []string
	}{
		{"--feature-lifecycle-central-gates", featuresv1alpha1.FeatureManagementCentral, central},
		{"--feature-lifecycle-dynamic-gates", featuresv1alpha1.FeatureManagementDynamic, dynamic},
	} {
		for _, name := range sets.List(sets.New(opt.gates...)) {
			gate := featuregate.Feature(name)
			m := Managements[gate]
			switch {
			case known != nil && !known(gate):
				errs = append(errs, fmt.Sprintf("%s: unknown feature gate %q", opt.flag, name))
			case out[gate] != "":
				errs = append(errs, fmt.Sprintf("%s: %s is also in --feature-lifecycle-central-gates; a gate has one management", opt.flag, name))
			case opt.mode == featuresv1alpha1.FeatureManagementCentral && !m.Central,
				opt.mode == featuresv1alpha1.FeatureManagementDynamic && !m.Dynamic:
				errs = append(errs, fmt.Sprintf("%s: %s cannot be %s: its entry in the lifecycle registry does not allow it (gates that can: %s)",
					opt.flag, name, opt.mode, allowed(opt.mode)))
			default:
				out[gate] = opt.mode
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}
