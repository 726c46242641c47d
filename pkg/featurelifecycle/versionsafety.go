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
	"fmt"
	"slices"
	"strings"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/kubernetes/pkg/featurelifecycle/versioncheck"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// setVersionSafety sets a Feature's UpgradeSafe and DowngradeSafe
// conditions: whether its gate blocks moving the emulation version one
// minor version up or down from status.version, as versioncheck decides
// for this Feature alone, from the version changes generated for this
// binary. uses, when not empty, says which stored objects use the feature
// (usecount.go); it is added to a TurnsOffAtTarget message. Messages are
// stable while the inputs are, so a sync writes nothing new.
func setVersionSafety(gate string, status *featuresv1alpha1.FeatureStatus, generation int64, vc *inventory.VersionChanges, uses string, now metav1.Time) {
	if vc == nil {
		return
	}
	at := slices.Index(vc.Versions, status.Version)
	for _, d := range []struct {
		condition string
		step      int
		edge      string
	}{
		{featuresv1alpha1.FeatureConditionUpgradeSafe, 1, "higher"},
		{featuresv1alpha1.FeatureConditionDowngradeSafe, -1, "lower"},
	} {
		c := metav1.Condition{Type: d.condition, ObservedGeneration: generation, LastTransitionTime: now}
		switch to := at + d.step; {
		case at < 0:
			c.Status, c.Reason = metav1.ConditionUnknown, "VersionNotEmulated"
			c.Message = fmt.Sprintf("status.version %q is not a version kube-apiserver %s emulates (%v)", status.Version, vc.BinaryVersion, vc.Versions)
		case to < 0 || to >= len(vc.Versions):
			c.Status, c.Reason = metav1.ConditionUnknown, "NoVersionKnown"
			c.Message = fmt.Sprintf("kube-apiserver %s emulates no version %s than %s", vc.BinaryVersion, d.edge, status.Version)
		default:
			target := vc.Versions[to]
			// The check quotes the stored uses of these very conditions
			// (for kubectl features check): leave them out, uses is here.
			f := featuresv1alpha1.Feature{Spec: featuresv1alpha1.FeatureSpec{Gate: gate}, Status: *status.DeepCopy()}
			meta.RemoveStatusCondition(&f.Status.Conditions, featuresv1alpha1.FeatureConditionUpgradeSafe)
			meta.RemoveStatusCondition(&f.Status.Conditions, featuresv1alpha1.FeatureConditionDowngradeSafe)
			report, err := versioncheck.Check([]featuresv1alpha1.Feature{f}, vc, target, nil)
			switch {
			case err != nil:
				c.Status, c.Reason, c.Message = metav1.ConditionUnknown, "CheckFailed", err.Error()
			case !report.Safe():
				b := report.Blockers[0]
				c.Status, c.Reason, c.Message = metav1.ConditionFalse, b.Reason, b.Message
				switch b.Reason {
				case "InTransition":
					// The finding quotes the active task, which moves.
					c.Message = fmt.Sprintf("%s is %s: wait until it is settled before moving to %s", gate, status.State, target)
				case "TurnsOffAtTarget":
					if uses != "" {
						c.Message += "; " + uses
					}
				case "VersionTaskPending":
					c.Message = fmt.Sprintf("%s has version-keyed tasks left (%s first): wait until they are done before moving to %s", gate, status.Tasks[0].Name, target)
				}
			default:
				c.Status, c.Reason = metav1.ConditionTrue, "NothingBlocks"
				c.Message = fmt.Sprintf("nothing of %s blocks moving the emulation version from %s to %s", gate, status.Version, target)
				for _, ch := range report.Changes {
					if ch.Gate == gate {
						c.Message += "; " + ch.Message
						if ch.Reason == "TurnsOnAtTarget" {
							// Its Enabling tasks, if any, wait for the
							// stored objects uses names (usecount.go).
							c.Reason = "TurnsOnAtTarget"
						}
					}
				}
				if c.Reason == "TurnsOnAtTarget" && strings.HasPrefix(uses, "turning it on") {
					c.Message += "; " + uses
				}
			}
		}
		meta.SetStatusCondition(&status.Conditions, c)
		v := 0.0
		if c.Status == metav1.ConditionFalse {
			v = 1
		}
		direction := "upgrade"
		if d.step < 0 {
			direction = "downgrade"
		}
		versionChangeBlocked.WithLabelValues(gate, direction).Set(v)
	}
}
