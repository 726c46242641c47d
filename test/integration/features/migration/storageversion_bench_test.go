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

package migration

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/migrator/migratortest"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
	"k8s.io/kubernetes/pkg/featurelifecycle/tasks"
	"k8s.io/kubernetes/test/integration/features/harness"
)

// The storage version migration benchmark. Its resource is the newest whose
// storage version a v1.37 kube-apiserver changes with --emulated-version:
// mutatingadmissionpolicybindings, stored at admissionregistration/v1beta1
// when emulating 1.36 (minimum compatibility version 1.35) and at v1 when
// emulating 1.37 (pkg/features/inventory/zz_generated.version-changes.yaml).
// The 1.34 -> 1.35 changes of resource.k8s.io cannot be reproduced with a
// 1.37 binary: its minimum compatibility version cannot go below 1.34
// (binary - 3), at which resource.k8s.io's v1 is already the storage
// version.
const (
	svmOldEmulation, svmOldVersion = "1.36", "admissionregistration.k8s.io/v1beta1"
	svmNewEmulation, svmNewVersion = "1.37", "admissionregistration.k8s.io/v1"
	svmKind                        = "MutatingAdmissionPolicyBinding"
)

var svmResource = admissionregistration.Resource("mutatingadmissionpolicybindings")

// svmFlags are the apiserver's flags at emulation version emulation: at the
// new one, upstream's StorageVersionMigration API (v1beta1, as the
// StatefulSet benchmark uses it).
func svmFlags(emulation string) []string {
	flags := []string{"--emulated-version=" + emulation}
	if emulation == svmNewEmulation {
		flags = append(flags, "--feature-gates=StorageVersionMigrator=true",
			"--runtime-config=storagemigration.k8s.io/v1beta1=true")
	}
	return flags
}

// BenchmarkStorageVersionMigration compares, on the same etcd and the same
// objects, two ways of rewriting N (benchObjectsEnv, default 10,000)
// MutatingAdmissionPolicyBindings from their old storage version
// (admissionregistration/v1beta1, written by a kube-apiserver at
// --emulated-version=1.36) to the new one (v1, after the apiserver was
// restarted at --emulated-version=1.37):
//
//   - upstream: a StorageVersionMigration of the resource run by our
//     kube-controller-manager's storage-version-migrator-controller, as a
//     user would, from creating it until its Succeeded condition (see
//     benchRunStorageVersionMigration): one empty apply patch per object
//     through the apiserver, which writes it at the new version.
//   - ours: the RewriteStorage task run in this process over the same etcd,
//     with migrator stores at the new version (what the apiserver lends
//     tasks: its storage factory, no watch cache), default page size and
//     workers and no rate limit, stepped until done as the lifecycle
//     controller steps it (the Feature status writes between steps are not
//     made). No gate of v1.37.2 declares such a task, so the apiserver's
//     controller cannot be made to run it.
//
// Each iteration starts from every object stored at the old version (made so,
// unmeasured, by RewriteStorage with stores at the old version, as a
// 1.36 apiserver would store them), and is checked to end with every object
// stored at the new version, read from etcd's raw values. One op is one
// object: hack/bench-ratios.sh's ours/upstream of ns/op is upstream's
// objects/s over ours. Run it with -benchtime=1x.
func BenchmarkStorageVersionMigration(b *testing.B) {
	n := benchObjects(b)
	benchQuietKlog(b)
	config := harness.SharedEtcd()
	apiserver := harness.StartAPIServerProcess(b, "apiserver", config.Prefix, svmFlags(svmOldEmulation)...)
	kube := kubernetes.NewForConfigOrDie(apiserver.ClientConfig())
	etcd := migratortest.Connect(b, config)
	c := &svmCluster{etcd: etcd, old: etcd.AtEmulationVersion(b, svmOldEmulation), current: etcd.AtEmulationVersion(b, svmNewEmulation),
		apiserver: apiserver, kube: kube, n: n}

	start := time.Now()
	svmCreateBindings(b, kube, n)
	c.expectStored(b, svmOldVersion, "created at --emulated-version="+svmOldEmulation)
	created := time.Since(start)
	apiserver.Restart(b, svmFlags(svmNewEmulation)...)
	c.expectStored(b, svmOldVersion, "after the restart at --emulated-version="+svmNewEmulation)
	setup := fmt.Sprintf("setup: created %d %ss at %s in %.1fs with %d clients; apiserver restarted at %s",
		n, svmKind, svmOldVersion, created.Seconds(), benchCreators, svmNewEmulation)
	name := fmt.Sprintf("%s=%d", svmResource.Resource, n)

	b.Run("upstream/"+name, func(b *testing.B) {
		b.Log(setup)
		c.upstream(b)
	})
	b.Run("ours/"+name, func(b *testing.B) {
		b.Log(setup)
		c.ours(b)
	})
}

