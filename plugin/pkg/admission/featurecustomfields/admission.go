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

// Package featurecustomfields implements the FeatureCustomFields admission
// plugin: fields, enum values and kinds of custom resources gated by
// Features, with no webhook. A CRD's author binds them with a
// CustomResourceFeatureBinding (features.k8s.io/v1alpha1) named after the
// CRD (pkg/api/customresourcefeaturebinding). While a bound Feature is off
// (Disabled or Disabling, asked Disabled before its leader saw it, or missing):
//
//   - a write that sets a bound field gets it dropped, with a warning that
//     names the field and the Feature ("spec.color was dropped: feature
//     widgets/widget-colors is Disabled"), as built-in strategies drop disabled
//     fields; with whenOff Refuse a write that sets it anew is refused
//     instead with a field error naming the field and the Feature;
//   - a binding with a value gates that value of the field alone (an enum
//     value), in the same two ways;
//   - a binding without a path gates the kind: creating an object of it is
//     refused; the objects there are stay readable, updatable and
//     deletable.
//
// A field or value that an object already holds is dropped on update too
// when the binding clears what is stored (whenStored Clear: the Feature's
// Disabling clears it anyway); with whenStored Hold it is kept as it was,
// with a warning, as built-in validation keeps a refused value an object
// already holds, and the Feature's Disabling holds until its owner
// changes it.
//
// On a write of a binding the plugin checks what needs the cluster, with
// field errors: the CRD exists and its user may update it (only who may
// edit a CRD binds its fields), each new or changed binding's path is a
// field of the CRD's schema and its value fits the field's type and enum,
// and each Feature exists and the user may get it (a cluster-scoped
// binding reaches into a namespace only for who may read its Features).
// Deleting a Feature that a binding binds to is refused, naming the
// bindings. A CRD write that carries the former annotation
// features.k8s.io/gated-fields, which is no longer read, gets a warning
// naming the binding to create instead.
//
// The plugin acts only while the FeatureLifecycle gate is on.
package featurecustomfields

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// PluginName is the name of the plugin.
const PluginName = "FeatureCustomFields"

// syncTimeout bounds how long a write waits for the plugin's informers
// after kube-apiserver starts.
const syncTimeout = 10 * time.Second

var (
	crdResource      = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	featuresResource = featuresv1alpha1.Resource("features")
	bindingsResource = featuresv1alpha1.SchemeGroupVersion.WithResource("customresourcefeaturebindings")
)

// Register registers the plugin. It takes no configuration.
func Register(plugins *admission.Plugins) {
	plugins.Register(PluginName, func(io.Reader) (admission.Interface, error) {
		return NewPlugin(), nil
	})
}

// Plugin is the FeatureCustomFields admission plugin.
type Plugin struct {
	*admission.Handler
	inspectedFeatureGates bool
	// enabled: the FeatureLifecycle gate is on.
	enabled bool

	features       featureslisters.FeatureLister
	featuresSynced cache.InformerSynced
	// bindings are the CustomResourceFeatureBindings, indexed by Feature.
	bindings       cache.SharedIndexInformer
	bindingsLister featureslisters.CustomResourceFeatureBindingLister
	// indexErr is the error of indexing the bindings by Feature.
	indexErr   error
	authorizer authorizer.Authorizer
	dynamic    dynamic.Interface
	stop       <-chan struct{}
	// crds are the CRDs (nil until ValidateInitialization starts them).
	crds cache.SharedIndexInformer
}

var (
	_ admission.MutationInterface                                  = &Plugin{}
	_ admission.ValidationInterface                                = &Plugin{}
	_ admission.InitializationValidator                            = &Plugin{}
	_ genericadmissioninitializer.WantsFeatures                    = &Plugin{}
	_ genericadmissioninitializer.WantsExternalKubeInformerFactory = &Plugin{}
	_ genericadmissioninitializer.WantsAuthorizer                  = &Plugin{}
	_ genericadmissioninitializer.WantsDynamicClient               = &Plugin{}
	_ genericadmissioninitializer.WantsDrainedNotification         = &Plugin{}
)

// NewPlugin returns the plugin.
func NewPlugin() *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete)}
}

