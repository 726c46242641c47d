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
	"math/rand"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apitesting "k8s.io/kubernetes/pkg/api/testing"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	resourceapi "k8s.io/kubernetes/pkg/apis/resource"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/featurelifecycle/gatedfield"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// TestDerived checks that every gate of the inventory with a footprint gets
// a lifecycle, and that its tasks are well formed (as TestLifecycles checks
// the explicit ones).
func TestDerived(t *testing.T) {
	derived, err := testDerived()
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	known := utilfeature.DefaultFeatureGate.DeepCopy().GetAll()
	supported := testCatalog(t).GroupResources()
	withFootprint := 0
	for gate, fp := range inv.Gates {
		if len(fp.Fields) > 0 {
			withFootprint++
			if len(derived[featuregate.Feature(gate)].OnDisable) == 0 {
				t.Errorf("%s has fields in the inventory but no derived task", gate)
			}
		}
	}
	for gate := range inv.ResourcesServedOnlyWith {
		if _, ok := derived[featuregate.Feature(gate)]; !ok {
			t.Errorf("%s serves resources but has no derived lifecycle", gate)
		}
	}
	for gate, lc := range derived {
		t.Run(string(gate), func(t *testing.T) {
			if _, ok := known[gate]; !ok {
				t.Errorf("%s is not a gate of kube-apiserver", gate)
			}
			// Only a gate whose validation is stricter when on waits
			// while Enabling, and only for invalid objects.
			_, stricter := inv.StricterValues[string(gate)]
			if stricter != (len(lc.OnEnable) > 0) {
				t.Errorf("derived OnEnable tasks %v, stricter values listed: %t", taskNames(lc.OnEnable), stricter)
			}
			for _, task := range lc.OnEnable {
				if !strings.HasPrefix(task.Name(), derivedWaitForValidPrefix) || tasks.IsOptIn(task) {
					t.Errorf("derived OnEnable task %s: only %s<resource> tasks, not opt-in", task.Name(), derivedWaitForValidPrefix)
				}
			}
			checkTasks(t, lc, supported)
		})
	}
	t.Logf("%d gates examined, %d with fields, %d with resources served only with them, %d derived lifecycles, %d in the registry",
		inv.GatesExamined, withFootprint, len(inv.ResourcesServedOnlyWith), len(derived), len(testRegistry(t)))

	registry := testRegistry(t)
	for gate, lc := range Lifecycles {
		if !slices.Equal(taskNames(registry[gate].OnDisable), taskNames(lc.OnDisable)) {
			t.Errorf("%s: the explicit registration must replace the derived one", gate)
		}
	}
}

// resources returns pod-level resources with a CPU limit.
func resources() *api.ResourceRequirements {
	return &api.ResourceRequirements{Limits: api.ResourceList{api.ResourceCPU: resource.MustParse("1")}}
}

func derivedOf(t *testing.T, gate featuregate.Feature) Lifecycle {
	t.Helper()
	derived, err := testDerived()
	if err != nil {
		t.Fatal(err)
	}
	lc, ok := derived[gate]
	if !ok {
		t.Fatalf("no derived lifecycle for %s", gate)
	}
	return lc
}

func inspector(t *testing.T, lc Lifecycle, name string) tasks.Inspector {
	t.Helper()
	for _, task := range lc.OnDisable {
		if task.Name() == name {
			in, ok := task.(tasks.Inspector)
			if !ok {
				t.Fatalf("%s is no Inspector", name)
			}
			return in
		}
	}
	t.Fatalf("no task %s in %v", name, taskNames(lc.OnDisable))
	return nil
}