// svmCluster is the benchmark's apiserver and etcd, kept across the calls of
// a sub-benchmark.
type svmCluster struct {
	// etcd is the apiserver's etcd and prefix; old and current are it with
	// kube-apiserver's storage factory at the old and new emulation version.
	etcd, old, current *migratortest.Etcd
	apiserver          *harness.APIServerProcess
	kube               kubernetes.Interface
	n                  int
	// rewritten is set once an iteration rewrote the objects at the new
	// version: the next one stores them at the old version first.
	rewritten  bool
	migrations int
}

// svmBinding is the benchmark's i-th object.
func svmBinding(i int) *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	return &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-binding-%05d", i), Labels: map[string]string{"bench": "storage-version"}},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "bench-policy"},
	}
}

// svmCreateBindings creates the n objects through the apiserver.
func svmCreateBindings(b *testing.B, kube kubernetes.Interface, n int) {
	client := kube.AdmissionregistrationV1().MutatingAdmissionPolicyBindings()
	benchParallel(b, n, func(i int) error {
		if _, err := client.Create(context.Background(), svmBinding(i), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s %d: %w", svmKind, i, err)
		}
		return nil
	})
}

// stored reads every stored object of the resource from etcd and returns
// the apiVersion of each (from the protobuf envelope) by key, and the mod
// revision of each.
func (c *svmCluster) stored(b *testing.B) (versions map[string]string, revisions map[string]int64) {
	b.Helper()
	versions, revisions = map[string]string{}, map[string]int64{}
	// etcd3's store keeps its keys under "/" + the storage prefix.
	root := path.Join("/", c.etcd.Prefix)
	prefix := root + "/" + svmResource.Group + "/" + svmResource.Resource + "/"
	resp, err := c.etcd.Client.Get(context.Background(), prefix, clientv3.WithPrefix())
	if err != nil {
		b.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		// Upstream keeps some resources under their resource name alone.
		prefix = root + "/" + svmResource.Resource + "/"
		if resp, err = c.etcd.Client.Get(context.Background(), prefix, clientv3.WithPrefix()); err != nil {
			b.Fatal(err)
		}
	}
	magic := []byte("k8s\x00")
	for _, kv := range resp.Kvs {
		if !bytes.HasPrefix(kv.Value, magic) {
			b.Fatalf("%s is not stored as protobuf", kv.Key)
		}
		var u runtime.Unknown
		if err := u.Unmarshal(kv.Value[len(magic):]); err != nil {
			b.Fatalf("%s: %v", kv.Key, err)
		}
		if u.Kind != svmKind {
			b.Fatalf("%s holds a %s, want a %s", kv.Key, u.Kind, svmKind)
		}
		versions[string(kv.Key)], revisions[string(kv.Key)] = u.APIVersion, kv.ModRevision
	}
	return versions, revisions
}

// expectStored fails unless all n objects are stored at apiVersion, and
// returns their mod revisions.
func (c *svmCluster) expectStored(b *testing.B, apiVersion, when string) map[string]int64 {
	b.Helper()
	versions, revisions := c.stored(b)
	counts := map[string]int{}
	for _, v := range versions {
		counts[v]++
	}
	if len(versions) != c.n || counts[apiVersion] != c.n {
		b.Fatalf("%s: %d %ss stored, by apiVersion %v; want all %d at %s", when, len(versions), svmKind, counts, c.n, apiVersion)
	}
	return revisions
}

