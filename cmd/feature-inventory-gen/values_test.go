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

package main

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

func TestLeafType(t *testing.T) {
	pod := reflect.TypeFor[corev1.Pod]()
	for path, want := range map[string]reflect.Type{
		"spec.initContainers[*].restartPolicy":    reflect.TypeFor[corev1.ContainerRestartPolicy](),
		"spec.restartPolicy":                      reflect.TypeFor[corev1.RestartPolicy](),
		"spec.containers[*].lifecycle.stopSignal": reflect.TypeFor[corev1.Signal](),
		"metadata.labels[*]":                      reflect.TypeFor[string](),
		"spec.nodeSelector":                       reflect.TypeFor[map[string]string](),
	} {
		got, err := leafType(pod, path)
		if err != nil || got != want {
			t.Errorf("leafType(Pod, %s) = %v, %v; want %v", path, got, err, want)
		}
	}
	for _, path := range []string{"spec.nope", "spec.restartPolicy[*].x", "spec.containers.name[*].x"} {
		if got, err := leafType(pod, path); err == nil {
			t.Errorf("leafType(Pod, %s) = %v, want an error", path, got)
		}
	}
}

func TestConstants(t *testing.T) {
	c := newConstantFinder()
	got, err := c.constants(reflect.TypeFor[corev1.ContainerRestartPolicy]())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Always", "Never", "OnFailure"}; !slices.Equal(got, want) {
		t.Errorf("constants of ContainerRestartPolicy = %v, want %v", got, want)
	}
	signals, err := c.constants(reflect.TypeFor[corev1.Signal]())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(signals, "SIGTERM") || !slices.Contains(signals, "SIGRTMAX") {
		t.Errorf("constants of Signal = %v, want SIGTERM and SIGRTMAX among them", signals)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[int32](), reflect.TypeFor[corev1.Container]()} {
		if got, err := c.constants(typ); err != nil || len(got) != 0 {
			t.Errorf("constants of %v = %v, %v; want none", typ, got, err)
		}
	}
}

// TestCommittedValues checks the committed inventory's kept values against
// upstream's dropContainerRestartRules (pkg/api/pod/util.go), which drops an
// init container's restartPolicy only when it is not Always and a regular
// container's whatever its value, and its refused values against
// upstream's validation of tolerations (pkg/apis/core/validation: Gt and
// Lt need TaintTolerationComparisonOperators).
func TestCommittedValues(t *testing.T) {
	data, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	var inv struct {
		Gates map[string]struct {
			Fields map[string][]string            `json:"fields"`
			Keeps  map[string]map[string][]string `json:"keeps"`
		} `json:"gates"`
		GatesWithValueFootprint int                                       `json:"gatesWithValueFootprint"`
		RefusedValues           map[string]map[string]map[string][]string `json:"refusedValues"`
	}
	if err := yaml.Unmarshal(data, &inv); err != nil {
		t.Fatal(err)
	}
	crr := inv.Gates["ContainerRestartRules"]
	for r, prefix := range map[string]string{"pods": "spec.", "deployments.apps": "spec.template.spec.", "podtemplates": "template.spec."} {
		if got := crr.Keeps[r][prefix+"initContainers[*].restartPolicy"]; !slices.Equal(got, []string{"Always"}) {
			t.Errorf("ContainerRestartRules keeps %v of %s's init containers' restartPolicy, want [Always]", got, r)
		}
		if got, ok := crr.Keeps[r][prefix+"containers[*].restartPolicy"]; ok {
			t.Errorf("ContainerRestartRules keeps %v of %s's containers' restartPolicy, want none", got, r)
		}
	}
	if inv.GatesWithValueFootprint != len(inv.RefusedValues) || inv.GatesWithValueFootprint == 0 {
		t.Errorf("gatesWithValueFootprint is %d, %d gates listed", inv.GatesWithValueFootprint, len(inv.RefusedValues))
	}
	if got := inv.RefusedValues["TaintTolerationComparisonOperators"]["pods"]["spec.tolerations[*].operator"]; !slices.Equal(got, []string{"Gt", "Lt"}) {
		t.Errorf("TaintTolerationComparisonOperators refuses %v of pods' tolerations' operator, want [Gt Lt]", got)
	}
	// A value the strategy drops is not listed again as refused.
	for g, byRes := range inv.RefusedValues {
		for r, paths := range byRes {
			for p, values := range paths {
				if fp, ok := inv.Gates[g]; ok && slices.Contains(fp.Fields[r], p) {
					for _, v := range values {
						if !slices.Contains(fp.Keeps[r][p], v) {
							t.Errorf("%s: %s: %s=%s is both dropped and refused", g, r, p, v)
						}
					}
				}
			}
		}
	}
	for g, fp := range inv.Gates {
		for r, paths := range fp.Keeps {
			for p := range paths {
				if !slices.Contains(fp.Fields[r], p) {
					t.Errorf("%s: %s keeps values of %s, which is not among its fields", g, r, p)
				}
			}
		}
	}
}

