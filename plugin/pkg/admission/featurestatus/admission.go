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
// decides who may write a component's FeatureReport and the status of a
// Feature (features.k8s.io).
//
// Components report the feature gates they checked in FeatureReports, one
// per process, named <component>.<identity>; kube-apiserver aggregates the
// live reports into the uses of each Feature. RBAC grants the reporters
// (kube-controller-manager, kube-scheduler, the kubelets, and whatever third
// parties an administrator binds) create, update, patch and delete of
// featurereports; RBAC cannot say "only your own report", so this plugin
// narrows the grant, as NodeRestriction does for nodes:
//
//   - The user system:apiserver and members of the group system:masters may
//     write any report and any part of a Feature. kube-apiserver's loopback
//     client (system:apiserver, itself in system:masters) writes its own
//     report and is the one writer of Features' status; members of
//     system:masters are superusers that bypass authorization anyway, so
//     restricting them here would only break the break-glass path.
//   - A reporter may create, update and delete only reports whose
//     spec.component is its own, and never kube-apiserver's. The built-in
//     reporters are system:kube-controller-manager
//     (kube-controller-manager), system:kube-scheduler (kube-scheduler), and
//     system:node:<name> in the group system:nodes (kubelet), which may only
//     write the report of identity <name>, naming no holder lease but its
//     own node lease (kube-node-lease/<name>). Any other reporter, a third
//     party's operator for one, is decided by RBAC in the report's
//     namespace: it may write the reports of component <c> there when it
//     is authorized for the verb "report" on featurereports named <c> in
//     that namespace (ReportVerb; a Role with resourceNames: [<c>]), as
//     certificate signers are authorized by "sign" on signers. An
//     administrator may also map users or groups to component names in
//     the plugin's configuration (the form before RBAC decided it).
//   - No one else may write a FeatureTarget, which a Feature's leader
//     derives from the Feature for the components that follow it.
//   - No one else may write the status of a Feature: its uses are
//     kube-apiserver's aggregate of the reports. The one exception is a
//     task a third party declared for one of its components
//     (status.tasks[].owner): whoever may write that component's reports in
//     the Feature's namespace (the verb "report" above) may set the task's
//     done, message and progress, and nothing else.
//
// Five rules apply to the Feature itself, for every user but kube-apiserver's
// own (system:apiserver):
//
//   - A Feature in kube-system, where Kubernetes' own gates live, can only be
//     created for a gate this kube-apiserver knows; third parties use their
//     own namespace. (A newer kube-apiserver announces its new gates through
//     its own loopback client.)
//   - spec.management of a Feature in kube-system is kube-apiserver's to
//     set, from its flags (--feature-lifecycle-central-gates,
//     --feature-lifecycle-dynamic-gates, once every live kube-apiserver
//     agrees): it cannot be set through the API.
//   - spec.desiredState of a Feature managed by CommandLine follows the
//     kube-apiservers' --feature-gates and cannot be set through the API;
//     only that of a Dynamic one can.
//     In a third party's namespace, an administrator who wants to set it
//     makes the Feature Central or Dynamic (spec.management) first or in
//     the same request.
//   - Outside kube-system, a declaration (spec.declaration) of one of
//     Kubernetes' own gates is refused: a third party declares its own.
//   - spec.rollout is allowed only on a Dynamic Feature of kube-system
//     whose gate the lifecycle registry declares safe to canary, on nodes
//     or on apiservers; a step selects by label only on nodes.
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
// a DNS label other than kube-apiserver (whose report only kube-apiserver
// writes). Unknown fields are errors. A user gets the union of the
// components of every mapping that matches it and of the built-in ones; a
// node stays restricted to its own identity for all of them.
package featurestatus

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/auth/nodeidentifier"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"

	"k8s.io/kubernetes/pkg/apis/features"
	"k8s.io/kubernetes/pkg/apis/features/validation"
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

// ReportVerb is the verb a user must be authorized for, on featurereports
// named after a component in a namespace, to write that component's
// reports in that namespace (beyond the built-in reporters).
const ReportVerb = "report"

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
	// component whose FeatureReports they may write.
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
			errs = append(errs, p+".component: required, the component name the user or group reports as")
		case m.Component == validation.APIServerComponent:
			errs = append(errs, fmt.Sprintf("%s.component: %q is reserved: only kube-apiserver itself writes its reports", p, m.Component))
		default:
			for _, msg := range utilvalidation.IsDNS1123Label(m.Component) {
				errs = append(errs, fmt.Sprintf("%s.component: invalid value %q: %s", p, m.Component, msg))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid %s configuration: %s", PluginName, strings.Join(errs, "; "))
	}
	return nil
}

