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

// Package migratortest runs the feature storage migrator against a real,
// embedded etcd in tests: kube-apiserver's storage factory over it, and
// valid objects of the resources the migrator supports.
package migratortest

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	etcd3testing "k8s.io/apiserver/pkg/storage/etcd3/testing"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	baseversion "k8s.io/component-base/version"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/kubeapiserver"
	"k8s.io/utils/ptr"

	// The internal types of the supported resources.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
)

// Etcd is an embedded etcd server with kube-apiserver's storage over it.
type Etcd struct {
	// Getter is a RESTOptionsGetter built as kube-apiserver builds its own:
	// storage factory, protobuf, watch cache on.
	Getter generic.RESTOptionsGetter
	// Client is a plain etcd client of the server.
	Client *clientv3.Client
	// Prefix is the storage prefix of the keys, e.g. /registry.
	Prefix string

	// etcdOptions are the options Getter was built with.
	etcdOptions *options.EtcdOptions
}

// StartEtcd starts an embedded etcd server that stops when the test ends.
// Like upstream's test etcd it does not fsync its log.
func StartEtcd(tb testing.TB) *Etcd {
	tb.Helper()
	server, config := etcd3testing.NewUnsecuredEtcd3TestClientServer(tb)
	return newEtcd(tb, server.V3Client.Endpoints(), config)
}

// StartDurableEtcd starts an embedded etcd server that, as a production
// etcd, fsyncs its log before it acknowledges a write.
func StartDurableEtcd(tb testing.TB) *Etcd {
	tb.Helper()
	cfg := testserver.NewTestConfig(tb)
	cfg.UnsafeNoFsync = false
	client := testserver.RunEtcd(tb, cfg)
	config := &storagebackend.Config{
		Type:      storagebackend.StorageTypeETCD3,
		Prefix:    etcd3testing.PathPrefix(),
		Transport: storagebackend.TransportConfig{ServerList: client.Endpoints()},
	}
	return newEtcd(tb, client.Endpoints(), config)
}

// Connect returns kube-apiserver's storage over an etcd that is already
// running, at config's servers and prefix: e.g. the etcd, and the
// --etcd-prefix, of an apiserver process of an integration test.
func Connect(tb testing.TB, config *storagebackend.Config) *Etcd {
	tb.Helper()
	return newEtcd(tb, config.Transport.ServerList, config)
}

func newEtcd(tb testing.TB, endpoints []string, config *storagebackend.Config) *Etcd {
	tb.Helper()
	if config.EventsHistoryWindow == 0 {
		// As kube-apiserver's storage config: the watch cache needs it.
		c := *config
		c.EventsHistoryWindow = storagebackend.DefaultEventsHistoryWindow
		config = &c
	}
	etcdOptions := options.NewEtcdOptions(config)
	etcdOptions.DefaultStorageMediaType = runtime.ContentTypeProtobuf
	getter := restOptionsGetter(tb, kubeapiserver.NewStorageFactoryConfig(), etcdOptions)
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second})
	if err != nil {
		tb.Fatalf("Connecting to etcd: %v", err)
	}
	tb.Cleanup(func() { _ = client.Close() })
	return &Etcd{
		Getter:      getter,
		Client:      client,
		Prefix:      config.Prefix,
		etcdOptions: etcdOptions,
	}
}

// restOptionsGetter builds a storage factory from config as kube-apiserver
// does and returns a RESTOptionsGetter on it.
func restOptionsGetter(tb testing.TB, config *kubeapiserver.StorageFactoryConfig, etcdOptions *options.EtcdOptions) generic.RESTOptionsGetter {
	tb.Helper()
	completed := config.Complete(etcdOptions)
	completed.APIResourceConfig = serverstorage.NewResourceConfig()
	factory, err := completed.New()
	if err != nil {
		tb.Fatalf("Building the storage factory: %v", err)
	}
	return &options.StorageFactoryRestOptionsFactory{Options: *etcdOptions, StorageFactory: factory}
}

// AtEmulationVersion returns the same server (client, prefix) with a Getter
// whose storage factory is kube-apiserver's at emulation version emulation
// (e.g. "1.34") and the minimum compatibility version one minor below, as
// the apiserver of that release defaults it: resources are encoded at the
// storage version that release writes, which for a resource whose storage
// version changed since is an older one (resource.k8s.io's resourceclaims
// are stored at v1beta2 by 1.34, at v1 from 1.35). The compatibility
// version is not floored as in kube-apiserver's own flags (a 1.37
// kube-apiserver started with --emulated-version=1.34 keeps 1.34, the
// lowest it can, and so stores resourceclaims at v1).
func (e *Etcd) AtEmulationVersion(tb testing.TB, emulation string) *Etcd {
	tb.Helper()
	ev, err := version.ParseMajorMinor(emulation)
	if err != nil {
		tb.Fatalf("Emulation version %q: %v", emulation, err)
	}
	binary := version.MustParse(baseversion.DefaultKubeBinaryVersion)
	effective := basecompatibility.NewEffectiveVersion(binary, false, version.MajorMinor(0, 0), version.MajorMinor(0, 0))
	effective.SetEmulationVersion(ev)
	effective.SetMinCompatibilityVersion(ev.SubtractMinor(1))
	if errs := effective.Validate(); len(errs) > 0 {
		tb.Fatalf("Emulation version %q: %v", emulation, errs)
	}
	at := *e
	at.Getter = restOptionsGetter(tb, kubeapiserver.NewStorageFactoryConfigEffectiveVersion(effective), e.etcdOptions)
	return &at
}

