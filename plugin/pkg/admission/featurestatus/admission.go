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

// Package featurestatus contains the FeatureStatus admission plugin, which
// decides who may write which part of the status of a Feature
// (features.k8s.io).
//
// RBAC grants `update features/status` to every component that reports the
// feature gates it checked (kube-controller-manager, kube-scheduler, the
// kubelets, and whatever third parties an administrator binds). RBAC cannot
// say "only your own entries of status.uses", so this plugin narrows the
// grant on every update of the features/status subresource (a patch and a
// server-side apply arrive as an update too):
//
//   - The user system:apiserver and members of the group system:masters may
//     change anything. kube-apiserver's loopback client (system:apiserver,
//     itself in system:masters) is the one writer of state, tasks,
//     conditions and the rest of status; and members of system:masters are
//     superusers that bypass authorization anyway, so restricting them here
//     would only break the break-glass path.
//   - A reporter may only change the entries of status.uses whose component
//     is its own: add such an entry, add or remove an identity in its
//     reporters, and drop it. firstReportTime of an entry that stays, and
//     every other part of status (state, default, preRelease, lockToDefault,
//     version, tasks, usesResetTime, conditions, observedGeneration and the
//     entries of other components), must be semantically unchanged. The
//     built-in reporters are system:kube-controller-manager
//     (kube-controller-manager), system:kube-scheduler (kube-scheduler), and
//     system:node:<name> in the group system:nodes (kubelet), which may only
//     add or remove the identity <name>. An administrator maps further users
//     or groups to component names in the plugin's configuration.
//   - Any other user may not change status at all.
//
// Two rules apply to the Feature itself, for every user but kube-apiserver's
// own (system:apiserver):
//
//   - A Feature in kube-system, where Kubernetes' own gates live, can only be
//     created for a gate this kube-apiserver knows; third parties use their
//     own namespace. (A newer kube-apiserver announces its new gates through
//     its own loopback client.)
//   - spec.management of a Feature in kube-system is kube-apiserver's to
//     set, from its flags: it cannot be set through the API (no flag opts a
//     gate into a mode other than CommandLine yet).
//   - spec.desiredState of a Feature managed by CommandLine follows the
//     kube-apiservers' --feature-gates and cannot be set through the API.
//     In a third party's namespace, an administrator who wants to set it
//     makes the Feature Dynamic (spec.management) first or in the same
//     request.
//
// Requests for other resources, other subresources and other operations
// are not looked at, so the plugin is harmless where features.k8s.io is
// not served.
//
// The configuration, given in the admission configuration file
// (--admission-control-config-file), is optional:
//
//	apiVersion: apiserver.config.k8s.io/v1
//	kind: AdmissionConfiguration
//	plugins:
//	- name: FeatureStatus
//	  configuration:
//	    apiVersion: featurestatus.admission.k8s.io/v1alpha1 # optional
//	    kind: FeatureStatusConfiguration                    # optional
//	    reporters:
//	    - user: system:serviceaccount:foo:bar
//	      component: foo-controller
//	    - group: example.com:controllers
//	      component: example-controller
//
// Each mapping names exactly one of user or group, and a component that is
// a DNS subdomain other than kube-apiserver (whose entries only
// kube-apiserver writes). Unknown fields are errors. A user gets the union
// of the components of every mapping that matches it and of the built-in
// ones; a node stays restricted to its own identity for all of them.
package featurestatus

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/kubernetes/pkg/auth/nodeidentifier"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "k8s.io/features/api/v1alpha1"

	"k8s.io/featureflags/pkg/apis/features"
	"k8s.io/featureflags/pkg/apis/features/validation"
)

// PluginName is the name of the admission plugin.
const PluginName = "FeatureStatus"

// Names of the built-in reporting components, as they appear in
// status.uses[].component.
const (
	// KubeControllerManagerComponent is what system:kube-controller-manager reports as.
	KubeControllerManagerComponent = "kube-controller-manager"
	// KubeSchedulerComponent is what system:kube-scheduler reports as.
	KubeSchedulerComponent = "kube-scheduler"
	// KubeletComponent is what a node (system:node:<name> in system:nodes) reports as.
	KubeletComponent = "kubelet"
)