// InspectFeatureGates enables the plugin when the FeatureLifecycle gate is
// on.
func (p *Plugin) InspectFeatureGates(featureGates featuregate.FeatureGate) {
	p.enabled = featureGates.Enabled(kubefeatures.FeatureLifecycle)
	p.inspectedFeatureGates = true
}

// SetExternalKubeInformerFactory sets the informers of Features and of
// CustomResourceFeatureBindings (only when the plugin acts: they list
// features.k8s.io).
func (p *Plugin) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	if !p.enabled {
		return
	}
	features := f.Features().V1alpha1().Features()
	p.features = features.Lister()
	p.featuresSynced = features.Informer().HasSynced
	bindings := f.Features().V1alpha1().CustomResourceFeatureBindings()
	p.bindingsLister = bindings.Lister()
	p.bindings = bindings.Informer()
	p.indexErr = crbinding.AddFeatureIndex(p.bindings)
}

// SetAuthorizer sets the authorizer that decides who may bind to a
// Feature.
func (p *Plugin) SetAuthorizer(a authorizer.Authorizer) { p.authorizer = a }

// SetDynamicClient sets the client of the plugin's CRD informer and of its
// live reads.
func (p *Plugin) SetDynamicClient(c dynamic.Interface) { p.dynamic = c }

// SetDrainedNotification sets the channel that stops the CRD informer.
func (p *Plugin) SetDrainedNotification(stop <-chan struct{}) { p.stop = stop }

// ValidateInitialization checks that the plugin has what it needs and, when
// it acts, starts its informer of CRDs.
func (p *Plugin) ValidateInitialization() error {
	if !p.inspectedFeatureGates {
		return fmt.Errorf("%s did not see feature gates", PluginName)
	}
	if !p.enabled {
		return nil
	}
	switch {
	case p.features == nil || p.bindings == nil:
		return fmt.Errorf("%s has no informers of features.k8s.io", PluginName)
	case p.authorizer == nil:
		return fmt.Errorf("%s has no authorizer", PluginName)
	case p.dynamic == nil:
		return fmt.Errorf("%s has no dynamic client", PluginName)
	case p.indexErr != nil:
		return fmt.Errorf("%s: indexing bindings by Feature: %w", PluginName, p.indexErr)
	}
	if p.crds != nil {
		return nil
	}
	p.crds = dynamicinformer.NewFilteredDynamicInformer(p.dynamic, crdResource, "", 0, cache.Indexers{}, nil).Informer()
	if _, err := p.crds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: p.noteLegacyAnnotation,
		UpdateFunc: func(old, obj any) {
			if o, ok := old.(*unstructured.Unstructured); ok && o.GetAnnotations()[crbinding.LegacyAnnotation] == "" {
				p.noteLegacyAnnotation(obj)
			}
		},
	}); err != nil {
		return err
	}
	go p.crds.Run(p.stop)
	return nil
}

// noteLegacyAnnotation logs a CRD that still carries the annotation that
// bound its fields before CustomResourceFeatureBindings, and has no binding.
func (p *Plugin) noteLegacyAnnotation(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if _, ok := u.GetAnnotations()[crbinding.LegacyAnnotation]; !ok {
		return
	}
	if _, err := p.bindingsLister.Get(u.GetName()); err == nil {
		return
	}
	klog.Background().Info("A custom resource definition binds fields to Features in an annotation that is no longer read: no field of it is gated until a CustomResourceFeatureBinding binds them (kubectl features migrate-bindings)",
		"crd", u.GetName(), "annotation", crbinding.LegacyAnnotation)
}

// waitForSync waits up to syncTimeout for synced after kube-apiserver
// starts, and refuses the request when they do not sync.
func (p *Plugin) waitForSync(ctx context.Context, what string, synced ...cache.InformerSynced) error {
	for _, s := range synced {
		if !s() {
			wait, cancel := context.WithTimeout(ctx, syncTimeout)
			defer cancel()
			if !cache.WaitForCacheSync(wait.Done(), synced...) {
				return admission.NewForbidden(nil, fmt.Errorf("%s: not yet ready to tell %s", PluginName, what))
			}
			return nil
		}
	}
	return nil
}