// NewStores returns kube-apiserver's registry stores over the server, as
// kube-apiserver builds them (a watch cache in front of each), each opened
// on first use and destroyed when the test ends. Each call is like another
// apiserver on the same etcd.
func (e *Etcd) NewStores(tb testing.TB) *standalone.Stores {
	tb.Helper()
	stores, err := standalone.NewStores(e.Getter, standalone.Config{})
	if err != nil {
		tb.Fatalf("Building kube-apiserver's stores: %v", err)
	}
	tb.Cleanup(stores.Destroy)
	return stores
}

// RegistryStore returns the registry store of gr from stores.
func RegistryStore(tb testing.TB, stores migrator.Stores, gr schema.GroupResource) *genericregistry.Store {
	tb.Helper()
	s, err := stores.Store(gr)
	if err != nil {
		tb.Fatal(err)
	}
	store, ok := s.(*genericregistry.Store)
	if !ok {
		tb.Fatalf("the store of %s is a %T, not a *genericregistry.Store", gr, s)
	}
	return store
}

// TurnOff turns gate off for the rest of the test. What a migration clears
// was written while its gate was on, and the migration runs once the gate is
// off, as in a cluster; MaxUnavailableStatefulSet, which the tests clear, is
// on by default since 1.37 (apps/v1 defaulting then gives every StatefulSet
// read back maxUnavailable: 1).
func TurnOff(tb testing.TB, gate featuregate.Feature) {
	tb.Helper()
	featuregatetesting.SetFeatureGateDuringTest(tb, utilfeature.DefaultFeatureGate, gate, false)
}

// Create creates obj (an internal object) through a registry store, with
// its strategy and validation, and returns the stored object.
func Create(ctx context.Context, store *genericregistry.Store, obj runtime.Object) (runtime.Object, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	ctx = migrator.RequestContext(ctx, migrator.ServedResource(store.DefaultQualifiedResource, obj), "create", accessor.GetNamespace(), accessor.GetName())
	return store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
}

// Internal defaults a versioned object as the API would and converts it to
// its internal version.
func Internal(tb testing.TB, versioned runtime.Object) runtime.Object {
	tb.Helper()
	legacyscheme.Scheme.Default(versioned)
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(versioned)
	if err != nil {
		tb.Fatal(err)
	}
	internal, err := legacyscheme.Scheme.ConvertToVersion(versioned, schema.GroupVersion{Group: gvks[0].Group, Version: runtime.APIVersionInternal})
	if err != nil {
		tb.Fatal(err)
	}
	return internal
}

// PodTemplate returns a valid pod template labelled app=name.
func PodTemplate(name string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// StatefulSet returns a valid StatefulSet (versioned) with
// spec.updateStrategy.rollingUpdate.maxUnavailable set when maxUnavailable
// is not nil.
func StatefulSet(namespace, name string, maxUnavailable *int32) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To[int32](1),
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template:    PodTemplate(name),
			ServiceName: name,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type:          appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)},
			},
		},
	}
	if maxUnavailable != nil {
		s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(*maxUnavailable))
	}
	return s
}

// PodTemplateObjects returns one valid versioned object of each of
// migrator.PodTemplateResources, in that order, named name, with mutate
// applied to its pod template. The Job is suspended, so that the scheduling
// directives of its template (node selector, tolerations, affinity) may
// change.
func PodTemplateObjects(namespace, name string, mutate func(*corev1.PodTemplateSpec)) []runtime.Object {
	template := func() corev1.PodTemplateSpec {
		t := PodTemplate(name)
		if mutate != nil {
			mutate(&t)
		}
		return t
	}
	om := metav1.ObjectMeta{Namespace: namespace, Name: name}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	jobTemplate := template()
	jobTemplate.Spec.RestartPolicy = corev1.RestartPolicyNever
	cronTemplate := template()
	cronTemplate.Spec.RestartPolicy = corev1.RestartPolicyNever
	rcTemplate := template()
	return []runtime.Object{
		&corev1.PodTemplate{ObjectMeta: om, Template: template()},
		&corev1.ReplicationController{ObjectMeta: om, Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To[int32](1), Selector: map[string]string{"app": name}, Template: &rcTemplate}},
		&appsv1.ReplicaSet{ObjectMeta: om, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1), Selector: selector, Template: template()}},
		&appsv1.Deployment{ObjectMeta: om, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: selector, Template: template()}},
		&appsv1.StatefulSet{ObjectMeta: om, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Selector: selector, Template: template(), ServiceName: name}},
		&appsv1.DaemonSet{ObjectMeta: om, Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template()}},
		&batchv1.Job{ObjectMeta: om, Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: jobTemplate}},
		&batchv1.CronJob{ObjectMeta: om, Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: cronTemplate}}}},
	}
}
