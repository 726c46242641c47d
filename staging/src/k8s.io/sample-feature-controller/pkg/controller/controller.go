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

// Package controller holds the sample operator's controller: it keeps a
// ConfigMap for every Widget and, while the Gadgets gate is on, for every
// Gadget of its namespace, and completes the task its Feature widget-colors
// declares for the operator when it turns off.
package controller

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	featurelisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	featuretasks "k8s.io/features/tasks"
	"k8s.io/klog/v2"

	"k8s.io/sample-feature-controller/pkg/features"
)

const (
	// Component is the operator's component name: its FeatureReports are
	// named after it, and it owns the tasks its Features declare for it.
	Component = "sample-feature-controller"

	// ForgetColorsTask is the task the Feature widget-colors declares for
	// the operator in Disabling: remove the color from every ConfigMap
	// the operator made for a Widget.
	ForgetColorsTask = "forget-colors"

	// ManagedByLabel marks the ConfigMaps the operator makes; KindLabel
	// says for which kind.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// KindLabel says which kind of object a ConfigMap was made for.
	KindLabel = "samplefeature.example.com/kind"

	// Group is the API group of the operator's custom resources.
	Group = "samplefeature.example.com"
)

var (
	// WidgetsResource is the resource of Widgets.
	WidgetsResource = schema.GroupVersionResource{Group: Group, Version: "v1alpha1", Resource: "widgets"}
	// GadgetsResource is the resource of Gadgets.
	GadgetsResource = schema.GroupVersionResource{Group: Group, Version: "v1alpha1", Resource: "gadgets"}
)

// kind is what a queue key names: a Widget, a Gadget or a Feature.
type kind string

const (
	widgetKind  kind = "Widget"
	gadgetKind  kind = "Gadget"
	featureKind kind = "Feature"
)

// key is an item of the work queue: an object of the operator's namespace.
type key struct {
	kind kind
	name string
}

// Controller keeps a ConfigMap per Widget and Gadget of its namespace and
// completes the operator's tasks of its Features.
type Controller struct {
	namespace string
	gate      featuregate.FeatureGate
	client    kubernetes.Interface

	widgets    cache.GenericNamespaceLister
	gadgets    cache.GenericNamespaceLister
	configMaps corelisters.ConfigMapNamespaceLister
	features   featurelisters.FeatureNamespaceLister
	synced     []cache.InformerSynced

	queue    workqueue.TypedRateLimitingInterface[key]
	recorder record.EventRecorder

	// colors is held for reading while a Widget is synced and for writing
	// while the colors are removed, so that no sync that read the gate on
	// writes a color after the removal.
	colors sync.RWMutex
}

// New returns the controller of namespace's Widgets, Gadgets and Features.
// Its informers come from the factories, which the caller starts.
func New(ctx context.Context, namespace string, gate featuregate.FeatureGate, client kubernetes.Interface,
	kubeInformers informers.SharedInformerFactory, crInformers dynamicinformer.DynamicSharedInformerFactory) (*Controller, error) {
	logger := klog.FromContext(ctx)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartStructuredLogging(0)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events(namespace)})

	widgets := crInformers.ForResource(WidgetsResource)
	gadgets := crInformers.ForResource(GadgetsResource)
	configMaps := kubeInformers.Core().V1().ConfigMaps()
	featureInformer := kubeInformers.Features().V1alpha1().Features()
	c := &Controller{
		namespace:  namespace,
		gate:       gate,
		client:     client,
		widgets:    widgets.Lister().ByNamespace(namespace),
		gadgets:    gadgets.Lister().ByNamespace(namespace),
		configMaps: configMaps.Lister().ConfigMaps(namespace),
		features:   featureInformer.Lister().Features(namespace),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[key](),
			workqueue.TypedRateLimitingQueueConfig[key]{Name: Component}),
		recorder: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Component}),
	}
	for k, informer := range map[kind]cache.SharedIndexInformer{widgetKind: widgets.Informer(), gadgetKind: gadgets.Informer(), featureKind: featureInformer.Informer()} {
		if _, err := informer.AddEventHandler(c.handler(k)); err != nil {
			return nil, err
		}
	}
	// A ConfigMap changed or deleted by someone else goes back to its owner.
	if _, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj interface{}) { c.enqueueOwner(obj) },
		DeleteFunc: c.enqueueOwner,
	}); err != nil {
		return nil, err
	}
	c.synced = []cache.InformerSynced{widgets.Informer().HasSynced, gadgets.Informer().HasSynced,
		configMaps.Informer().HasSynced, featureInformer.Informer().HasSynced}
	logger.V(2).Info("Set up the controller", "namespace", namespace)
	return c, nil
}

