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

// Package featuredroppedfields implements the FeatureDroppedFields
// admission plugin: a write whose fields upstream's strategy drops because
// their feature gate is off gets a warning that names each field and the
// Feature and its state, for example
//
//	spec.updateStrategy.rollingUpdate.maxUnavailable was dropped: feature kube-system/max-unavailable-stateful-set is Disabled
//
// so that `kubectl apply` prints it instead of the field vanishing without
// a word. The plugin changes nothing: the object stored is exactly
// upstream's.
//
// The fields are those of the gate inventory (pkg/features/lifecycle
// Guarded, which kube-apiserver hands the plugin through Initializer): what
// each resource's strategy drops with a gate off, but the values it keeps. A create is warned about every such field it sets; an
// update (patch and server-side apply included) about those it sets that
// the stored object does not, since upstream's strategies keep a disabled
// field an object already uses. Writes of the status subresource are
// looked at for the fields under status, writes of the resource for the
// others. The plugin runs in the mutating phase, on the object as the
// client sent it, before the strategy; it acts only while the
// FeatureLifecycle gate is on.
package featuredroppedfields

import (
	"context"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	featureslisters "k8s.io/client-go/listers/features/v1alpha1"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// PluginName is the name of the plugin.
const PluginName = "FeatureDroppedFields"

// Register registers the plugin. It takes no configuration.
func Register(plugins *admission.Plugins) {
	plugins.Register(PluginName, func(io.Reader) (admission.Interface, error) {
		return NewPlugin()
	})
}

// Plugin is the FeatureDroppedFields admission plugin.
type Plugin struct {
	*admission.Handler
	inspectedFeatureGates bool
	// enabled: the FeatureLifecycle gate is on.
	enabled bool
	// gates are the feature gates the strategies read.
	gates featuregate.FeatureGate
	// features lists the Features, for their state (nil until set).
	features featureslisters.FeatureLister
	// guarded are the fields each resource's strategy drops with a gate
	// off (nil: the plugin was not given them, and does nothing).
	guarded GuardedFields
}

// GuardedFields returns, by resource, the fields upstream's strategies drop
// with a gate off.
type GuardedFields func() (map[schema.GroupResource]inventory.GuardedResource, error)

// WantsGuardedFields is an admission plugin that needs the fields the
// feature gates guard.
type WantsGuardedFields interface {
	SetGuardedFields(GuardedFields)
}

// Initializer hands admission plugins the fields the feature gates guard.
// kube-apiserver adds it to its plugin initializers with
// pkg/features/lifecycle's Guarded, which this package cannot import.
type Initializer struct {
	// Guarded are the fields.
	Guarded GuardedFields
}

var _ admission.PluginInitializer = Initializer{}

// Initialize sets the guarded fields of a plugin that wants them.
func (i Initializer) Initialize(plugin admission.Interface) {
	if w, ok := plugin.(WantsGuardedFields); ok {
		w.SetGuardedFields(i.Guarded)
	}
}

// SetGuardedFields sets the fields the plugin warns about.
func (p *Plugin) SetGuardedFields(guarded GuardedFields) {
	p.guarded = guarded
}

var (
	_ admission.MutationInterface                                  = &Plugin{}
	_ admission.InitializationValidator                            = &Plugin{}
	_ genericadmissioninitializer.WantsFeatures                    = &Plugin{}
	_ genericadmissioninitializer.WantsExternalKubeInformerFactory = &Plugin{}
	_ WantsGuardedFields                                           = &Plugin{}
)

// NewPlugin returns the plugin.
func NewPlugin() (*Plugin, error) {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update)}, nil
}

// InspectFeatureGates enables the plugin when the FeatureLifecycle gate is
// on, and keeps the gates the strategies read.
func (p *Plugin) InspectFeatureGates(featureGates featuregate.FeatureGate) {
	p.enabled = featureGates.Enabled(kubefeatures.FeatureLifecycle)
	p.gates = featureGates
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
	p.SetReadyFunc(informer.Informer().HasSynced)
}

// ValidateInitialization checks that the plugin was told the feature gates
// and, when it acts, given the Features' lister.
func (p *Plugin) ValidateInitialization() error {
	if !p.inspectedFeatureGates {
		return fmt.Errorf("%s did not see feature gates", PluginName)
	}
	if p.enabled && p.features == nil {
		return fmt.Errorf("%s has no lister of Features", PluginName)
	}
	return nil
}

// Admit warns about the fields of the write that the strategy will drop
// because their gate is off. It never refuses a write and changes nothing.
func (p *Plugin) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !p.enabled || p.guarded == nil || a.GetObject() == nil || (a.GetSubresource() != "" && a.GetSubresource() != "status") {
		return nil
	}
	guarded, err := p.guarded()
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reading the fields feature gates guard; writes are not warned about")
		return nil
	}
	res, ok := guarded[a.GetResource().GroupResource()]
	if !ok {
		return nil
	}
	status := a.GetSubresource() == "status"
	var off []inventory.GuardedField
	for _, f := range res.Fields {
		if (f.Path[0].Field == "status") == status && !p.gates.Enabled(f.Gate) {
			off = append(off, f)
		}
	}
	if len(off) == 0 {
		return nil
	}
	obj, err := versioned(a.GetObject(), res)
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Not warning about dropped fields: the object cannot be read in its version", "resource", a.GetResource().GroupResource().String(), "err", err)
		return nil
	}
	var old map[string]interface{}
	if a.GetOperation() == admission.Update && a.GetOldObject() != nil {
		if old, err = versioned(a.GetOldObject(), res); err != nil {
			return nil
		}
	}
	for _, f := range off {
		if !f.Path.HasUnless(obj, f.Keep) || (old != nil && f.Path.HasUnless(old, f.Keep)) {
			continue
		}
		warning.AddWarning(ctx, "", fmt.Sprintf("%s was dropped: %s", f.Path, p.state(f.Gate)))
	}
	return nil
}

// state says what the gate's Feature is, e.g. "feature
// kube-system/max-unavailable-stateful-set is Disabled".
func (p *Plugin) state(gate featuregate.Feature) string {
	name := featuresv1alpha1.FeatureName(string(gate))
	if p.features != nil {
		if f, err := p.features.Features(metav1.NamespaceSystem).Get(name); err == nil && f.Status.State != "" {
			return fmt.Sprintf("feature %s/%s is %s", metav1.NamespaceSystem, name, f.Status.State)
		}
	}
	return fmt.Sprintf("feature gate %s is off on this kube-apiserver (feature %s/%s)", gate, metav1.NamespaceSystem, name)
}

// versioned returns obj (internal) in the version res's paths are written
// in, as a map.
func versioned(obj runtime.Object, res inventory.GuardedResource) (map[string]interface{}, error) {
	// UnsafeConvertToVersion shares memory with obj, which is only read.
	out, err := legacyscheme.Scheme.UnsafeConvertToVersion(obj, res.Version)
	if err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(out)
}