// rewrite runs RewriteStorage over the resource with stores at, until done,
// and returns its last outcome and how long it took.
func (c *svmCluster) rewrite(b *testing.B, at *migratortest.Etcd) (tasks.Outcome, time.Duration) {
	b.Helper()
	stores, err := standalone.NewStores(at.Getter, standalone.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer stores.Destroy()
	task := tasks.RewriteStorage("rewrite-"+svmResource.Resource, "Rewrites every "+svmKind+" at the current storage version.", svmResource)
	env := tasks.Env{Stores: stores, Migration: migrator.Options{QPS: -1}.WithDefaults()}
	status := tasks.Status(task)
	ctx := context.Background()
	start := time.Now()
	for steps := 0; ; steps++ {
		out, err := task.Step(ctx, env, &featuresv1alpha1.Feature{}, status, time.Now())
		if err != nil {
			b.Fatalf("step %d of %s: %v", steps+1, task.Name(), err)
		}
		if out.Done {
			return out, time.Since(start)
		}
		if steps > 10*c.n {
			b.Fatalf("%s not done after %d steps: %s", task.Name(), steps, out.Progress)
		}
		status.Checkpoint, status.Progress, status.Message = out.Checkpoint, out.Progress, out.Message
	}
}

// makeOld stores every object at the old version again, unless the previous
// iteration left them so, as an apiserver at the old emulation version
// would: RewriteStorage with its stores.
func (c *svmCluster) makeOld(b *testing.B) {
	b.Helper()
	if !c.rewritten {
		return
	}
	out, _ := c.rewrite(b, c.old)
	if !strings.HasPrefix(out.Message, fmt.Sprintf("rewrote %d of %d", c.n, c.n)) {
		b.Fatalf("storing the objects at the old version again: %s", out.Message)
	}
	c.expectStored(b, svmOldVersion, "stored at the old version again")
	c.rewritten = false
}

// upstream runs b.N StorageVersionMigrations of the resource with
// kube-controller-manager.
func (c *svmCluster) upstream(b *testing.B) {
	kcm := startStorageVersionMigrator(b, c.apiserver)
	defer kcm.Stop()

	var elapsed time.Duration
	var written []int
	patchesBefore := benchPatches(b, c.kube, svmResource.Resource)
	for i := 0; i < b.N; i++ {
		c.makeOld(b)
		before := c.expectStored(b, svmOldVersion, "before the StorageVersionMigration")
		c.migrations++
		elapsed += benchRunStorageVersionMigration(b, c.kube, fmt.Sprintf("bench-%s-%d", svmResource.Resource, c.migrations),
			metav1.GroupResource{Group: svmResource.Group, Resource: svmResource.Resource}, c.n)
		c.rewritten = true
		after := c.expectStored(b, svmNewVersion, "after the StorageVersionMigration")
		written = append(written, countChanged(before, after))
	}
	patches := benchPatches(b, c.kube, svmResource.Resource)
	for code := range patches {
		patches[code] -= patchesBefore[code]
	}
	benchReport(b, c.n, elapsed)
	b.Logf("upstream: %d %ss migrated from %s to %s %d time(s) in %.2fs; patches by verb and response code %v; objects written to etcd (new mod revision) per run: %v",
		c.n, svmKind, svmOldVersion, svmNewVersion, b.N, elapsed.Seconds(), patches, written)
}

// ours runs RewriteStorage b.N times, at the new version.
func (c *svmCluster) ours(b *testing.B) {
	var elapsed time.Duration
	var messages []string
	for i := 0; i < b.N; i++ {
		c.makeOld(b)
		before := c.expectStored(b, svmOldVersion, "before RewriteStorage")
		out, took := c.rewrite(b, c.current)
		elapsed += took
		c.rewritten = true
		after := c.expectStored(b, svmNewVersion, "after RewriteStorage")
		if want := fmt.Sprintf("rewrote %d of %d objects", c.n, c.n); !strings.HasPrefix(out.Message, want) {
			b.Fatalf("RewriteStorage done with %q, want %q...", out.Message, want)
		}
		messages = append(messages, fmt.Sprintf("%q in %.2fs, %d objects written to etcd", out.Message, took.Seconds(), countChanged(before, after)))
	}
	benchReport(b, c.n, elapsed)
	b.Logf("ours: %s", strings.Join(messages, "; "))
}

// countChanged returns how many keys of before have another mod revision in
// after.
func countChanged(before, after map[string]int64) int {
	n := 0
	for k, rev := range before {
		if after[k] != rev {
			n++
		}
	}
	return n
}