// TestDerivedPodFields follows one pod spec gate, PodLevelResources: its
// templates are cleared only on opt-in, its pods and Jobs are waited for,
// and the pod status fields pods' status strategy drops with it off
// (status.resources, status.allocatedResources) are cleared through the
// status subresource.
func TestDerivedPodFields(t *testing.T) {
	lc := derivedOf(t, "PodLevelResources")
	if got, want := taskNames(lc.OnDisable), []string{DerivedClearFieldsTask, DerivedClearTemplatesTask, DerivedWaitForJobsTask, DerivedWaitForPodsTask}; !slices.Equal(got, want) {
		t.Fatalf("tasks %v, want %v", got, want)
	}
	if d := lc.OnDisable[1].Description(); !strings.Contains(d, "spec.resources") {
		t.Errorf("description %q does not name the field", d)
	}
	status := inspector(t, lc, DerivedClearFieldsTask)
	if got := status.Resources(); !slices.Equal(got, []schema.GroupResource{api.Resource("pods")}) {
		t.Errorf("the status clear rewrites %v, want pods only", got)
	}
	if !status.Holds(&api.Pod{Status: api.PodStatus{Resources: resources()}}) {
		t.Error("a pod with status.resources holds PodLevelResources' status clear")
	}
	if status.Holds(&api.Pod{Spec: api.PodSpec{Resources: resources()}}) {
		t.Error("the status clear holds a pod only for its status")
	}
	pods := inspector(t, lc, DerivedWaitForPodsTask)
	pod := &api.Pod{Spec: api.PodSpec{Hostname: "h", HostnameOverride: ptr.To("o")}}
	if pods.Holds(pod) {
		t.Error("a pod without spec.resources holds nothing of PodLevelResources")
	}
	pod.Spec.Resources = resources()
	if !pods.Holds(pod) {
		t.Error("a pod with spec.resources holds PodLevelResources")
	}
	if pods.Holds(&batch.Job{Spec: batch.JobSpec{Template: api.PodTemplateSpec{Spec: pod.Spec}}}) {
		t.Error("a Job is no pod: the pods task holds nothing of it")
	}
	if !pods.Holds(&corev1.Pod{Spec: corev1.PodSpec{Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}) {
		t.Error("a v1 pod with spec.resources holds PodLevelResources")
	}
	jobs := inspector(t, lc, DerivedWaitForJobsTask)
	job := &batch.Job{}
	if jobs.Holds(job) {
		t.Error("an empty Job holds nothing")
	}
	job.Spec.Template.Spec.Resources = resources()
	if !jobs.Holds(job) {
		t.Error("a Job whose template has spec.resources holds PodLevelResources")
	}
	templates := inspector(t, lc, DerivedClearTemplatesTask)
	got := templates.Resources()
	for _, gr := range []schema.GroupResource{apps.Resource("deployments"), apps.Resource("statefulsets"), batch.Resource("cronjobs"), api.Resource("podtemplates")} {
		if !slices.Contains(got, gr) {
			t.Errorf("the template task does not clear %s: %v", gr, got)
		}
	}
	for _, gr := range []schema.GroupResource{api.Resource("pods"), batch.Resource("jobs")} {
		if slices.Contains(got, gr) {
			t.Errorf("the template task rewrites %s, which cannot be rewritten", gr)
		}
	}
}

// TestDerivedClearIsExact fuzzes objects with upstream's API fuzzers and
// checks that a derived clear function removes exactly the field it is
// given, through the conversions it makes, and leaves an object without it
// unchanged.
func TestDerivedClearIsExact(t *testing.T) {
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	f := fuzzer.FuzzerFor(apitesting.FuzzerFuncs, rand.NewSource(7), legacyscheme.Codecs).NilChance(0.2).NumElements(1, 2).MaxDepth(20)
	deployment, err := pathClearer(inv, testCatalog(t), apps.Resource("deployments"), []gatedfield.Path{gatedfield.MustParse("spec.template.spec.resources")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	slice, err := pathClearer(inv, testCatalog(t), resourceapi.Resource("resourceslices"), []gatedfield.Path{gatedfield.MustParse("spec.sharedCounters")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		d := &apps.Deployment{}
		f.Fill(d)
		d.Spec.Template.Spec.Resources = &api.ResourceRequirements{Requests: api.ResourceList{api.ResourceMemory: resource.MustParse("1Gi")}}
		want := d.DeepCopy()
		want.Spec.Template.Spec.Resources = nil
		if !deployment.Clear(d) {
			t.Fatalf("seed %d: nothing cleared", i)
		}
		if !apiequality.Semantic.DeepEqual(d, want) {
			t.Fatalf("seed %d: the clear changed more than spec.template.spec.resources", i)
		}
		if deployment.Clear(d) || !apiequality.Semantic.DeepEqual(d, want) {
			t.Fatalf("seed %d: a second clear changed the object", i)
		}

		s := &resourceapi.ResourceSlice{}
		f.Fill(s)
		s.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "c", Counters: map[string]resourceapi.Counter{"mem": {Value: resource.MustParse("1")}}}}
		wantSlice := s.DeepCopy()
		wantSlice.Spec.SharedCounters = nil
		if !slice.Clear(s) || !apiequality.Semantic.DeepEqual(s, wantSlice) {
			t.Fatalf("seed %d: the resource slice clear is not exact", i)
		}
	}
}

// TestDerivedResourceGates checks the tasks of gates that serve a resource.
func TestDerivedResourceGates(t *testing.T) {
	lc := derivedOf(t, "StorageVersionMigrator")
	w := inspector(t, lc, "wait-for-no-storageversionmigrations-storagemigration-k8s-io")
	obj, err := testCatalog(t).NewObject(w.Resources()[0])
	if err != nil {
		t.Fatal(err)
	}
	if !w.Holds(obj) {
		t.Error("every stored object of a resource served only with the gate holds it")
	}
	del := inspector(t, lc, "delete-storageversionmigrations-storagemigration-k8s-io")
	if !del.Holds(obj) || del.Holds(&api.Pod{}) {
		t.Error("the delete task holds every object of its resource and nothing else")
	}
}

// TestDerivedRefusedRewrites: a resource whose objects validation refuses
// once the gate's fields are cleared is waited for, saying why, instead of
// being cleared for ever in vain.
func TestDerivedRefusedRewrites(t *testing.T) {
	rs := resourceapi.Resource("resourceslices")
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	// Known no refusal: the fields are cleared.
	raw, err := DeriveFrom(inv, nil, testCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	c := inspector(t, raw["DRAPartitionableDevices"], DerivedClearFieldsTask)
	if got := c.Resources(); !slices.Contains(got, rs) {
		t.Errorf("with no refused rewrite known, DRAPartitionableDevices clears %v", got)
	}
	// The generated refusals: waited for.
	refused, err := inventory.LoadRefusedRewrites()
	if err != nil {
		t.Fatal(err)
	}
	why, ok := refused.Refused("DRAPartitionableDevices")[rs]
	if !ok {
		t.Fatalf("the generated refused rewrites do not list resourceslices for DRAPartitionableDevices: %v", refused.Gates)
	}
	lc := derivedOf(t, "DRAPartitionableDevices")
	// What may be cleared still is; what may not is left.
	both := &resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{
		PerDeviceNodeSelection: ptrTo(true),
		SharedCounters:         []resourceapi.CounterSet{{Name: "c"}},
	}}
	clear := inspector(t, lc, DerivedClearFieldsTask).(*tasks.ClearFieldsTask)
	if !clear.Clear(both) || both.Spec.SharedCounters != nil || both.Spec.PerDeviceNodeSelection == nil {
		t.Errorf("clear-fields must clear spec.sharedCounters and leave spec.perDeviceNodeSelection, whose clearing is refused: %+v", both.Spec)
	}
	w := inspector(t, lc, "wait-for-unused-resourceslices-resource-k8s-io")
	if desc := w.(tasks.Task).Description(); !strings.Contains(desc, "refuses to store one without them") || !strings.Contains(desc, "perDeviceNodeSelection") {
		t.Errorf("the wait for refused resourceslices does not say why: %q (validation said %q)", desc, why)
	}
	// A slice that uses the feature is held; one that does not is not.
	var slice resourceapi.ResourceSlice
	slice.Spec.PerDeviceNodeSelection = ptrTo(true)
	if !w.Holds(&slice) {
		t.Error("a ResourceSlice with perDeviceNodeSelection is not held")
	}
	if w.Holds(&resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{NodeName: ptrTo("n")}}) {
		t.Error("a ResourceSlice without the feature is held")
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestDerivedClearsLeavesOnly: a struct the inventory lists because its
// only field was dropped is not cleared along with its other fields; the
// field is.
func TestDerivedClearsLeavesOnly(t *testing.T) {
	got := leaves([]gatedfield.Path{
		gatedfield.MustParse("spec.ephemeralContainers[*].lifecycle"),
		gatedfield.MustParse("spec.ephemeralContainers[*].lifecycle.stopSignal"),
		gatedfield.MustParse("spec.containers[*].lifecycle.stopSignal"),
		gatedfield.MustParse("spec.resources"),
	})
	if want := "spec.ephemeralContainers[*].lifecycle.stopSignal, spec.containers[*].lifecycle.stopSignal, spec.resources"; joinPaths(got) != want {
		t.Errorf("leaves = %s, want %s", joinPaths(got), want)
	}
	lc := derivedOf(t, "ContainerStopSignals")
	pods := inspector(t, lc, DerivedWaitForPodsTask)
	pod := &api.Pod{Spec: api.PodSpec{EphemeralContainers: []api.EphemeralContainer{{EphemeralContainerCommon: api.EphemeralContainerCommon{
		Name: "debug", Lifecycle: &api.Lifecycle{PreStop: &api.LifecycleHandler{Exec: &api.ExecAction{Command: []string{"true"}}}},
	}}}}}
	if pods.Holds(pod) {
		t.Error("an ephemeral container's lifecycle without a stop signal holds nothing of ContainerStopSignals")
	}
}

func TestResourceTaskName(t *testing.T) {
	for gr, want := range map[schema.GroupResource]string{
		{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:                  "wait-for-no-podcertificaterequests-certificates-k8s-io",
		{Group: "a-very-long-group-name.example.k8s.io", Resource: "averyveryverylongname"}: "wait-for-no-averyveryverylongname-a-very-long-group-name-exampl",
	} {
		if got := taskName(derivedWaitForResourcePrefix, gr); got != want || len(got) > 63 {
			t.Errorf("taskName(%s) = %q, want %q", gr, got, want)
		}
	}
}

// TestDerivedWaitsForImmutableResources: a gate's paths in a resource whose
// spec validation keeps immutable (ResourceClaimTemplates) are waited for,
// never cleared (a rewrite would be refused forever, as the on -> use ->
// off harness saw).
func TestDerivedWaitsForImmutableResources(t *testing.T) {
	lc := derivedOf(t, "DRADeviceTaints")
	rct := schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}
	if got := inspector(t, lc, DerivedClearFieldsTask).Resources(); slices.Contains(got, rct) {
		t.Errorf("clear-fields rewrites %v", got)
	}
	w := inspector(t, lc, "wait-for-unused-resourceclaimtemplates-resource-k8s-io")
	if got := w.Resources(); !slices.Equal(got, []schema.GroupResource{rct}) {
		t.Errorf("the wait reads %v", got)
	}
	if got := taskNames(lc.OnDisable); !slices.Contains(got, "wait-for-unused-resourceclaims-resource-k8s-io") {
		t.Errorf("no wait for ResourceClaims: %v", got)
	}
}

// TestDerivedKeepsSidecars follows ContainerRestartRules, whose strategy
// drops an init container's restartPolicy only when it is not Always
// (Always makes a sidecar, GA): a pod or template with a sidecar is
// neither held nor changed by the derived tasks, one with restartPolicy
// Never is, and clearing it makes the pod valid with the gate off.
func TestDerivedKeepsSidecars(t *testing.T) {
	lc := derivedOf(t, kubefeatures.ContainerRestartRules)
	pods := inspector(t, lc, DerivedWaitForPodsTask)
	templates := inspector(t, lc, DerivedClearTemplatesTask)
	inv, err := inventory.Load()
	if err != nil {
		t.Fatal(err)
	}
	path := gatedfield.MustParse("spec.initContainers[*].restartPolicy")
	clearer, err := pathClearer(inv, testCatalog(t), podResource, []gatedfield.Path{path},
		map[string][]string{path.String(): inv.Gates[string(kubefeatures.ContainerRestartRules)].KeptValues(podResource, path.String())})
	if err != nil {
		t.Fatal(err)
	}
	podWith := func(policy corev1.ContainerRestartPolicy) *api.Pod {
		return migratortest.Internal(t, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "init", Image: "i", RestartPolicy: &policy}},
				Containers:     []corev1.Container{{Name: "app", Image: "i"}},
			},
		}).(*api.Pod)
	}
	templateOf := func(pod *api.Pod) *api.PodTemplate {
		return &api.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}, Template: api.PodTemplateSpec{Spec: *pod.Spec.DeepCopy()}}
	}
	for _, name := range []string{DerivedWaitForPodsTask, DerivedClearTemplatesTask} {
		if d := taskNamed(t, lc, name).Description(); !strings.Contains(d, "initContainers[*].restartPolicy (but Always)") {
			t.Errorf("%s: the description %q does not say Always is left alone", name, d)
		}
	}
	migratortest.TurnOff(t, kubefeatures.RestartAllContainersOnContainerExits)
	migratortest.TurnOff(t, kubefeatures.ContainerRestartRules)
	validate := func(pod *api.Pod) field.ErrorList {
		return podstore.Strategy.Validate(genericapirequest.WithNamespace(t.Context(), "ns"), pod)
	}

	sidecar := podWith(corev1.ContainerRestartPolicyAlways)
	if errs := validate(sidecar); len(errs) > 0 {
		t.Fatalf("a pod with a sidecar is valid with the gate off: %v", errs)
	}
	if pods.Holds(sidecar) {
		t.Error("a pod with a sidecar init container holds nothing of ContainerRestartRules")
	}
	if templates.Holds(templateOf(sidecar)) {
		t.Error("a template with a sidecar init container holds nothing of ContainerRestartRules")
	}
	want := sidecar.DeepCopy()
	if clearer.Clear(sidecar) || !apiequality.Semantic.DeepEqual(sidecar, want) {
		t.Error("clearing changed a sidecar's restartPolicy Always")
	}

	never := podWith(corev1.ContainerRestartPolicyNever)
	if errs := validate(never); len(errs) == 0 {
		t.Fatal("an init container's restartPolicy Never is refused with the gate off")
	}
	if !pods.Holds(never) {
		t.Error("a pod with an init container's restartPolicy Never holds ContainerRestartRules")
	}
	if !templates.Holds(templateOf(never)) {
		t.Error("a template with an init container's restartPolicy Never holds ContainerRestartRules")
	}
	if !clearer.Clear(never) || never.Spec.InitContainers[0].RestartPolicy != nil {
		t.Fatal("clearing left restartPolicy Never")
	}
	if errs := validate(never); len(errs) > 0 {
		t.Errorf("once cleared the pod is valid with the gate off: %v", errs)
	}
	if pods.Holds(never) {
		t.Error("once cleared the pod holds nothing")
	}
}

