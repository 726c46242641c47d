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
// Features, with no webhook. A CRD's author binds them in the CRD's
// annotation features.k8s.io/gated-fields (pkg/featurelifecycle/crdbindings), so only
// who may edit the CRD binds its fields. While a bound Feature is off (Disabled
// or Disabling, asked Disabled before its leader saw it, or missing):
//
//   - a write that sets a bound field gets it dropped, with a warning that
//     names the field and the Feature ("spec.color was dropped: feature
//     widgets/widget-colors is Disabled"), as built-in strategies drop disabled
//     fields; with "whenOff": "Refuse" a write that sets it anew is refused
//     instead, naming the field and the Feature;
//   - a binding with a value gates that value of the field alone (an enum
//     value), in the same two ways;
//   - a binding without a path gates the kind: creating an object of it is
//     refused; the objects there are stay readable, updatable and
//     deletable.
//
// Unlike built-in strategies, a field an object already holds is dropped
// too: off means off, and the storage migrator of the Feature's Disabling
// clears what is stored.
//
// On a CRD write the plugin validates the annotation (field-level errors
// under metadata.annotations[features.k8s.io/gated-fields]: the Feature's
// reference, a path of the schema through objects only, Drop or Refuse, no
// field bound twice), and refuses a binding to a Feature the user may not
// get: references cross from a cluster-scoped CRD into a namespace only
// for who may read that namespace's Features. Deleting a Feature that a CRD
// binds to is refused, naming the CRDs.
//
// The plugin acts only while the FeatureLifecycle gate is on.
package featurecustomfields

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/featurelifecycle/crdbindings"
	kubefeatures "k8s.io/kubernetes/pkg/features"
)

// PluginName is the name of the plugin.
const PluginName = "FeatureCustomFields"

// syncTimeout bounds how long a write of a custom resource waits for the
// plugin's informers after kube-apiserver starts.
const syncTimeout = 10 * time.Second

var (
	crdResource      = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	featuresResource = featuresv1alpha1.Resource("features")
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
	authorizer     authorizer.Authorizer
	dynamic        dynamic.Interface
	stop           <-chan struct{}
	// crds are the CRDs, indexed by resource and by Feature (nil until
	// ValidateInitialization starts them).
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

// SetExternalKubeInformerFactory sets the Features' lister (only when the
// plugin acts: its informer lists features.k8s.io).
func (p *Plugin) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	if !p.enabled {
		return
	}
	informer := f.Features().V1alpha1().Features()
	p.features = informer.Lister()
	p.featuresSynced = informer.Informer().HasSynced
}

// SetAuthorizer sets the authorizer that decides who may bind to a
// Feature.
func (p *Plugin) SetAuthorizer(a authorizer.Authorizer) { p.authorizer = a }

// SetDynamicClient sets the client of the plugin's CRD informer.
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
	case p.features == nil:
		return fmt.Errorf("%s has no lister of Features", PluginName)
	case p.authorizer == nil:
		return fmt.Errorf("%s has no authorizer", PluginName)
	case p.dynamic == nil:
		return fmt.Errorf("%s has no dynamic client", PluginName)
	}
	if p.crds == nil {
		p.crds = dynamicinformer.NewFilteredDynamicInformer(p.dynamic, crdResource, "", 0,
			cache.Indexers{crdbindings.ByResource: crdbindings.IndexByResource, crdbindings.ByFeature: crdbindings.IndexByFeature}, nil).Informer()
		go p.crds.Run(p.stop)
	}
	return nil
}