// Option configures the plugin as it is registered.
type Option func(*Plugin)

// WithCanaries says which gates can roll out in steps (spec.rollout), and
// whether their steps may select components by label (bySelector: only
// nodes have labels): canCanary returns nil for those, and an error that
// says why for the others. Without it, no gate can.
func WithCanaries(canCanary func(gate string, bySelector bool) error) Option {
	return func(p *Plugin) { p.canCanary = canCanary }
}

// Register registers the FeatureStatus plugin. Its factory reads the
// optional Configuration.
func Register(plugins *admission.Plugins, opts ...Option) {
	plugins.Register(PluginName, func(config io.Reader) (admission.Interface, error) {
		cfg, err := LoadConfiguration(config)
		if err != nil {
			return nil, err
		}
		p, err := NewPlugin(cfg)
		if err != nil {
			return nil, err
		}
		for _, o := range opts {
			o(p)
		}
		return p, nil
	})
}

// Plugin is the FeatureStatus admission plugin.
type Plugin struct {
	*admission.Handler
	// inspectedFeatureGates and enabled: the plugin acts only when the
	// FeatureLifecycle feature gate is on.
	inspectedFeatureGates bool
	enabled               bool
	// knownGate reports whether this kube-apiserver knows a gate; nil allows
	// every gate.
	knownGate func(gate string) bool
	// canCanary says whether a gate can roll out in steps on nodes (nil:
	// none can).
	canCanary       func(gate string, bySelector bool) error
	nodeIdentifier  nodeidentifier.NodeIdentifier
	authorizer      authorizer.Authorizer
	userComponents  map[string]sets.Set[string]
	groupComponents map[string]sets.Set[string]
}

var (
	_ admission.ValidationInterface               = &Plugin{}
	_ admission.InitializationValidator           = &Plugin{}
	_ genericadmissioninitializer.WantsFeatures   = &Plugin{}
	_ genericadmissioninitializer.WantsAuthorizer = &Plugin{}
)

// SetAuthorizer sets the authorizer that decides, by ReportVerb, which
// users report as which components in a namespace.
func (p *Plugin) SetAuthorizer(a authorizer.Authorizer) { p.authorizer = a }

// InspectFeatureGates enables the plugin when the FeatureLifecycle feature
// gate is on, and learns the gates this kube-apiserver knows.
func (p *Plugin) InspectFeatureGates(featureGates featuregate.FeatureGate) {
	p.enabled = featureGates.Enabled(kubefeatures.FeatureLifecycle)
	known := featureGates.DeepCopy().GetAll()
	p.knownGate = func(gate string) bool {
		_, ok := known[featuregate.Feature(gate)]
		return ok
	}
	p.inspectedFeatureGates = true
}

// ValidateInitialization checks that the plugin was told the feature gates.
func (p *Plugin) ValidateInitialization() error {
	if !p.inspectedFeatureGates {
		return fmt.Errorf("%s did not see feature gates", PluginName)
	}
	return nil
}