// The optional type information of the configuration.
const (
	// ConfigurationAPIVersion is the apiVersion a configuration may state.
	ConfigurationAPIVersion = "featurestatus.admission.k8s.io/v1alpha1"
	// ConfigurationKind is the kind a configuration may state.
	ConfigurationKind = "FeatureStatusConfiguration"
)

// Configuration is the configuration of the FeatureStatus plugin.
type Configuration struct {
	// APIVersion is optional; when set it must be ConfigurationAPIVersion.
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is optional; when set it must be ConfigurationKind.
	Kind string `json:"kind,omitempty"`
	// Reporters maps users and groups, beyond the built-in ones, to the
	// component whose entries of status.uses they may write.
	Reporters []ReporterMapping `json:"reporters,omitempty"`
}

// ReporterMapping maps a user or a group to a component name.
type ReporterMapping struct {
	// User is the name of the user, e.g. system:serviceaccount:foo:bar.
	User string `json:"user,omitempty"`
	// Group is the name of a group; every member maps to Component.
	Group string `json:"group,omitempty"`
	// Component is the component name the user or group reports as.
	Component string `json:"component"`
}

// LoadConfiguration reads a Configuration (YAML or JSON) from config. A nil
// or empty config is an empty Configuration. The result is validated.
func LoadConfiguration(config io.Reader) (*Configuration, error) {
	cfg := &Configuration{}
	if config == nil {
		return cfg, nil
	}
	data, err := io.ReadAll(config)
	if err != nil {
		return nil, fmt.Errorf("reading the %s configuration: %w", PluginName, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		return nil, fmt.Errorf("decoding the %s configuration: %w", PluginName, err)
	}
	if err := ValidateConfiguration(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ValidateConfiguration returns an error naming every bad field of cfg.
func ValidateConfiguration(cfg *Configuration) error {
	var errs []string
	if cfg.APIVersion != "" && cfg.APIVersion != ConfigurationAPIVersion {
		errs = append(errs, fmt.Sprintf("apiVersion: must be %q or empty, not %q", ConfigurationAPIVersion, cfg.APIVersion))
	}
	if cfg.Kind != "" && cfg.Kind != ConfigurationKind {
		errs = append(errs, fmt.Sprintf("kind: must be %q or empty, not %q", ConfigurationKind, cfg.Kind))
	}
	for i, m := range cfg.Reporters {
		p := fmt.Sprintf("reporters[%d]", i)
		switch {
		case m.User == "" && m.Group == "":
			errs = append(errs, p+": one of user or group is required")
		case m.User != "" && m.Group != "":
			errs = append(errs, p+": only one of user or group may be set; use two mappings for both")
		}
		switch {
		case m.Component == "":
			errs = append(errs, p+".component: required, the component name the user or group reports its uses as")
		case m.Component == validation.APIServerComponent:
			errs = append(errs, fmt.Sprintf("%s.component: %q is reserved: only kube-apiserver itself writes its entries of status.uses", p, m.Component))
		default:
			for _, msg := range utilvalidation.IsDNS1123Subdomain(m.Component) {
				errs = append(errs, fmt.Sprintf("%s.component: invalid value %q: %s", p, m.Component, msg))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid %s configuration: %s", PluginName, strings.Join(errs, "; "))
	}
	return nil
}

// Register registers the FeatureStatus plugin. Its factory reads the
// optional Configuration; knownGate reports whether the kube-apiserver knows
// a gate (Features in kube-system must be for known gates).
func Register(plugins *admission.Plugins, knownGate func(gate string) bool) {
	plugins.Register(PluginName, func(config io.Reader) (admission.Interface, error) {
		cfg, err := LoadConfiguration(config)
		if err != nil {
			return nil, err
		}
		p, err := NewPlugin(cfg)
		if err != nil {
			return nil, err
		}
		p.knownGate = knownGate
		return p, nil
	})
}

// RecommendedOrder returns order (a RecommendedPluginOrder of admission
// options) with PluginName inserted right after NodeRestriction, the other
// plugin that restricts writes by the requester's identity; when order has
// no NodeRestriction, before the policy, webhook, quota and deny plugins
// that must stay last; else at the end. An order that already has
// PluginName is returned unchanged. The result is a new slice.
func RecommendedOrder(order []string) []string {
	if slices.Contains(order, PluginName) {
		return slices.Clone(order)
	}
	at := len(order)
	if i := slices.Index(order, "NodeRestriction"); i >= 0 {
		at = i + 1
	} else if i := slices.IndexFunc(order, func(name string) bool {
		switch name {
		case "MutatingAdmissionPolicy", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
			"ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny":
			return true
		}
		return false
	}); i >= 0 {
		at = i
	}
	return slices.Insert(slices.Clone(order), at, PluginName)
}

// Plugin is the FeatureStatus admission plugin.
type Plugin struct {
	*admission.Handler
	// knownGate reports whether this kube-apiserver knows a gate; nil allows
	// every gate.
	knownGate       func(gate string) bool
	nodeIdentifier  nodeidentifier.NodeIdentifier
	userComponents  map[string]sets.Set[string]
	groupComponents map[string]sets.Set[string]
}

var _ admission.ValidationInterface = &Plugin{}

// NewPlugin returns a FeatureStatus plugin for cfg (nil means no extra
// mappings). It validates cfg.
func NewPlugin(cfg *Configuration) (*Plugin, error) {
	p := &Plugin{
		Handler:         admission.NewHandler(admission.Create, admission.Update),
		nodeIdentifier:  nodeidentifier.NewDefaultNodeIdentifier(),
		userComponents:  map[string]sets.Set[string]{},
		groupComponents: map[string]sets.Set[string]{},
	}
	if cfg == nil {
		return p, nil
	}
	if err := ValidateConfiguration(cfg); err != nil {
		return nil, err
	}
	for _, m := range cfg.Reporters {
		if m.User != "" {
			addTo(p.userComponents, m.User, m.Component)
		} else {
			addTo(p.groupComponents, m.Group, m.Component)
		}
	}
	return p, nil
}

func addTo(m map[string]sets.Set[string], key, component string) {
	if m[key] == nil {
		m[key] = sets.New[string]()
	}
	m[key].Insert(component)
}

var featuresResource = features.Resource("features")

// Validate admits an update of features/status when the requesting user may
// make every change it makes; see the package documentation.
func (p *Plugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != featuresResource {
		return nil
	}
	if a.GetSubresource() == "" {
		return p.validateFeature(a)
	}
	if a.GetOperation() != admission.Update || a.GetSubresource() != "status" {
		return nil
	}
	u := a.GetUserInfo()
	if isSuperuser(u) {
		return nil
	}
	obj, ok := a.GetObject().(*features.Feature)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected a Feature, got %T", a.GetObject()))
	}
	old, ok := a.GetOldObject().(*features.Feature)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected the old object to be a Feature, got %T", a.GetOldObject()))
	}
	if apiequality.Semantic.DeepEqual(obj.Status, old.Status) {
		return nil
	}
	r, ok := p.reporterFor(u)
	if !ok {
		name := ""
		if u != nil {
			name = u.GetName()
		}
		return admission.NewForbidden(a, fmt.Errorf("user %q is not a known feature reporter and may not change status: "+
			"only kube-apiserver writes status, and reporters (kube-controller-manager, kube-scheduler, nodes, and the users "+
			"and groups mapped to a component in the reporters of the %s admission plugin's configuration, "+
			"e.g. {user: %s, component: my-controller}) write their own entries of status.uses", name, PluginName, name))
	}
	if msgs := r.check(&obj.Status, &old.Status); len(msgs) > 0 {
		return admission.NewForbidden(a, fmt.Errorf("%s", strings.Join(msgs, "; ")))
	}
	return nil
}

// validateFeature applies the rules on the Feature itself: known gates and
// no management through the API in kube-system, and no desiredState through
// the API for CommandLine Features.
func (p *Plugin) validateFeature(a admission.Attributes) error {
	if u := a.GetUserInfo(); u != nil && u.GetName() == user.APIServerUser {
		return nil
	}
	obj, ok := a.GetObject().(*features.Feature)
	if !ok {
		return nil
	}
	system := a.GetNamespace() == metav1.NamespaceSystem
	switch a.GetOperation() {
	case admission.Create:
		if system && p.knownGate != nil && !p.knownGate(obj.Spec.Gate) {
			return admission.NewForbidden(a, fmt.Errorf("feature gate %q is not known to this kube-apiserver: "+
				"kube-system holds the Features of Kubernetes' own gates, which kube-apiserver announces; "+
				"create Features of other gates in their own namespace", obj.Spec.Gate))
		}
		if system && obj.Spec.Management != features.FeatureManagementCommandLine {
			return admission.NewForbidden(a, managementError(obj.Spec.Management))
		}
	case admission.Update:
		old, ok := a.GetOldObject().(*features.Feature)
		if !ok {
			return nil
		}
		if system && obj.Spec.Management != old.Spec.Management {
			return admission.NewForbidden(a, managementError(obj.Spec.Management))
		}
		if obj.Spec.Management == features.FeatureManagementCommandLine && obj.Spec.DesiredState != old.Spec.DesiredState {
			return admission.NewForbidden(a, fmt.Errorf("spec.desiredState of a Feature managed by CommandLine follows the "+
				"kube-apiservers' --feature-gates and cannot be set through the API; set spec.management to Dynamic to set it"))
		}
	}
	return nil
}

// managementError says why spec.management of a Feature in kube-system
// cannot be set through the API: kube-apiserver sets it, and only to a mode
// its flags opt the gate into; no flag opts a gate into another mode than
// CommandLine yet (KEP stages 2 and 3), so that is the only mode.
func managementError(requested features.FeatureManagement) error {
	return fmt.Errorf("spec.management of Features in kube-system is set by kube-apiserver from its flags, "+
		"which opt no gate into a mode other than %s yet; it cannot be set to %q through the API",
		features.FeatureManagementCommandLine, requested)
}

// isSuperuser says whether u may write all of status: kube-apiserver's
// loopback identity, which writes state and tasks, and system:masters,
// which bypasses authorization anyway.
func isSuperuser(u user.Info) bool {
	if u == nil {
		return false
	}
	return u.GetName() == user.APIServerUser || slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup)
}

// reporter is what a requesting user may write in status.uses.
type reporter struct {
	// components whose entries the reporter may change.
	components sets.Set[string]
	// restricted says that the only identity the reporter may add to or
	// remove from reporters is identity (a node's name).
	restricted bool
	identity   string
}

// reporterFor maps u to the components it reports as.
func (p *Plugin) reporterFor(u user.Info) (*reporter, bool) {
	if u == nil {
		return nil, false
	}
	r := &reporter{components: sets.New[string]()}
	switch u.GetName() {
	case user.KubeControllerManager:
		r.components.Insert(KubeControllerManagerComponent)
	case user.KubeScheduler:
		r.components.Insert(KubeSchedulerComponent)
	}
	if nodeName, isNode := p.nodeIdentifier.NodeIdentity(u); isNode {
		r.components.Insert(KubeletComponent)
		r.restricted, r.identity = true, nodeName
	}
	r.components = r.components.Union(p.userComponents[u.GetName()])
	for _, g := range u.GetGroups() {
		r.components = r.components.Union(p.groupComponents[g])
	}
	return r, r.components.Len() > 0
}

// subject names the reporter in messages.
func (r *reporter) subject() string {
	return strings.Join(sets.List(r.components), " and ")
}

type useKey struct {
	component string
	enabled   bool
}

func (k useKey) String() string {
	return fmt.Sprintf("status.uses[component=%s,enabled=%t]", k.component, k.enabled)
}

// check returns why the reporter may not change status from old to new, or
// nothing when it may. It fails closed: with the reporter's own entries of
// status.uses taken out, old and new status must be semantically equal, field
// by field of FeatureStatus, so a field added to the type later is guarded
// without being named here. Within its own entries a reporter may add and
// remove entries and identities, but not move firstReportTime of an entry
// that stays; a node may only add or remove its own name.
func (r *reporter) check(newStatus, oldStatus *features.FeatureStatus) []string {
	var fields []string
	others := func(u *features.FeatureUse) bool { return !r.components.Has(u.Component) }
	newRest, oldRest := statusWith(newStatus, others), statusWith(oldStatus, others)
	if !apiequality.Semantic.DeepEqual(newRest, oldRest) {
		fields = changedFields(newRest, oldRest)
	}

	oldUses, keys := indexUses(oldStatus.Uses, nil)
	newUses, keys := indexUses(newStatus.Uses, keys)
	var identityMsgs []string
	for _, k := range keys {
		if !r.components.Has(k.component) {
			continue
		}
		oldUse, newUse := oldUses[k], newUses[k]
		var changed []string // identities added or removed
		switch {
		case oldUse == nil && newUse == nil:
		case oldUse == nil:
			changed = newUse.Reporters
		case newUse == nil:
			changed = oldUse.Reporters
		default:
			if !apiequality.Semantic.DeepEqual(newUse.FirstReportTime, oldUse.FirstReportTime) {
				fields = append(fields, k.String()+".firstReportTime")
			}
			oldSet, newSet := sets.New(oldUse.Reporters...), sets.New(newUse.Reporters...)
			changed = sets.List(newSet.Difference(oldSet).Union(oldSet.Difference(newSet)))
		}
		if r.restricted {
			var others []string
			for _, id := range changed {
				if id != r.identity {
					others = append(others, fmt.Sprintf("%q", id))
				}
			}
			if len(others) > 0 {
				identityMsgs = append(identityMsgs, fmt.Sprintf("node %q may only add or remove its own identity %q in %s.reporters, not %s",
					r.identity, r.identity, k, strings.Join(others, ", ")))
			}
		}
	}

	var msgs []string
	if len(fields) > 0 {
		its := "its"
		if r.components.Len() > 1 {
			its = "their"
		}
		msgs = append(msgs, fmt.Sprintf("%s may only change %s own entries of status.uses, not %s", r.subject(), its, strings.Join(fields, ", ")))
	}
	return append(msgs, identityMsgs...)
}

// statusWith returns a shallow copy of s whose uses are only the entries keep
// accepts, ordered by key (uses is a map list: order carries no meaning).
func statusWith(s *features.FeatureStatus, keep func(*features.FeatureUse) bool) *features.FeatureStatus {
	out := *s
	out.Uses = nil
	for i := range s.Uses {
		if keep(&s.Uses[i]) {
			out.Uses = append(out.Uses, s.Uses[i])
		}
	}
	slices.SortStableFunc(out.Uses, func(a, b features.FeatureUse) int {
		if c := strings.Compare(a.Component, b.Component); c != 0 {
			return c
		}
		switch {
		case a.Enabled == b.Enabled:
			return 0
		case b.Enabled:
			return -1
		}
		return 1
	})
	return &out
}

// changedFields names, by their JSON paths, the fields of FeatureStatus that
// differ between a and b; for uses, the entries that differ. It walks the
// type by reflection, so it names fields added later too.
func changedFields(a, b *features.FeatureStatus) []string {
	var fields []string
	av, bv := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < av.NumField(); i++ {
		if apiequality.Semantic.DeepEqual(av.Field(i).Interface(), bv.Field(i).Interface()) {
			continue
		}
		f := av.Type().Field(i)
		if f.Name == "Uses" {
			aUses, keys := indexUses(a.Uses, nil)
			bUses, keys := indexUses(b.Uses, keys)
			for _, k := range keys {
				if !apiequality.Semantic.DeepEqual(aUses[k], bUses[k]) {
					fields = append(fields, k.String())
				}
			}
			continue
		}
		fields = append(fields, "status."+jsonName(f))
	}
	if len(fields) == 0 {
		// Semantic equality of the whole differs from that of the parts
		// only for a field type with its own equality; refuse all the same.
		fields = append(fields, "status")
	}
	return fields
}

// jsonName is the JSON name of a field of the internal FeatureStatus: the
// tag of the field of the same name in v1alpha1, the lower-camel Go name when
// v1alpha1 has no such field.
func jsonName(f reflect.StructField) string {
	if ext, ok := reflect.TypeFor[featuresv1alpha1.FeatureStatus]().FieldByName(f.Name); ok {
		if name, _, _ := strings.Cut(ext.Tag.Get("json"), ","); name != "" && name != "-" {
			return name
		}
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

// indexUses maps the entries of uses by key and appends keys not yet in
// keys, in order.
func indexUses(uses []features.FeatureUse, keys []useKey) (map[useKey]*features.FeatureUse, []useKey) {
	m := make(map[useKey]*features.FeatureUse, len(uses))
	seen := sets.New(keys...)
	for i := range uses {
		k := useKey{uses[i].Component, uses[i].Enabled}
		if _, dup := m[k]; !dup {
			m[k] = &uses[i]
		}
		if !seen.Has(k) {
			seen.Insert(k)
			keys = append(keys, k)
		}
	}
	return m, keys
}