func TestConstantPaths(t *testing.T) {
	paths, err := valuePaths(reflect.TypeFor[corev1.Pod](), newConstantFinder())
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string][]string{
		"spec.tolerations[*].operator":              {"Equal", "Exists", "Gt", "Lt"},
		"spec.initContainers[*].restartPolicy":      {"Always", "Never", "OnFailure"},
		"spec.securityContext.seLinuxChangePolicy":  {"MountOption", "Recursive"},
		"spec.terminationGracePeriodSeconds":        {"0"},
		"spec.containers[*].ports[*].containerPort": {"0"},
	} {
		if got := paths[p]; !slices.Equal(got, want) {
			t.Errorf("valuePaths(Pod)[%s] = %v, want %v", p, got, want)
		}
	}
	for p := range paths {
		if strings.HasPrefix(p, "metadata.") || strings.HasPrefix(p, "status.") || strings.HasSuffix(p, "]") {
			t.Errorf("valuePaths(Pod) lists %s: metadata, status and list elements are left out", p)
		}
	}
}

func TestErrorsAt(t *testing.T) {
	errs := field.ErrorList{
		field.NotSupported(field.NewPath("spec", "tolerations").Index(2).Child("operator"), "Gt", []string{"Equal", "Exists"}),
		field.Required(field.NewPath("spec", "nodeSelector").Key("a.b/c"), ""),
	}
	for path, want := range map[string]bool{
		"spec.tolerations[*].operator": true,
		"spec.tolerations[*]":          false,
		"spec.tolerations[*].effect":   false,
		"spec.nodeSelector[*]":         true,
	} {
		if got := errorsAt(errs, path); got != want {
			t.Errorf("errorsAt(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestRefusedAbove(t *testing.T) {
	sts := &resource{}
	trial := func(value string, onAbove ...string) *valueTrial {
		above := map[string]bool{}
		for _, e := range onAbove {
			above[e] = true
		}
		return &valueTrial{res: sts, path: "spec.updateStrategy.type", value: value, above: above}
	}
	invalid := field.Invalid(field.NewPath("spec", "updateStrategy"), nil, "must be 'RollingUpdate' or 'OnDelete'")
	required := field.Required(field.NewPath("spec", "selector"), "")
	if got := errorsAbove(field.ErrorList{invalid, required, field.Invalid(field.NewPath("spec", "updateStrategy", "type"), nil, "")}, "spec.updateStrategy.type"); !reflect.DeepEqual(got, map[string]bool{"spec.updateStrategy FieldValueInvalid": true}) {
		t.Errorf("errorsAbove = %v, want the error at spec.updateStrategy only", got)
	}
	at := func(errs ...*field.Error) map[string]bool { return errorsAbove(errs, "spec.updateStrategy.type") }
	for _, tc := range []struct {
		name   string
		trials []*valueTrial
		above  []map[string]bool
		want   []bool
	}{{
		name:   "only Recreate gets the error with the gate off",
		trials: []*valueTrial{trial("OnDelete"), trial("Recreate"), trial("RollingUpdate")},
		above:  []map[string]bool{at(), at(invalid), at()},
		want:   []bool{false, true, false},
	}, {
		name:   "every value gets it: it is not about the value",
		trials: []*valueTrial{trial("OnDelete"), trial("Recreate")},
		above:  []map[string]bool{at(invalid), at(invalid)},
		want:   []bool{false, false},
	}, {
		name:   "Recreate got it with every gate on too",
		trials: []*valueTrial{trial("OnDelete"), trial("Recreate", "spec.updateStrategy FieldValueInvalid")},
		above:  []map[string]bool{at(), at(invalid)},
		want:   []bool{false, false},
	}, {
		name:   "no other value to compare with",
		trials: []*valueTrial{trial("Recreate")},
		above:  []map[string]bool{at(invalid)},
		want:   []bool{false},
	}} {
		if got := refusedAbove(tc.trials, tc.above, make([]error, len(tc.trials))); !slices.Equal(got, tc.want) {
			t.Errorf("%s: refusedAbove = %v, want %v", tc.name, got, tc.want)
		}
	}
}