// NewPlugin returns a FeatureStatus plugin for cfg (nil means no extra
// mappings). It validates cfg.
func NewPlugin(cfg *Configuration) (*Plugin, error) {
	p := &Plugin{
		Handler:         admission.NewHandler(admission.Create, admission.Update, admission.Delete),
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

var (
	featuresResource = features.Resource("features")
	reportsResource  = features.Resource("featurereports")
	targetsResource  = features.Resource("featuretargets")
)

// Validate admits a write of a FeatureReport or of a Feature when the
// requesting user may make it; see the package documentation.
func (p *Plugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if !p.enabled {
		return nil
	}
	switch a.GetResource().GroupResource() {
	case reportsResource:
		if a.GetSubresource() != "" {
			return nil
		}
		return p.validateReport(ctx, a)
	case targetsResource:
		return validateTarget(a)
	case featuresResource:
	default:
		return nil
	}
	if a.GetSubresource() == "" {
		return p.validateFeature(a)
	}
	if a.GetOperation() != admission.Update || a.GetSubresource() != "status" {
		return nil
	}
	if isSuperuser(a.GetUserInfo()) {
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
	owners, err := ownedTaskChanges(&obj.Status, &old.Status)
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	for _, o := range owners {
		allowed, why, err := p.authorizedToReport(ctx, a.GetUserInfo(), a.GetNamespace(), o.owner)
		if err != nil {
			return admission.NewForbidden(a, fmt.Errorf("%s: could not decide whether %q may complete task %q of component %q: %w",
				o.path, a.GetUserInfo().GetName(), o.task, o.owner, err))
		}
		if !allowed {
			return admission.NewForbidden(a, fmt.Errorf("%s: user %q may not complete task %q: it is owned by component %q, "+
				"whose reporters are authorized for the verb %q on featurereports.features.k8s.io named %q in namespace %q%s",
				o.path, a.GetUserInfo().GetName(), o.task, o.owner, ReportVerb, o.owner, a.GetNamespace(), reason(why)))
		}
	}
	return nil
}

// validateTarget admits a write of a FeatureTarget by kube-apiserver only:
// a Feature's leader derives it from the Feature, and every follower takes
// what it says.
func validateTarget(a admission.Attributes) error {
	if isSuperuser(a.GetUserInfo()) {
		return nil
	}
	return admission.NewForbidden(a, fmt.Errorf("user %q may not write FeatureTargets: the leader of each Feature derives its "+
		"target from the Feature (spec.desiredState, spec.rollout); set those instead", a.GetUserInfo().GetName()))
}

// ownedTask is a task of status.tasks whose owner's fields an update changes.
type ownedTask struct {
	path, task, owner string
}

// ownedTaskChanges returns the tasks with an owner whose done, message or
// progress an update of status changes, or an error naming the first field
// it changes that only kube-apiserver writes: everything else of status,
// and the tasks kube-apiserver runs.
func ownedTaskChanges(status, old *features.FeatureStatus) ([]ownedTask, error) {
	onlyAPIServer := func(path string) error {
		return fmt.Errorf("%s: only kube-apiserver writes the status of a Feature, but for the done, message and progress "+
			"of a task a component owns (status.tasks[].owner); components report the gates they checked in their own "+
			"FeatureReport (featurereports.features.k8s.io, named <component>.<identity>), which kube-apiserver aggregates into status.uses", path)
	}
	rest, oldRest := *status, *old
	rest.Tasks, oldRest.Tasks = nil, nil
	if !apiequality.Semantic.DeepEqual(rest, oldRest) {
		return nil, onlyAPIServer("status")
	}
	if len(status.Tasks) != len(old.Tasks) {
		return nil, onlyAPIServer("status.tasks")
	}
	var owned []ownedTask
	for i := range status.Tasks {
		t, o := status.Tasks[i], old.Tasks[i]
		path := fmt.Sprintf("status.tasks[%d]", i)
		if apiequality.Semantic.DeepEqual(t, o) {
			continue
		}
		if o.Owner == "" {
			return nil, fmt.Errorf("%s: task %q is run by kube-apiserver, not by a component: only kube-apiserver writes it", path, o.Name)
		}
		t.Done, t.Message, t.Progress = o.Done, o.Message, o.Progress
		if !apiequality.Semantic.DeepEqual(t, o) {
			return nil, fmt.Errorf("%s: the owner of task %q may set only its done, message and progress", path, o.Name)
		}
		owned = append(owned, ownedTask{path: path, task: o.Name, owner: o.Owner})
	}
	return owned, nil
}

// validateReport admits a create, update or delete of a FeatureReport by
// kube-apiserver, a superuser, or a reporter of the report's component: a
// built-in or configured one, or one RBAC authorizes (ReportVerb).
func (p *Plugin) validateReport(ctx context.Context, a admission.Attributes) error {
	u := a.GetUserInfo()
	if isSuperuser(u) {
		return nil
	}
	var report *features.FeatureReport
	switch a.GetOperation() {
	case admission.Create, admission.Update:
		report, _ = a.GetObject().(*features.FeatureReport)
	case admission.Delete:
		report, _ = a.GetOldObject().(*features.FeatureReport)
	default:
		return nil
	}
	name := ""
	if u != nil {
		name = u.GetName()
	}
	r, known := p.reporterFor(u)
	if report == nil {
		if !known {
			return admission.NewForbidden(a, fmt.Errorf("user %q is not a known feature reporter", name))
		}
		// A delete of a report that does not exist: nothing to guard.
		return nil
	}
	component := report.Spec.Component
	if component == validation.APIServerComponent {
		return admission.NewForbidden(a, fmt.Errorf("only kube-apiserver writes the FeatureReports of component %q", component))
	}
	if known && r.components.Has(component) {
		return r.validateIdentity(a, report)
	}
	allowed, why, err := p.authorizedToReport(ctx, u, a.GetNamespace(), component)
	switch {
	case allowed:
		return nil
	case err != nil:
		return admission.NewForbidden(a, fmt.Errorf("could not decide whether %q may report as component %q: %w", name, component, err))
	case known:
		return admission.NewForbidden(a, fmt.Errorf("%s may only write %s own FeatureReport, not one of component %q%s",
			r.subject(), r.its(), component, reason(why)))
	default:
		return admission.NewForbidden(a, fmt.Errorf("user %q is not a known feature reporter and may not report as component %q "+
			"in namespace %q: grant it the verb %q on featurereports.features.k8s.io named %q in that namespace "+
			"(a Role with resourceNames: [%s]), besides get, create and patch%s",
			name, component, a.GetNamespace(), ReportVerb, component, component, reason(why)))
	}
}

// reason appends an authorizer's reason to a message.
func reason(why string) string {
	if why == "" {
		return ""
	}
	return " (" + why + ")"
}

// authorizedToReport asks the authorizer whether u may write the reports
// of component in namespace.
func (p *Plugin) authorizedToReport(ctx context.Context, u user.Info, namespace, component string) (bool, string, error) {
	if p.authorizer == nil || u == nil {
		return false, "", nil
	}
	decision, why, err := p.authorizer.Authorize(ctx, authorizer.AttributesRecord{
		User:            u,
		Verb:            ReportVerb,
		Namespace:       namespace,
		APIGroup:        features.GroupName,
		APIVersion:      "*",
		Resource:        reportsResource.Resource,
		Name:            component,
		ResourceRequest: true,
	})
	return decision == authorizer.DecisionAllow, why, err
}

// validateIdentity applies a node's restrictions to a report of its
// component.
func (r *reporter) validateIdentity(a admission.Attributes, report *features.FeatureReport) error {
	if !r.restricted {
		return nil
	}
	if report.Spec.Identity != r.identity {
		return admission.NewForbidden(a, fmt.Errorf("node %q may only write the FeatureReport of its own identity %q, not of %q",
			r.identity, r.identity, report.Spec.Identity))
	}
	if l := report.Spec.HolderLease; l != nil && (l.Namespace != corev1.NamespaceNodeLease || l.Name != r.identity) {
		return admission.NewForbidden(a, fmt.Errorf("node %q may only name its own node lease %s/%s as spec.holderLease, not %s/%s",
			r.identity, corev1.NamespaceNodeLease, r.identity, l.Namespace, l.Name))
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
		if err := p.validateDeclaration(obj, a.GetNamespace()); err != nil {
			return admission.NewForbidden(a, err)
		}
		if err := p.validateRollout(obj, a.GetNamespace()); err != nil {
			return admission.NewForbidden(a, err)
		}
	case admission.Update:
		old, ok := a.GetOldObject().(*features.Feature)
		if !ok {
			return nil
		}
		if system && obj.Spec.Management != old.Spec.Management {
			return admission.NewForbidden(a, managementError(obj.Spec.Management))
		}
		if err := p.validateDeclaration(obj, a.GetNamespace()); err != nil {
			return admission.NewForbidden(a, err)
		}
		if err := p.validateRollout(obj, a.GetNamespace()); err != nil {
			return admission.NewForbidden(a, err)
		}
		settable := obj.Spec.Management == features.FeatureManagementDynamic ||
			(!system && obj.Spec.Management == features.FeatureManagementCentral)
		if !settable && obj.Spec.DesiredState != old.Spec.DesiredState {
			how := "set spec.management to Central or Dynamic to set it"
			if system {
				how = "only a gate the kube-apiservers opt into Dynamic (--feature-lifecycle-dynamic-gates) takes its desired state from the API"
			}
			return admission.NewForbidden(a, fmt.Errorf("spec.desiredState of a Feature managed by %s follows the "+
				"kube-apiservers' --feature-gates and cannot be set through the API; %s", obj.Spec.Management, how))
		}
	}
	return nil
}

// validateDeclaration refuses a third party's declaration of a gate that is
// one of Kubernetes' own (kube-system's Features): the declaration would
// give a tenant's components a second, conflicting answer for that gate.
func (p *Plugin) validateDeclaration(f *features.Feature, namespace string) error {
	if f.Spec.Declaration == nil || namespace == metav1.NamespaceSystem || p.knownGate == nil || !p.knownGate(f.Spec.Gate) {
		return nil
	}
	return fmt.Errorf("spec.declaration: gate %q is one of Kubernetes' own gates, declared by kube-apiserver in %s/%s; "+
		"a third party declares only its own gates: give yours a name of its own",
		f.Spec.Gate, metav1.NamespaceSystem, featuresv1alpha1.FeatureName(f.Spec.Gate))
}

// validateRollout refuses spec.rollout where it cannot act: a rollout gives
// the new desired state to the components of a cohort while they run, so
// the Feature must be Dynamic and its gate one the lifecycle registry
// declares safe to canary, with label selectors only where it canaries on
// nodes (WithCanaries). Third parties' Features
// cannot roll out in steps yet.
func (p *Plugin) validateRollout(f *features.Feature, namespace string) error {
	if f.Spec.Rollout == nil {
		return nil
	}
	if namespace != metav1.NamespaceSystem {
		return fmt.Errorf("spec.rollout: the Features of third parties cannot roll out in steps yet; only Kubernetes' own gates in %s can", metav1.NamespaceSystem)
	}
	if f.Spec.Management != features.FeatureManagementDynamic {
		return fmt.Errorf("spec.rollout: only a Dynamic Feature rolls out in steps, and %s is managed by %s: "+
			"opt the gate into Dynamic with the kube-apiservers' --feature-lifecycle-dynamic-gates first", f.Spec.Gate, f.Spec.Management)
	}
	if p.canCanary == nil {
		return fmt.Errorf("spec.rollout: no gate can roll out in steps on this kube-apiserver")
	}
	bySelector := false
	for _, step := range f.Spec.Rollout.Steps {
		bySelector = bySelector || step.Selector != nil
	}
	if err := p.canCanary(f.Spec.Gate, bySelector); err != nil {
		return fmt.Errorf("spec.rollout: %w", err)
	}
	return nil
}

// managementError says why spec.management of a Feature in kube-system
// cannot be set through the API: kube-apiserver sets it, to the mode its
// flags opt the gate into once every live kube-apiserver agrees.
func managementError(requested features.FeatureManagement) error {
	return fmt.Errorf("spec.management of Features in kube-system is set by kube-apiserver, to the mode its flags "+
		"(--feature-lifecycle-central-gates, --feature-lifecycle-dynamic-gates) opt the gate into once every kube-apiserver agrees; "+
		"it cannot be set to %q through the API", requested)
}

// Admit records, on an update that changes a Feature's spec.desiredState,
// who made it (DesiredStateSetByAnnotation), unless kube-apiserver itself
// did: validation then decides whether the change is allowed.
func (p *Plugin) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if !p.enabled {
		return nil
	}
	if a.GetResource().GroupResource() != featuresResource || a.GetSubresource() != "" || a.GetOperation() != admission.Update {
		return nil
	}
	u := a.GetUserInfo()
	if u == nil || u.GetName() == user.APIServerUser {
		return nil
	}
	obj, ok := a.GetObject().(*features.Feature)
	if !ok {
		return nil
	}
	old, ok := a.GetOldObject().(*features.Feature)
	if !ok || obj.Spec.DesiredState == old.Spec.DesiredState {
		return nil
	}
	if obj.Annotations == nil {
		obj.Annotations = map[string]string{}
	}
	// The spec changes, so the strategy moves the generation on by one.
	obj.Annotations[featuresv1alpha1.DesiredStateSetByAnnotation] = fmt.Sprintf("%s (generation %d)", u.GetName(), old.Generation+1)
	return nil
}

var _ admission.MutationInterface = &Plugin{}

// isSuperuser says whether u may write all of status: kube-apiserver's
// loopback identity, which writes state and tasks, and system:masters,
// which bypasses authorization anyway.
func isSuperuser(u user.Info) bool {
	if u == nil {
		return false
	}
	return u.GetName() == user.APIServerUser || slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup)
}

// reporter is what reports a requesting user may write.
type reporter struct {
	// components whose reports the reporter may write.
	components sets.Set[string]
	// restricted says that the only identity the reporter may write the
	// report of is identity (a node's name).
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

// its is the possessive of subject.
func (r *reporter) its() string {
	if r.components.Len() > 1 {
		return "their"
	}
	return "its"
}
