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

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresapply "k8s.io/client-go/applyconfigurations/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"

	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/integration/features/harness"
)

type env struct {
	server   *kubeapiservertesting.TestServer
	kube     kubernetes.Interface
	features featuresclient.Interface
	prefix   string
}

func startServer(t *testing.T, flags ...string) *env {
	t.Helper()
	storage := harness.SharedEtcd()
	server := kubeapiservertesting.StartTestServerOrDie(t, nil, flags, storage)
	t.Cleanup(server.TearDownFn)
	return &env{
		server:   server,
		kube:     kubernetes.NewForConfigOrDie(server.ClientConfig),
		features: featuresclient.NewForConfigOrDie(server.ClientConfig),
		prefix:   storage.Prefix,
	}
}

func (e *env) namespace(t *testing.T, name string) string {
	t.Helper()
	_, err := e.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func newFeature(gate, name string) *featuresv1alpha1.Feature {
	return &featuresv1alpha1.Feature{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       featuresv1alpha1.FeatureSpec{Gate: gate, DesiredState: featuresv1alpha1.FeatureDesiredStateEnabled},
	}
}

// TestFeatureAPI exercises the API through one server: typed CRUD and watch,
// server-side apply, the status split, printer columns, discovery, OpenAPI,
// the stored encoding and the rejection of bad input.
func TestFeatureAPI(t *testing.T) {
	e := startServer(t, harness.LifecycleFlags...)
	t.Run("CRUD and watch", e.testCRUD)
	t.Run("server-side apply", e.testApply)
	t.Run("status split", e.testStatusSplit)
	t.Run("table", e.testTable)
	t.Run("discovery", e.testDiscovery)
	t.Run("openapi v3", e.testOpenAPIV3)
	t.Run("etcd encoding", e.testEtcdEncoding)
	t.Run("bad input", e.testBadInput)
	t.Run("kubectl apply", e.testKubectlApply)
}

func (e *env) testCRUD(t *testing.T) {
	ctx := context.Background()
	ns := e.namespace(t, "crud")
	client := e.features.FeaturesV1alpha1().Features(ns)

	created, err := client.Create(ctx, newFeature("MyGate", "my-gate"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Management != featuresv1alpha1.FeatureManagementCommandLine || created.Generation != 1 {
		t.Fatalf("expected defaulted management and generation 1, got %q and %d", created.Spec.Management, created.Generation)
	}
	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	if _, err := client.Create(ctx, newFeature("OtherGate", "other-gate"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := client.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.gate", "MyGate").String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "my-gate" {
		t.Fatalf("field selector spec.gate=MyGate returned %d items", len(list.Items))
	}

	got, err := client.Get(ctx, "my-gate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateDisabled
	updated, err := client.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Generation != 2 {
		t.Fatalf("spec update must bump generation to 2, got %d", updated.Generation)
	}
	patched, err := client.Patch(ctx, "my-gate", types.MergePatchType, []byte(`{"spec":{"desiredState":"Enabled"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if patched.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled || patched.Generation != 3 {
		t.Fatalf("patch: got desiredState %q generation %d", patched.Spec.DesiredState, patched.Generation)
	}
	if err := client.Delete(ctx, "my-gate", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Get(ctx, "my-gate", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("expected NotFound after delete, got %v", err)
	}

	var events []string
	timeout := time.After(30 * time.Second)
	for len(events) < 4 {
		select {
		case ev := <-w.ResultChan():
			f := ev.Object.(*featuresv1alpha1.Feature)
			events = append(events, fmt.Sprintf("%s %s", ev.Type, f.Name))
		case <-timeout:
			t.Fatalf("watch delivered only %v", events)
		}
	}
	want := []string{"ADDED other-gate", "MODIFIED my-gate", "MODIFIED my-gate", "DELETED my-gate"}
	if strings.Join(events, ",") != strings.Join(want, ",") {
		t.Fatalf("watch events %v, want %v", events, want)
	}
}

func (e *env) testApply(t *testing.T) {
	ctx := context.Background()
	ns := e.namespace(t, "apply")
	client := e.features.FeaturesV1alpha1().Features(ns)

	cfg := featuresapply.Feature("applied-gate", ns).WithSpec(featuresapply.FeatureSpec().
		WithGate("AppliedGate").WithDesiredState(featuresv1alpha1.FeatureDesiredStateDisabled))
	f, err := client.Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateDisabled {
		t.Fatalf("apply did not set desiredState: %+v", f.Spec)
	}
	// Two managers apply distinct entries of the conditions map list: both
	// survive. (Not uses, also a map list: kube-apiserver computes the uses
	// of every Feature from FeatureReports and would race with the test.)
	for _, m := range []struct{ manager, condition string }{{"kcm", "KcmChecked"}, {"sched", "SchedChecked"}} {
		status := featuresapply.Feature("applied-gate", ns).WithStatus(featuresapply.FeatureStatus().
			WithConditions(metav1ac.Condition().WithType(m.condition).WithStatus(metav1.ConditionTrue).
				WithReason("Checked").WithMessage("checked by " + m.manager).WithLastTransitionTime(metav1.Now())))
		if _, err := client.ApplyStatus(ctx, status, metav1.ApplyOptions{FieldManager: m.manager}); err != nil {
			t.Fatal(err)
		}
	}
	f, err = client.Get(ctx, "applied-gate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"KcmChecked", "SchedChecked"} {
		if meta.FindStatusCondition(f.Status.Conditions, c) == nil {
			t.Fatalf("expected both managers' conditions to be kept (listType=map), got %+v", f.Status.Conditions)
		}
	}
	extracted, err := featuresapply.ExtractFeatureStatus(f, "kcm")
	if err != nil {
		t.Fatal(err)
	}
	if conds := extracted.Status.Conditions; len(conds) != 1 || *conds[0].Type != "KcmChecked" {
		t.Fatalf("extracting the kcm manager's status gave %+v", conds)
	}
	// A conflicting apply of spec by another manager is refused without force.
	other := featuresapply.Feature("applied-gate", ns).WithSpec(featuresapply.FeatureSpec().
		WithGate("AppliedGate").WithDesiredState(featuresv1alpha1.FeatureDesiredStateEnabled))
	if _, err := client.Apply(ctx, other, metav1.ApplyOptions{FieldManager: "someone-else"}); !apierrors.IsConflict(err) {
		t.Fatalf("expected an apply conflict on spec.desiredState, got %v", err)
	}
}

func (e *env) testStatusSplit(t *testing.T) {
	ctx := context.Background()
	ns := e.namespace(t, "status")
	client := e.features.FeaturesV1alpha1().Features(ns)
	f := newFeature("SplitGate", "split-gate")
	f.Status.State = featuresv1alpha1.FeatureStateEnabled // dropped on create
	f, err := client.Create(ctx, f, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Status.State != "" {
		t.Fatalf("create must not set status, got state %q", f.Status.State)
	}

	f.Status.State = featuresv1alpha1.FeatureStateDisabling
	f.Status.Tasks = []featuresv1alpha1.FeatureTask{{Name: "wait-for-uses", Progress: "0/1"}}
	f.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateDisabled // ignored by /status
	f, err = client.UpdateStatus(ctx, f, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateEnabled || f.Generation != 1 {
		t.Fatalf("/status must change status only: state %q desired %q generation %d", f.Status.State, f.Spec.DesiredState, f.Generation)
	}

	f.Status.State = featuresv1alpha1.FeatureStateEnabled // ignored by the main resource
	f.Spec.DesiredState = featuresv1alpha1.FeatureDesiredStateDisabled
	f, err = client.Update(ctx, f, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Status.State != featuresv1alpha1.FeatureStateDisabling || f.Spec.DesiredState != featuresv1alpha1.FeatureDesiredStateDisabled || f.Generation != 2 {
		t.Fatalf("update must change spec only: state %q desired %q generation %d", f.Status.State, f.Spec.DesiredState, f.Generation)
	}
	list, err := client.List(ctx, metav1.ListOptions{FieldSelector: "status.state=Disabling"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("field selector status.state=Disabling returned %d items", len(list.Items))
	}
}

func (e *env) testTable(t *testing.T) {
	ctx := context.Background()
	ns := e.namespace(t, "table")
	client := e.features.FeaturesV1alpha1().Features(ns)
	f, err := client.Create(ctx, newFeature("TableGate", "table-gate"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.Status = featuresv1alpha1.FeatureStatus{State: featuresv1alpha1.FeatureStateEnabling, PreRelease: featuresv1alpha1.FeaturePreReleaseBeta,
		Default: ptr.To(true), Version: "1.36", Tasks: []featuresv1alpha1.FeatureTask{{Name: "wait-for-uses"}, {Name: "clear-fields"}}}
	if _, err := client.UpdateStatus(ctx, f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	rc := e.features.FeaturesV1alpha1().RESTClient()
	raw, err := rc.Get().Namespace(ns).Resource("features").SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "Name,Desired,State,Stage,Default,Tasks,Age,Gate,Version,Upgrade,Downgrade,Rollout" {
		t.Fatalf("columns %s", got)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("expected one row, got %d", len(table.Rows))
	}
	cells := fmt.Sprint(table.Rows[0].Cells[:6])
	if cells != "[table-gate Enabled Enabling Beta true wait-for-uses (1/2)]" {
		t.Fatalf("cells %s", cells)
	}
}

func (e *env) testDiscovery(t *testing.T) {
	groups, resources, err := e.kube.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range groups {
		found = found || g.Name == featuresv1alpha1.GroupName
	}
	if !found {
		t.Fatalf("features.k8s.io missing from aggregated discovery")
	}
	var names []string
	for _, rl := range resources {
		if rl.GroupVersion != featuresv1alpha1.SchemeGroupVersion.String() {
			continue
		}
		for _, r := range rl.APIResources {
			names = append(names, r.Name)
			if r.Name == "features" && (!r.Namespaced || r.Kind != "Feature" || !strings.Contains(strings.Join(r.ShortNames, ","), "feat")) {
				t.Errorf("unexpected discovery of features: %+v", r)
			}
			if r.Name == "featurereports" && (!r.Namespaced || r.Kind != "FeatureReport" || !slices.Contains(r.ShortNames, "featrep")) {
				t.Errorf("unexpected discovery of featurereports: %+v", r)
			}
			if r.Name == "featuretargets" && (!r.Namespaced || r.Kind != "FeatureTarget") {
				t.Errorf("unexpected discovery of featuretargets: %+v", r)
			}
			if r.Name == "customresourcefeaturebindings" && (r.Namespaced || r.Kind != "CustomResourceFeatureBinding" || !slices.Contains(r.ShortNames, "crfb")) {
				t.Errorf("unexpected discovery of customresourcefeaturebindings: %+v", r)
			}
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "customresourcefeaturebindings,featurereports,features,features/status,featuretargets" {
		t.Fatalf("features.k8s.io/v1alpha1 resources %v", names)
	}
	for _, gv := range []string{"apps/v1", "batch/v1", "autoscaling/v2", "coordination.k8s.io/v1"} {
		if _, err := e.kube.Discovery().ServerResourcesForGroupVersion(gv); err != nil {
			t.Errorf("upstream group-version %s not served: %v", gv, err)
		}
	}
}

func (e *env) testOpenAPIV3(t *testing.T) {
	paths, err := e.kube.Discovery().OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	gv, ok := paths["apis/features.k8s.io/v1alpha1"]
	if !ok {
		t.Fatalf("no OpenAPI v3 document for features.k8s.io/v1alpha1")
	}
	raw, err := gv.Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
				GVK        []any          `json:"x-kubernetes-group-version-kind"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	feature, ok := doc.Components.Schemas["io.k8s.api.features.v1alpha1.Feature"]
	if !ok || len(feature.GVK) == 0 {
		t.Fatalf("Feature schema missing or without x-kubernetes-group-version-kind")
	}
	for _, p := range []string{"spec", "status", "metadata"} {
		if _, ok := feature.Properties[p]; !ok {
			t.Errorf("Feature schema has no property %s", p)
		}
	}
	if _, ok := doc.Components.Schemas["io.k8s.api.features.v1alpha1.FeatureUse"].Properties["reporters"]; !ok {
		t.Errorf("FeatureUse schema has no reporters")
	}
}

func (e *env) testEtcdEncoding(t *testing.T) {
	ctx := context.Background()
	ns := e.namespace(t, "encoding")
	if _, err := e.features.FeaturesV1alpha1().Features(ns).Create(ctx, newFeature("StoredGate", "stored-gate"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{harness.EtcdURL()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = etcd.Close() }()
	key := path.Join("/", e.prefix, "features", ns, "stored-gate")
	resp, err := etcd.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("no value under %s", key)
	}
	value := resp.Kvs[0].Value
	if !bytes.HasPrefix(value, []byte("k8s\x00")) {
		t.Fatalf("stored value is not protobuf-encoded: %q", value[:min(len(value), 32)])
	}
	scheme := runtime.NewScheme()
	if err := featuresv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	obj, gvk, err := protobuf.NewSerializer(scheme, scheme).Decode(value, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *gvk != featuresv1alpha1.SchemeGroupVersion.WithKind("Feature") || obj.(*featuresv1alpha1.Feature).Spec.Gate != "StoredGate" {
		t.Fatalf("decoded %v %+v", gvk, obj)
	}
}

func (e *env) testBadInput(t *testing.T) {
	ctx := context.Background()
	ns := e.namespace(t, "bad-input")
	client := e.features.FeaturesV1alpha1().Features(ns)
	creates := []struct {
		name  string
		obj   *featuresv1alpha1.Feature
		field string
	}{
		{"name does not match gate", newFeature("GoodGate", "bad-name"), "metadata.name"},
		{"no gate", newFeature("", "no-gate"), "spec.gate"},
		{"gate with dashes", newFeature("Bad-Gate", "bad-gate"), "spec.gate"},
		{"unknown desired state", func() *featuresv1alpha1.Feature {
			f := newFeature("DesiredGate", "desired-gate")
			f.Spec.DesiredState = "Sometimes"
			return f
		}(), "spec.desiredState"},
		{"unknown management", func() *featuresv1alpha1.Feature {
			f := newFeature("ManagedGate", "managed-gate")
			f.Spec.Management = "ByHand"
			return f
		}(), "spec.management"},
		{"rollout step with two sizes", func() *featuresv1alpha1.Feature {
			f := newFeature("RolloutGate", "rollout-gate")
			f.Spec.Rollout = &featuresv1alpha1.FeatureRollout{Steps: []featuresv1alpha1.FeatureRolloutStep{{Count: 1, Percent: 10}}}
			return f
		}(), "spec.rollout.steps[0]"},
	}
	for _, tc := range creates {
		_, err := client.Create(ctx, tc.obj, metav1.CreateOptions{})
		expectInvalid(t, tc.name, err, tc.field)
		if _, err := client.Get(ctx, tc.obj.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s: a rejected create left an object behind (%v)", tc.name, err)
		}
	}

	good, err := client.Create(ctx, newFeature("GoodGate", "good-gate"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := good.DeepCopy()
	changed.Spec.Gate = "GoodGateTwo"
	_, err = client.Update(ctx, changed, metav1.UpdateOptions{})
	expectInvalid(t, "changing the gate", err, "spec.gate")

	statuses := []struct {
		name   string
		mutate func(*featuresv1alpha1.FeatureStatus)
		field  string
	}{
		{"unknown state", func(s *featuresv1alpha1.FeatureStatus) { s.State = "Halfway" }, "status.state"},
		{"bad version", func(s *featuresv1alpha1.FeatureStatus) { s.Version = "one" }, "status.version"},
		{"duplicate task", func(s *featuresv1alpha1.FeatureStatus) {
			s.Tasks = []featuresv1alpha1.FeatureTask{{Name: "a"}, {Name: "a"}}
		}, "status.tasks[1].name"},
		{"too many reporters", func(s *featuresv1alpha1.FeatureStatus) {
			u := featuresv1alpha1.FeatureUse{Component: "kubelet"}
			for i := range 9 {
				u.Reporters = append(u.Reporters, fmt.Sprintf("node-%d", i))
			}
			s.Uses = []featuresv1alpha1.FeatureUse{u}
		}, "status.uses[0].reporters"},
	}
	for _, tc := range statuses {
		bad := good.DeepCopy()
		tc.mutate(&bad.Status)
		_, err := client.UpdateStatus(ctx, bad, metav1.UpdateOptions{})
		expectInvalid(t, tc.name, err, tc.field)
	}
	after, err := client.Get(ctx, "good-gate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != good.ResourceVersion {
		t.Fatalf("rejected writes changed the object: resourceVersion %s -> %s", good.ResourceVersion, after.ResourceVersion)
	}
}

// testKubectlApply: kubectl apply, client-side and server-side, of a
// manifest that writes every desiredState unquoted (YAML 1.1, as kubectl
// reads it) sets that value; an unquoted On, a YAML boolean, is refused
// with an error naming the field, and changes nothing.
func (e *env) testKubectlApply(t *testing.T) {
	ns := e.namespace(t, "kubectl-apply")
	dir := t.TempDir()
	cfg := e.server.ClientConfig
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: cfg.Host, InsecureSkipTLSVerify: true}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"u": {Token: cfg.BearerToken}},
		Contexts:       map[string]*clientcmdapi.Context{"c": {Cluster: "c", AuthInfo: "u", Namespace: ns}},
		CurrentContext: "c",
	}, kubeconfig); err != nil {
		t.Fatal(err)
	}
	kubectl := func(manifest string, args ...string) (string, error) {
		path := filepath.Join(dir, "feature.yaml")
		if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(harness.Binary(t, "kubectl"), append([]string{"--kubeconfig=" + kubeconfig, "apply", "-f", path}, args...)...).CombinedOutput()
		return string(out), err
	}
	manifest := func(desired string) string {
		return "apiVersion: features.k8s.io/v1alpha1\nkind: Feature\nmetadata:\n  name: applied-gate\nspec:\n  gate: AppliedGate\n  desiredState: " + desired + "\n"
	}
	client := e.features.FeaturesV1alpha1().Features(ns)
	for _, mode := range [][]string{nil, {"--server-side", "--force-conflicts"}} {
		for _, desired := range []featuresv1alpha1.FeatureDesiredState{featuresv1alpha1.FeatureDesiredStateDisabled, featuresv1alpha1.FeatureDesiredStateEnabled} {
			if out, err := kubectl(manifest(string(desired)), mode...); err != nil {
				t.Fatalf("kubectl apply %v of desiredState: %s: %v\n%s", mode, desired, err, out)
			}
			f, err := client.Get(context.Background(), "applied-gate", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Spec.DesiredState != desired {
				t.Errorf("kubectl apply %v of desiredState: %s stored %q", mode, desired, f.Spec.DesiredState)
			}
		}
		before, err := client.Get(context.Background(), "applied-gate", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := kubectl(manifest("On"), mode...)
		if err == nil || !strings.Contains(out, "desiredState") {
			t.Errorf("kubectl apply %v of an unquoted desiredState: On (a YAML boolean) must fail naming desiredState, got %v:\n%s", mode, err, out)
		}
		t.Logf("kubectl apply %v of desiredState: On: %s", mode, strings.TrimSpace(out))
		after, err := client.Get(context.Background(), "applied-gate", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Errorf("a refused apply changed the object")
		}
	}
}

func expectInvalid(t *testing.T, name string, err error, field string) {
	t.Helper()
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsInvalid(err) {
		t.Errorf("%s: expected 422 Invalid, got %v", name, err)
		return
	}
	status = err.(apierrors.APIStatus)
	if status.Status().Code != 422 {
		t.Errorf("%s: expected code 422, got %d", name, status.Status().Code)
	}
	for _, c := range status.Status().Details.Causes {
		if c.Field == field {
			return
		}
	}
	t.Errorf("%s: error does not name field %s: %v", name, field, err)
}

// TestGroupNotServedWithoutGateOrRuntimeConfig checks that our apiserver
// behaves as upstream's unless both the gate and the runtime-config are set.
func TestGroupNotServedWithoutGateOrRuntimeConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"gate off", []string{"--runtime-config=features.k8s.io/v1alpha1=true"}},
		{"runtime-config off", []string{"--feature-gates=FeatureLifecycle=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startServer(t, tc.flags...)
			groups, err := e.kube.Discovery().ServerGroups()
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range groups.Groups {
				if g.Name == featuresv1alpha1.GroupName {
					t.Fatalf("features.k8s.io is served")
				}
			}
			_, err = e.features.FeaturesV1alpha1().Features("kube-system").List(context.Background(), metav1.ListOptions{})
			if !apierrors.IsNotFound(err) {
				t.Fatalf("expected 404 listing features, got %v", err)
			}
			if _, err := e.kube.Discovery().ServerResourcesForGroupVersion("apps/v1"); err != nil {
				t.Fatalf("apps/v1 not served: %v", err)
			}
		})
	}
}
