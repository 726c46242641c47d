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

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"k8s.io/kubernetes/pkg/featurelifecycle/rollout"
)

// ErrRolloutStopped is returned by rollout status --watch when the rollout
// ends otherwise than Complete.
var ErrRolloutStopped = errors.New("the rollout did not complete")

// newRolloutCommand returns kubectl features rollout.
func newRolloutCommand(out io.Writer, client func() (kubernetes.Interface, error)) *cobra.Command {
	namespace := "kube-system"
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Drive the rollout in steps of a Dynamic Feature (spec.rollout)",
		Long: `Drive the canary rollout of a Dynamic Feature: a change of its desired
state reaches a cohort of nodes (or of kube-apiservers, for a gate the
lifecycle registry says canaries on apiservers) first, which grows at each step while the
cohort stays healthy; a failed step pauses the rollout and rolls the cohort
back. FEATURE is the Feature's name or its gate's (ExtendWebSocketsToKubelet).`,
	}
	cmd.PersistentFlags().StringVarP(&namespace, "namespace", "n", namespace, "The namespace of the Feature.")
	run := func(f func(ctx context.Context, c kubernetes.Interface, name string) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return f(ctx, c, featureName(args[0]))
		}
	}
	var watch bool
	var timeout time.Duration
	status := &cobra.Command{
		Use:   "status FEATURE",
		Short: "Show where the rollout stands: phase, step, cohort, reason",
		Args:  cobra.ExactArgs(1),
		RunE: run(func(ctx context.Context, c kubernetes.Interface, name string) error {
			if !watch {
				return RolloutStatus(ctx, out, c, namespace, name)
			}
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return WatchRollout(ctx, out, c, namespace, name)
		}),
	}
	status.Flags().BoolVarP(&watch, "watch", "w", false, "Watch the rollout until it ends; exit 1 unless it completes.")
	status.Flags().DurationVar(&timeout, "timeout", time.Hour, "How long --watch waits.")
	var to string
	start := &cobra.Command{
		Use:   "start FEATURE --to Enabled|Disabled",
		Short: "Set the desired state and roll it out in steps (the default steps unless spec.rollout sets others)",
		Args:  cobra.ExactArgs(1),
		RunE: run(func(ctx context.Context, c kubernetes.Interface, name string) error {
			if to != string(featuresv1alpha1.FeatureDesiredStateEnabled) && to != string(featuresv1alpha1.FeatureDesiredStateDisabled) {
				return fmt.Errorf("--to must be Enabled or Disabled, not %q", to)
			}
			return patchRollout(ctx, out, c, namespace, name, map[string]any{"desiredState": to,
				"rollout": map[string]any{"paused": nil, "abort": nil}}, "started the rollout to "+to, false)
		}),
	}
	start.Flags().StringVar(&to, "to", "", "The new desired state: Enabled or Disabled.")
	verb := func(use, short string, change map[string]any, done string) *cobra.Command {
		return &cobra.Command{Use: use + " FEATURE", Short: short, Args: cobra.ExactArgs(1),
			RunE: run(func(ctx context.Context, c kubernetes.Interface, name string) error {
				return patchRollout(ctx, out, c, namespace, name, map[string]any{"rollout": change}, done, true)
			})}
	}
	cmd.AddCommand(status, start,
		verb("pause", "Stop widening the cohort; it keeps the new value", map[string]any{"paused": true}, "paused"),
		verb("resume", "Widen the cohort again; the current step soaks again", map[string]any{"paused": nil}, "resumed"),
		verb("abort", "Take the new value back from the cohort and end the rollout", map[string]any{"abort": true}, "aborted"))
	return cmd
}

// featureName accepts a Feature's name or its gate's.
func featureName(arg string) string {
	if strings.ToLower(arg) != arg {
		return featuresv1alpha1.FeatureName(arg)
	}
	return arg
}

// patchRollout merges spec into the Feature's spec; existing says the
// Feature must already roll out in steps.
func patchRollout(ctx context.Context, out io.Writer, c kubernetes.Interface, namespace, name string, spec map[string]any, done string, existing bool) error {
	features := c.FeaturesV1alpha1().Features(namespace)
	if existing {
		f, err := features.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if f.Spec.Rollout == nil {
			return fmt.Errorf("feature %s/%s does not roll out in steps (no spec.rollout): start one with kubectl features rollout start %s --to Enabled|Disabled", namespace, name, name)
		}
	}
	patch, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return err
	}
	if _, err := features.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-features"}); err != nil {
		return err
	}
	fmt.Fprintf(out, "feature.features.k8s.io/%s %s\n", name, done)
	return nil
}

// RolloutStatus writes where the rollout of the Feature stands.
func RolloutStatus(ctx context.Context, out io.Writer, c kubernetes.Interface, namespace, name string) error {
	f, err := c.FeaturesV1alpha1().Features(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, describeRollout(f))
	return nil
}

// WatchRollout writes each move of the Feature's rollout until it ends, and
// returns ErrRolloutStopped unless it completed.
func WatchRollout(ctx context.Context, out io.Writer, c kubernetes.Interface, namespace, name string) error {
	features := c.FeaturesV1alpha1().Features(namespace)
	last := ""
	for {
		f, err := features.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		w, err := features.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(),
			ResourceVersion: f.ResourceVersion})
		if err != nil {
			return err
		}
		for {
			if line := describeRollout(f); line != last {
				fmt.Fprintln(out, line)
				last = line
			}
			if r := f.Status.Rollout; f.Spec.Rollout == nil || (r != nil && r.To == f.Spec.DesiredState && (r.Phase.Final() || r.Phase == featuresv1alpha1.FeatureRolloutFailed)) {
				w.Stop()
				if r == nil || r.Phase != featuresv1alpha1.FeatureRolloutComplete {
					return ErrRolloutStopped
				}
				return nil
			}
			ev, ok := <-w.ResultChan()
			if !ok {
				break // the watch ended: read and watch again
			}
			if next, isFeature := ev.Object.(*featuresv1alpha1.Feature); isFeature {
				f = next
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// describeRollout says where a Feature's rollout stands, on one line.
func describeRollout(f *featuresv1alpha1.Feature) string {
	if f.Spec.Rollout == nil {
		return fmt.Sprintf("%s: no rollout in steps (spec.rollout is not set): components follow spec.desiredState %s", f.Name, f.Spec.DesiredState)
	}
	r := f.Status.Rollout
	if r == nil || r.To != f.Spec.DesiredState {
		return fmt.Sprintf("%s: waiting for kube-apiserver to start the rollout to %s", f.Name, f.Spec.DesiredState)
	}
	steps := len(f.Spec.Rollout.Steps)
	if steps == 0 {
		steps = len(rollout.DefaultSteps())
	}
	noun := "nodes"
	if r.Scope == featuresv1alpha1.FeatureRolloutScopeAPIServers {
		noun = "apiservers"
	}
	line := fmt.Sprintf("%s: %s %s -> %s, step %d of %d, cohort %d of %d %s", f.Name, r.Phase, r.From, r.To, r.Step, steps, r.Members, r.Candidates, noun)
	if c := meta.FindStatusCondition(f.Status.Conditions, featuresv1alpha1.FeatureConditionProgressing); c != nil && c.Message != "" {
		line += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
	}
	return line
}
