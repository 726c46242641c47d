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

// Package app is the kubectl-features command.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	featuresclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"

	"k8s.io/kubernetes/pkg/featurelifecycle/versioncheck"
	"k8s.io/kubernetes/pkg/features/inventory"
)

// ErrBlocked is returned by check when something blocks the move; the
// report says what.
var ErrBlocked = errors.New("the move is blocked")

// NewCommand returns the kubectl-features command, writing to out.
func NewCommand(out io.Writer) *cobra.Command {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	overrides := &clientcmd.ConfigOverrides{}
	root := &cobra.Command{
		Use:           "kubectl-features",
		Short:         "Inspect the feature lifecycle (features.k8s.io) of a cluster, drive rollouts in steps and migrate CRD bindings",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&loading.ExplicitPath, "kubeconfig", "", "Path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config).")
	root.PersistentFlags().StringVar(&overrides.CurrentContext, "context", "", "The kubeconfig context to use.")
	var to, namespace string
	gates := map[string]bool{}
	check := &cobra.Command{
		Use:   "check --to-version MAJOR.MINOR",
		Short: "Tell whether the kube-apiservers can move to another emulation version",
		Long: `Tell whether the cluster's kube-apiservers can move to another emulation
version (--emulated-version): raising it finishes an upgrade, lowering it
rolls one back. It reads the Features of the cluster and what changes
between the versions kube-apiserver can emulate, and prints every blocker
(a Feature in transition, apiservers that disagree, a feature on now that is
off by default or missing at the target) with what to do, then what the
move changes (features that turn on, stages, storage versions). It exits 1
when something blocks the move.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return errors.New("--to-version is required (e.g. --to-version 1.36)")
			}
			config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, overrides).ClientConfig()
			if err != nil {
				return err
			}
			client, err := featuresclient.NewForConfig(config)
			if err != nil {
				return err
			}
			return Check(cmd.Context(), out, client, namespace, to, gates)
		},
	}
	check.Flags().StringVar(&to, "to-version", "", "The emulation version to move to, major.minor (e.g. 1.36).")
	check.Flags().Var(cliflag.NewMapStringBool(&gates), "feature-gates", "The --feature-gates the kube-apiservers will run with at the target version (e.g. ClusterTrustBundle=true); a gate set on the command line now is assumed to stay set.")
	check.Flags().StringVarP(&namespace, "namespace", "n", "kube-system", "The namespace of the cluster's Features.")
	root.AddCommand(check, newRolloutCommand(out, func() (featuresclient.Interface, error) {
		config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, overrides).ClientConfig()
		if err != nil {
			return nil, err
		}
		return featuresclient.NewForConfig(config)
	}), newMigrateCommand(out, func() (featuresclient.Interface, dynamic.Interface, error) {
		config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, overrides).ClientConfig()
		if err != nil {
			return nil, nil, err
		}
		client, err := featuresclient.NewForConfig(config)
		if err != nil {
			return nil, nil, err
		}
		dyn, err := dynamic.NewForConfig(config)
		return client, dyn, err
	}))
	return root
}

// Check writes the report of moving the cluster to the emulation version
// to, with the target's --feature-gates gates, and returns ErrBlocked if
// something blocks it.
func Check(ctx context.Context, out io.Writer, client featuresclient.Interface, namespace, to string, gates map[string]bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	list, err := client.FeaturesV1alpha1().Features(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the Features of %s: %w", namespace, err)
	}
	vc, err := inventory.LoadVersionChanges()
	if err != nil {
		return err
	}
	r, err := versioncheck.Check(list.Items, vc, to, gates)
	if err != nil {
		return err
	}
	verdict := "safe"
	if !r.Safe() {
		verdict = fmt.Sprintf("NOT SAFE: %d blocker(s)", len(r.Blockers))
	}
	fmt.Fprintf(out, "Emulation version %s -> %s: %s.\n", r.From, r.To, verdict)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if len(r.Blockers)+len(r.Changes) > 0 {
		fmt.Fprintln(w, "\nKIND\tSUBJECT\tREASON\tMESSAGE")
	}
	for _, list := range []struct {
		kind  string
		items []versioncheck.Finding
	}{{"BLOCKER", r.Blockers}, {"CHANGE", r.Changes}} {
		for _, f := range list.items {
			subject := f.Gate
			if subject == "" {
				subject = f.Resource
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", list.kind, subject, f.Reason, f.Message)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if !r.Safe() {
		return ErrBlocked
	}
	return nil
}