// handler enqueues the objects of kind k that change. A Feature's change
// also enqueues every object of the kind its gate guards, since the
// operator's gate follows the Feature's desired state.
func (c *Controller) handler(k kind) cache.ResourceEventHandler {
	enqueue := func(obj interface{}) {
		m := objectMeta(obj)
		if m == nil {
			utilruntime.HandleError(fmt.Errorf("not an object: %T", obj))
			return
		}
		c.queue.Add(key{kind: k, name: m.GetName()})
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { enqueue(obj) },
		UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
		DeleteFunc: func(obj interface{}) {
			if k == featureKind {
				return
			}
			enqueue(obj)
		},
	}
}

// objectMeta returns obj's metadata, unwrapping an informer's tombstone.
func objectMeta(obj interface{}) metav1.Object {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil
	}
	return m
}

// enqueueOwner enqueues the Widget or Gadget that controls a ConfigMap.
func (c *Controller) enqueueOwner(obj interface{}) {
	m := objectMeta(obj)
	if m == nil {
		return
	}
	if ref := metav1.GetControllerOf(m); ref != nil && (ref.Kind == string(widgetKind) || ref.Kind == string(gadgetKind)) {
		c.queue.Add(key{kind: kind(ref.Kind), name: ref.Name})
	}
}

// Run waits for the informers to sync and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting the controller", "namespace", c.namespace)
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("the caches of namespace %s did not sync", c.namespace)
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.runWorker, time.Second) })
	}
	<-ctx.Done()
	logger.Info("Stopping the controller")
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextItem(ctx) {
	}
}

func (c *Controller) processNextItem(ctx context.Context) bool {
	k, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(k)
	var err error
	switch k.kind {
	case widgetKind:
		err = c.syncWidget(ctx, k.name)
	case gadgetKind:
		err = c.syncGadget(ctx, k.name)
	case featureKind:
		err = c.syncFeature(ctx, k.name)
	}
	if err == nil {
		c.queue.Forget(k)
		return true
	}
	utilruntime.HandleErrorWithContext(ctx, err, "Sync failed, requeuing", "kind", k.kind, "name", k.name)
	c.queue.AddRateLimited(k)
	return true
}

// ConfigMapName is the name of the ConfigMap the operator keeps for an
// object of kind k named name.
func ConfigMapName(k, name string) string {
	if k == string(gadgetKind) {
		return "gadget-" + name
	}
	return "widget-" + name
}

// syncWidget keeps the Widget's ConfigMap: its size and, while
// WidgetColors is on, its color.
func (c *Controller) syncWidget(ctx context.Context, name string) error {
	c.colors.RLock()
	defer c.colors.RUnlock()
	obj, err := c.widgets.Get(name)
	if apierrors.IsNotFound(err) {
		return nil // its ConfigMap goes with it: the Widget owns it
	}
	if err != nil {
		return err
	}
	widget := obj.(*unstructured.Unstructured)
	data := map[string]string{}
	if size, _, _ := unstructured.NestedString(widget.Object, "spec", "size"); size != "" {
		data["size"] = size
	}
	if color, _, _ := unstructured.NestedString(widget.Object, "spec", "color"); color != "" && c.gate.Enabled(features.WidgetColors) {
		data["color"] = color
	}
	return c.keepConfigMap(ctx, widget, data)
}

// syncGadget keeps the Gadget's ConfigMap while Gadgets is on; with it
// off the operator leaves Gadgets alone.
func (c *Controller) syncGadget(ctx context.Context, name string) error {
	if !c.gate.Enabled(features.Gadgets) {
		klog.FromContext(ctx).V(4).Info("Gadgets is off, not syncing", "gadget", klog.KRef(c.namespace, name))
		return nil
	}
	obj, err := c.gadgets.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	gadget := obj.(*unstructured.Unstructured)
	data := map[string]string{}
	if parts, ok, _ := unstructured.NestedInt64(gadget.Object, "spec", "parts"); ok {
		data["parts"] = fmt.Sprint(parts)
	}
	return c.keepConfigMap(ctx, gadget, data)
}