// Admit drops, or refuses, the gated fields and values of a write of a
// custom resource whose Features are off, and refuses creating an object of
// a gated kind.
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
	crd, ok, err := p.crdOf(ctx, gr)
	if err != nil || !ok {
		return err
	}
	kind := crd.Kind
	var old map[string]interface{}
	if o, ok := a.GetOldObject().(*unstructured.Unstructured); ok && a.GetOperation() == admission.Update {
		old = o.Object
	}
	var refused field.ErrorList
	var drop []crdbindings.Binding
	var why []string
	for _, b := range crd.Bindings {
		off, state := p.off(b)
		if !off {
			continue
		}
		fields := b.Fields()
		if fields == nil {
			if a.GetOperation() == admission.Create && a.GetSubresource() == "" {
				refused = append(refused, field.Forbidden(field.NewPath("kind"), fmt.Sprintf("%s cannot be created: %s", kind, state)))
			}
			continue
		}
		// Writes of the status subresource carry status; those of the
		// resource carry the rest (and status too when there is no
		// status subresource).
		if inStatus := fields[0] == "status"; a.GetSubresource() == "status" && !inStatus || a.GetSubresource() == "" && inStatus && crd.Status {
			continue
		}
		if !b.Holds(obj.Object) {
			continue
		}
		v, _ := crdbindings.Get(obj.Object, fields)
		held, had := crdbindings.Get(old, fields)
		if b.WhenOffOrDefault() == crdbindings.Refuse && !(had && reflect.DeepEqual(v, held)) {
			refused = append(refused, field.Forbidden(field.NewPath(fields[0], fields[1:]...), b.Describe(kind)+" cannot be set: "+state))
			continue
		}
		drop = append(drop, b)
		why = append(why, state)
	}
	if len(refused) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: kind}, a.GetName(), refused)
	}
	for i, b := range drop {
		unstructured.RemoveNestedField(obj.Object, b.Fields()...)
		warning.AddWarning(ctx, "", fmt.Sprintf("%s was dropped: %s", b.Describe(kind), why[i]))
	}
	return nil
}

// crdOf returns the bindings of the CRD that serves gr (ok false for a
// resource no CRD serves, or one without bindings). It waits for the
// plugin's informers after kube-apiserver starts, and refuses the write
// when they do not sync.
func (p *Plugin) crdOf(ctx context.Context, gr schema.GroupResource) (crdbindings.CRD, bool, error) {
	if !p.crds.HasSynced() || !p.featuresSynced() {
		wait, cancel := context.WithTimeout(ctx, syncTimeout)
		defer cancel()
		if !cache.WaitForCacheSync(wait.Done(), p.crds.HasSynced, p.featuresSynced) {
			return crdbindings.CRD{}, false, admission.NewForbidden(nil, fmt.Errorf("%s: not yet ready to tell which fields of %s Features gate", PluginName, gr))
		}
	}
	objs, err := p.crds.GetIndexer().ByIndex(crdbindings.ByResource, gr.Group+"/"+gr.Resource)
	if err != nil || len(objs) != 1 {
		return crdbindings.CRD{}, false, nil
	}
	u, ok := objs[0].(*unstructured.Unstructured)
	if !ok {
		return crdbindings.CRD{}, false, nil
	}
	crd, ok := crdbindings.FromUnstructured(u)
	return crd, ok, nil
}

// featureExists says whether the Feature namespace/name exists: in the
// plugin's cache, or else in a live read, since a Feature created just
// before the CRD (manifests applied in one go) may not have reached the
// cache yet. Only a read that finds nothing says it does not.
func (p *Plugin) featureExists(ctx context.Context, namespace, name string) bool {
	if _, err := p.features.Features(namespace).Get(name); err == nil {
		return true
	}
	_, err := p.dynamic.Resource(featuresv1alpha1.SchemeGroupVersion.WithResource("features")).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	return !apierrors.IsNotFound(err)
}

// off says whether the Feature of b is off, and in what words: Disabled or
// Disabling, asked Disabled (or declared off by default) before its leader
// stated it, or missing.
func (p *Plugin) off(b crdbindings.Binding) (bool, string) {
	namespace, name := b.FeatureKey()
	f, err := p.features.Features(namespace).Get(name)
	if err != nil {
		return true, fmt.Sprintf("feature %s does not exist", b.Feature)
	}
	switch s := f.Status.State; s {
	case featuresv1alpha1.FeatureStateDisabled, featuresv1alpha1.FeatureStateDisabling:
		return true, fmt.Sprintf("feature %s is %s", b.Feature, s)
	case featuresv1alpha1.FeatureStateEnabled, featuresv1alpha1.FeatureStateEnabling:
		return false, ""
	}
	desired := f.Spec.DesiredState
	if desired == "" && f.Spec.Declaration != nil && !f.Spec.Declaration.Default {
		desired = featuresv1alpha1.FeatureDesiredStateDisabled
	}
	if desired == featuresv1alpha1.FeatureDesiredStateDisabled {
		return true, fmt.Sprintf("feature %s is asked Disabled", b.Feature)
	}
	return false, ""
}