// TestDerivedRefusedValues follows TaintTolerationComparisonOperators,
// whose only footprint is values validation refuses with it off (a
// toleration's operator Gt or Lt): every resource holding a pod spec gets
// a task waiting for the objects that set them, naming the field and the
// values, and other values are no use of the gate.
func TestDerivedRefusedValues(t *testing.T) {
	lc := derivedOf(t, kubefeatures.TaintTolerationComparisonOperators)
	for _, gr := range []schema.GroupResource{podResource, jobResource, apps.Resource("deployments"), api.Resource("podtemplates"), batch.Resource("cronjobs")} {
		name := valuesTaskName(gr)
		task := taskNamed(t, lc, name)
		if d := task.Description(); !strings.Contains(d, "tolerations[*].operator to Gt or Lt") || !strings.Contains(d, string(kubefeatures.TaintTolerationComparisonOperators)) {
			t.Errorf("%s: the description %q does not name the field, the values and the gate", name, d)
		}
		if got := inspector(t, lc, name).Resources(); !slices.Equal(got, []schema.GroupResource{gr}) {
			t.Errorf("%s reads %v, want %s", name, got, gr)
		}
	}
	pods := inspector(t, lc, valuesTaskName(podResource))
	pod := func(op api.TolerationOperator, value string) *api.Pod {
		return &api.Pod{Spec: api.PodSpec{Tolerations: []api.Toleration{{Key: "k", Operator: api.TolerationOpExists}, {Key: "k", Operator: op, Value: value, Effect: api.TaintEffectNoSchedule}}}}
	}
	if !pods.Holds(pod(api.TolerationOpGt, "42")) || !pods.Holds(pod(api.TolerationOpLt, "42")) {
		t.Error("a pod tolerating with Gt or Lt holds TaintTolerationComparisonOperators")
	}
	if pods.Holds(pod(api.TolerationOpEqual, "42")) || pods.Holds(&api.Pod{}) {
		t.Error("a pod tolerating with Equal and Exists holds nothing of TaintTolerationComparisonOperators")
	}
	deployments := inspector(t, lc, valuesTaskName(apps.Resource("deployments")))
	d := &apps.Deployment{Spec: apps.DeploymentSpec{Template: api.PodTemplateSpec{Spec: pod(api.TolerationOpGt, "1").Spec}}}
	if !deployments.Holds(d) || deployments.Holds(pod(api.TolerationOpGt, "1")) {
		t.Error("the deployments task holds a Deployment whose template tolerates with Gt, and no pod")
	}
}