// keepConfigMap creates or updates the ConfigMap owner controls to hold
// data. A ConfigMap of that name the owner does not control is left alone,
// with a warning event on the owner.
func (c *Controller) keepConfigMap(ctx context.Context, owner *unstructured.Unstructured, data map[string]string) error {
	name := ConfigMapName(owner.GetKind(), owner.GetName())
	existing, err := c.configMaps.Get(name)
	if apierrors.IsNotFound(err) {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: c.namespace,
				Labels:          map[string]string{ManagedByLabel: Component, KindLabel: owner.GetKind()},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, owner.GroupVersionKind())},
			},
			Data: data,
		}
		if _, err := c.client.CoreV1().ConfigMaps(c.namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return err
		}
		c.recorder.Eventf(owner, corev1.EventTypeNormal, "Synced", "ConfigMap %s created", name)
		return nil
	}
	if err != nil {
		return err
	}
	if !metav1.IsControlledBy(existing, owner) {
		c.recorder.Eventf(owner, corev1.EventTypeWarning, "ErrResourceExists", "ConfigMap %s exists and is not managed by %s", name, owner.GetName())
		return nil
	}
	if maps.Equal(existing.Data, data) {
		return nil
	}
	cm := existing.DeepCopy()
	cm.Data = data
	_, err = c.client.CoreV1().ConfigMaps(c.namespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// syncFeature completes the operator's active task of the Feature name,
// if any.
func (c *Controller) syncFeature(ctx context.Context, name string) error {
	f, err := c.features.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if f.Spec.Gate == string(features.WidgetColors) || f.Spec.Gate == string(features.Gadgets) {
		// The gate follows the Feature: resync what it guards, in case
		// the gate moved since the objects were synced.
		c.enqueueAll(f)
	}
	task, ok := featuretasks.Active(f, Component)
	if !ok {
		return nil
	}
	switch task.Name {
	case ForgetColorsTask:
		return c.forgetColors(ctx, f)
	default:
		klog.FromContext(ctx).Info("Not a task of this operator's version", "feature", klog.KObj(f), "task", task.Name)
		return nil
	}
}

// enqueueAll enqueues every object of the kind f's gate guards.
func (c *Controller) enqueueAll(f *featuresv1alpha1.Feature) {
	lister, k := c.widgets, widgetKind
	if f.Spec.Gate == string(features.Gadgets) {
		lister, k = c.gadgets, gadgetKind
	}
	objs, err := lister.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, obj := range objs {
		if m := objectMeta(obj); m != nil {
			c.queue.Add(key{kind: k, name: m.GetName()})
		}
	}
}

// forgetColors removes the color from every Widget's ConfigMap, then marks
// the task done. WidgetColors is off in this operator by then: the
// Feature's transition reaches the task after every live reporter says so.
func (c *Controller) forgetColors(ctx context.Context, f *featuresv1alpha1.Feature) error {
	if c.gate.Enabled(features.WidgetColors) {
		return fmt.Errorf("task %s of %s is active while WidgetColors is still on in this process", ForgetColorsTask, klog.KObj(f))
	}
	c.colors.Lock()
	defer c.colors.Unlock()
	cms, err := c.configMaps.List(labels.SelectorFromSet(labels.Set{ManagedByLabel: Component, KindLabel: string(widgetKind)}))
	if err != nil {
		return err
	}
	removed := 0
	for _, cm := range cms {
		if _, ok := cm.Data["color"]; !ok {
			continue
		}
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			current, err := c.client.CoreV1().ConfigMaps(c.namespace).Get(ctx, cm.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if _, ok := current.Data["color"]; !ok {
				return nil
			}
			delete(current.Data, "color")
			_, err = c.client.CoreV1().ConfigMaps(c.namespace).Update(ctx, current, metav1.UpdateOptions{})
			return err
		}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		removed++
		if removed%100 == 0 {
			if err := featuretasks.Update(ctx, c.client, f.Namespace, f.Name, ForgetColorsTask,
				fmt.Sprintf("%d/%d ConfigMaps", removed, len(cms)), "removing the color from the Widgets' ConfigMaps"); err != nil {
				return err
			}
		}
	}
	message := fmt.Sprintf("%d ConfigMaps of Widgets hold no color (%d cleared by this task)", len(cms), removed)
	if err := featuretasks.Complete(ctx, c.client, f.Namespace, f.Name, ForgetColorsTask, message); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Completed the operator's task", "feature", klog.KObj(f), "task", ForgetColorsTask, "removed", removed)
	return nil
}