// Validate checks the bindings of a CRD that is created or updated, and
// that its user may get every Feature it newly binds to; and refuses
// deleting a Feature a CRD binds to.
func (p *Plugin) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !p.enabled || a.GetSubresource() != "" {
		return nil
	}
	if a.GetOperation() == admission.Delete {
		if a.GetResource().GroupResource() == featuresResource {
			return p.validateFeatureDeletion(ctx, a)
		}
		return nil
	}
	if a.GetResource().GroupResource() != crdResource.GroupResource() {
		return nil
	}
	crd, err := toV1(a.GetObject())
	if err != nil || crd == nil {
		return err
	}
	if _, ok := crd.Annotations[crdbindings.Annotation]; !ok {
		return nil
	}
	bindings, errs := crdbindings.Validate(crd)
	var before []crdbindings.Binding
	if old, err := toV1(a.GetOldObject()); err == nil && old != nil && a.GetOperation() == admission.Update {
		before, _ = crdbindings.Parse(old.Annotations)
	}
	if len(errs) == 0 {
		for i, b := range bindings {
			if bound(before, b.Feature) {
				continue
			}
			namespace, name := b.FeatureKey()
			if ok, why := p.mayGet(ctx, a, namespace, name); !ok {
				errs = append(errs, field.Forbidden(crdbindings.AnnotationPath.Index(i).Child("feature"),
					fmt.Sprintf("user %q may not get feature %s%s: only who may read a Feature binds fields to it", a.GetUserInfo().GetName(), b.Feature, why)))
				continue
			}
			if !p.featureExists(ctx, namespace, name) {
				warning.AddWarning(ctx, "", fmt.Sprintf("%s: feature %s does not exist: what is bound to it is off until it is Enabled", crdbindings.AnnotationPath.Index(i).Child("feature"), b.Feature))
			}
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(apiextensions.Kind("CustomResourceDefinition"), a.GetName(), errs)
	}
	return nil
}

// validateFeatureDeletion refuses deleting a Feature that a CRD binds to,
// naming the CRDs: its fields would be gated by a Feature no one can turn
// on. The binding is removed from the CRD first.
func (p *Plugin) validateFeatureDeletion(ctx context.Context, a admission.Attributes) error {
	if !p.crds.HasSynced() {
		wait, cancel := context.WithTimeout(ctx, syncTimeout)
		defer cancel()
		if !cache.WaitForCacheSync(wait.Done(), p.crds.HasSynced) {
			return admission.NewForbidden(a, fmt.Errorf("%s: not yet ready to tell which custom resource definitions bind to Features", PluginName))
		}
	}
	objs, err := p.crds.GetIndexer().ByIndex(crdbindings.ByFeature, a.GetNamespace()+"/"+a.GetName())
	if err != nil || len(objs) == 0 {
		return nil
	}
	var names []string
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			names = append(names, u.GetName())
		}
	}
	sort.Strings(names)
	return admission.NewForbidden(a, fmt.Errorf("custom resource definitions bind fields to it (%s): remove the bindings from %s first",
		crdbindings.AnnotationPath, strings.Join(names, ", ")))
}

// bound says whether one of bindings binds to feature.
func bound(bindings []crdbindings.Binding, feature string) bool {
	for _, b := range bindings {
		if b.Feature == feature {
			return true
		}
	}
	return false
}

// mayGet asks the authorizer whether the request's user may get the
// Feature, and why not.
func (p *Plugin) mayGet(ctx context.Context, a admission.Attributes, namespace, name string) (bool, string) {
	decision, why, err := p.authorizer.Authorize(ctx, authorizer.AttributesRecord{
		User:            a.GetUserInfo(),
		Verb:            "get",
		Namespace:       namespace,
		APIGroup:        featuresv1alpha1.GroupName,
		APIVersion:      "*",
		Resource:        "features",
		Name:            name,
		ResourceRequest: true,
	})
	switch {
	case err != nil:
		return false, " (" + err.Error() + ")"
	case decision != authorizer.DecisionAllow && why != "":
		return false, " (" + why + ")"
	}
	return decision == authorizer.DecisionAllow, ""
}

// toV1 returns a CRD of the request in apiextensions.k8s.io/v1 (nil for
// none).
func toV1(obj runtime.Object) (*apiextensionsv1.CustomResourceDefinition, error) {
	switch crd := obj.(type) {
	case *apiextensions.CustomResourceDefinition:
		out := &apiextensionsv1.CustomResourceDefinition{}
		if err := apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(crd, out, nil); err != nil {
			return nil, err
		}
		return out, nil
	case *apiextensionsv1.CustomResourceDefinition:
		return crd, nil
	}
	return nil, nil
}