// Admit drops, or refuses, the bound fields and values of a write of a
// custom resource whose Features are off, and refuses creating an object of
// a bound kind.
func (p *Plugin) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !p.enabled || a.GetObject() == nil || (a.GetSubresource() != "" && a.GetSubresource() != "status") {
		return nil
	}
	gr := a.GetResource().GroupResource()
	if gr.Group == "" || legacyscheme.Scheme.IsGroupRegistered(gr.Group) || gr.Group == apiextensions.GroupName {
		return nil
	}
	obj, ok := a.GetObject().(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	if err := p.waitForSync(ctx, fmt.Sprintf("which fields of %s Features gate", gr), p.bindings.HasSynced, p.featuresSynced, p.crds.HasSynced); err != nil {
		return err
	}
	binding, err := p.bindingsLister.Get(crbinding.CRDName(gr))
	if err != nil {
		return nil
	}
	// Writes of the status subresource carry status; those of the
	// resource carry the rest (and status too when there is no status
	// subresource).
	var status bool
	if u, ok, _ := p.crds.GetIndexer().GetByKey(binding.Name); ok {
		if crd, ok := u.(*unstructured.Unstructured); ok {
			status = crbinding.FromUnstructured(crd).Status
		}
	}
	var old map[string]interface{}
	if o, ok := a.GetOldObject().(*unstructured.Unstructured); ok && a.GetOperation() == admission.Update {
		old = o.Object
	}
	kind := a.GetKind().Kind
	var refused field.ErrorList
	var drop []*featuresv1alpha1.CustomResourceFieldBinding
	var why []string
	for i := range binding.Spec.Bindings {
		b := &binding.Spec.Bindings[i]
		off, state := p.off(b.Feature)
		if !off {
			continue
		}
		fields := crbinding.Fields(b)
		if fields == nil {
			if a.GetOperation() == admission.Create && a.GetSubresource() == "" {
				refused = append(refused, field.Forbidden(field.NewPath("kind"), fmt.Sprintf("%s cannot be created: %s", kind, state)))
			}
			continue
		}
		if inStatus := fields[0] == "status"; a.GetSubresource() == "status" && !inStatus || a.GetSubresource() == "" && inStatus && status {
			continue
		}
		if !crbinding.Holds(b, obj.Object) {
			continue
		}
		v, _ := crbinding.Get(obj.Object, fields)
		held, had := crbinding.Get(old, fields)
		kept := had && reflect.DeepEqual(v, held)
		switch {
		case kept && b.WhenStored == featuresv1alpha1.CustomResourceWhenStoredHold:
			warning.AddWarning(ctx, "", fmt.Sprintf("%s was kept as the object held it: %s; change it to let the feature turn off", crbinding.Describe(b, kind), state))
		case !kept && b.WhenOff == featuresv1alpha1.CustomResourceWhenOffRefuse:
			refused = append(refused, field.Forbidden(field.NewPath(fields[0], fields[1:]...), crbinding.Describe(b, kind)+" cannot be set: "+state))
		default:
			drop = append(drop, b)
			why = append(why, state)
		}
	}
	if len(refused) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: kind}, a.GetName(), refused)
	}
	for i, b := range drop {
		unstructured.RemoveNestedField(obj.Object, crbinding.Fields(b)...)
		warning.AddWarning(ctx, "", fmt.Sprintf("%s was dropped: %s", crbinding.Describe(b, kind), why[i]))
	}
	return nil
}

// off says whether the Feature ref is off, and in what words: Disabled or
// Disabling, asked Disabled (or declared off by default) before its leader
// stated it, or missing.
func (p *Plugin) off(ref featuresv1alpha1.FeatureReference) (bool, string) {
	key := crbinding.FeatureKey(ref)
	f, err := p.features.Features(ref.Namespace).Get(ref.Name)
	if err != nil {
		return true, fmt.Sprintf("feature %s does not exist", key)
	}
	switch s := f.Status.State; s {
	case featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateDisabling:
		return true, fmt.Sprintf("feature %s is %s", key, s)
	case featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateEnabling:
		return false, ""
	}
	desired := f.Spec.DesiredState
	if desired == "" && f.Spec.Declaration != nil && !f.Spec.Declaration.Default {
		desired = featuresv1alpha1.FeatureDesiredStateDisabled
	}
	if desired == featuresv1alpha1.FeatureDesiredStateDisabled {
		return true, fmt.Sprintf("feature %s is asked Disabled", key)
	}
	return false, ""
}
