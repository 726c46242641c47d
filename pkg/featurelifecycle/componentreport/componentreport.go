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

// Package componentreport starts the client flow of the feature lifecycle
// (KEP-3920) in kube-controller-manager, kube-scheduler and the kubelet:
// their gates follow the Features managed Central or Dynamic, and they report
// the gates they use. It does nothing unless the component's FeatureLifecycle
// gate is enabled.
package componentreport

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	corev1 "k8s.io/api/core/v1"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	featuresoptions "k8s.io/features/options"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/features"
)

// Kubelet is the component name of the kubelet.
const Kubelet = "kubelet"

// DesiredStateCacheFileName is the name of the file, under the kubelet's
// --root-dir and under /var/lib/<component> for the other components, that
// caches the desired states the component follows.
const DesiredStateCacheFileName = "feature-desired-state.json"

// NewOptions returns the feature lifecycle options of a component other than
// the kubelet: its desired states are cached in
// /var/lib/<component>/feature-desired-state.json.
func NewOptions(component string) *featuresoptions.Options {
	return &featuresoptions.Options{DesiredStateCacheFile: filepath.Join("/var/lib", component, DesiredStateCacheFileName)}
}

// AddKubeletFlags adds the feature lifecycle flags of the kubelet, whose
// desired states are cached under its --root-dir unless the flag names
// another file.
func AddKubeletFlags(fs *pflag.FlagSet, o *featuresoptions.Options) {
	o.AddFlags(fs)
	flag := fs.Lookup(featuresoptions.DesiredStateCacheFileFlag)
	flag.Usage = strings.TrimSuffix(flag.Usage, "Empty: no cache.") + "Default: <root-dir>/" + DesiredStateCacheFileName + "."
}

// enabled says whether the component runs the client flow.
func enabled(gate featuregate.FeatureGate) bool {
	return gate.Enabled(features.FeatureLifecycle)
}

// Start starts the client flow of kube-controller-manager or kube-scheduler,
// when their FeatureLifecycle gate is enabled: the gates follow the Features
// managed Central or Dynamic before it returns, and the component reports
// the gates it uses under Identity(), renewing its report, until ctx ends.
// Failures are logged: the component runs on with its own configuration.
func Start(ctx context.Context, o *featuresoptions.Options, gate featuregate.FeatureGate, component string, client kubernetes.Interface) {
	if !enabled(gate) {
		return
	}
	if o == nil {
		o = &featuresoptions.Options{}
	}
	logger := klog.FromContext(ctx)
	c := featuresoptions.Component{Name: component, Namespace: metav1.NamespaceSystem, Identity: Identity()}
	if err := o.Start(ctx, gate, client, c); err != nil {
		logger.Error(err, "Starting the feature lifecycle client", "component", component, "identity", c.Identity)
	}
}

// KubeletFlow is the client flow of a kubelet. A nil *KubeletFlow (the
// FeatureLifecycle gate is off) does nothing.
type KubeletFlow struct {
	flow *featuresoptions.Flow
}

// StartKubelet starts the client flow of a kubelet when its FeatureLifecycle
// gate is enabled: before the kubelet has a client, the gates take the
// desired states cached under rootDir (or where o says). Call it once the
// kubelet's configuration is applied to gate and before it builds anything
// that reads gates; it returns nil when the gate is off.
func StartKubelet(ctx context.Context, o featuresoptions.Options, gate featuregate.FeatureGate, rootDir string) *KubeletFlow {
	if !enabled(gate) {
		return nil
	}
	if o.DesiredStateCacheFile == "" {
		o.DesiredStateCacheFile = filepath.Join(rootDir, DesiredStateCacheFileName)
	}
	k := &KubeletFlow{flow: o.NewFlow(gate, Kubelet, metav1.NamespaceSystem)}
	if err := k.flow.ApplyCached(ctx); err != nil {
		klog.FromContext(ctx).Error(err, "Applying the cached desired state of features")
	}
	return k
}

// Connect follows the Features and reports the gates the kubelet uses under
// its node name, once it has a client (after TLS bootstrap): its node lease
// says it is alive. A nil client (standalone mode) does nothing.
func (k *KubeletFlow) Connect(ctx context.Context, client kubernetes.Interface, nodeName string) {
	if k == nil || client == nil {
		return
	}
	lease := &featuresv1alpha1.FeatureReportLease{Namespace: corev1.NamespaceNodeLease, Name: nodeName}
	// The node's labels, which a rollout in steps may select nodes by: a
	// watch of this node alone, as the kubelet's own node informer has.
	nodes := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", nodeName).String()
	}))
	lister := nodes.Core().V1().Nodes().Lister()
	nodes.Start(ctx.Done())
	k.flow.SetNodeLabels(func() labels.Set {
		if node, err := lister.Get(nodeName); err == nil {
			return node.Labels
		}
		return nil
	})
	if err := k.flow.Start(ctx, client, nodeName, lease); err != nil {
		klog.FromContext(ctx).Error(err, "Starting the feature lifecycle client", "component", Kubelet, "node", nodeName)
	}
}

// Identity returns a reporter identity for a process of a component that has
// no identity of its own (kube-controller-manager, kube-scheduler): the host
// name as a DNS subdomain. A process restarted on the same host keeps it, so
// its new report replaces the old one at once instead of waiting for the old
// one to expire.
func Identity() string {
	host, err := os.Hostname()
	if err != nil {
		host = ""
	}
	return DNSSubdomain(host)
}

// DNSSubdomain returns s lower-cased, with every character a DNS-1123
// subdomain cannot hold replaced by '-', trimmed of leading and trailing
// '-' and '.', and cut to 253 characters; "unknown" when nothing valid is
// left.
func DNSSubdomain(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-.")
	if len(out) > 253 {
		out = strings.Trim(out[:253], "-.")
	}
	if out == "" || len(validation.IsDNS1123Subdomain(out)) > 0 {
		return "unknown"
	}
	return out
}