func TestValuesTaskName(t *testing.T) {
	for gr, want := range map[schema.GroupResource]string{
		podResource:                   "wait-for-no-pods-values",
		apps.Resource("statefulsets"): "wait-for-no-statefulsets-apps-values",
		{Group: "a-very-long-group-name.example.com", Resource: "averyveryverylongresourcename"}: "wait-for-no-averyveryverylongresourcename-a-very-long-gr-values",
	} {
		got := valuesTaskName(gr)
		if got != want || len(got) > 63 {
			t.Errorf("valuesTaskName(%s) = %q (%d characters), want %q", gr, got, len(got), want)
		}
	}
}

// TestDerivedStricterWhenOn: StrictIPCIDRValidation's Enabling tasks hold
// a stored object whose IP or CIDR the resource's validation refuses with
// the gate on (it is on by default at 1.37), and no other.
func TestDerivedStricterWhenOn(t *testing.T) {
	derived, err := testDerived()
	if err != nil {
		t.Fatal(err)
	}
	inspectors := derived["StrictIPCIDRValidation"].Inspectors()
	pod := func(nameserver string) *api.Pod {
		return &api.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Spec:       api.PodSpec{DNSConfig: &api.PodDNSConfig{Nameservers: []string{nameserver}}},
		}
	}
	endpoints := func(ip string) *api.Endpoints {
		return &api.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"},
			Subsets:    []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: ip}}, Ports: []api.EndpointPort{{Port: 80, Protocol: api.ProtocolTCP}}}},
		}
	}
	for _, c := range []struct {
		task string
		obj  runtime.Object
		want bool
	}{
		{"wait-for-valid-pods", pod("010.000.000.001"), true},
		{"wait-for-valid-pods", pod("::ffff:1.2.3.4"), true},
		{"wait-for-valid-pods", pod("10.0.0.1"), false},
		{"wait-for-valid-endpoints", endpoints("010.000.000.001"), true},
		{"wait-for-valid-endpoints", endpoints("10.0.0.1"), false},
		{"wait-for-valid-pods", endpoints("010.000.000.001"), false}, // another kind
	} {
		in, ok := inspectors[c.task]
		if !ok {
			t.Fatalf("no task %s among %v", c.task, taskNames(derived["StrictIPCIDRValidation"].OnEnable))
		}
		if got := in.Holds(c.obj); got != c.want {
			t.Errorf("%s holds %#v: %t, want %t", c.task, c.obj, got, c.want)
		}
	}
}
