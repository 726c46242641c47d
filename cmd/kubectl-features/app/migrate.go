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
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	featuresapply "k8s.io/client-go/applyconfigurations/features/v1alpha1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	crbinding "k8s.io/kubernetes/pkg/api/customresourcefeaturebinding"
)

// ErrNotMigrated is returned by migrate-bindings when a CRD's annotation
// could not be migrated; the report says why, and the annotation stays.
var ErrNotMigrated = errors.New("some annotations were not migrated")

// migrateFieldManager is the field manager of the bindings that
// migrate-bindings applies.
const migrateFieldManager = "kubectl-features-migrate"

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// newMigrateCommand returns kubectl features migrate-bindings.
func newMigrateCommand(out io.Writer, clients func() (kubernetes.Interface, dynamic.Interface, error)) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate-bindings [CRD...]",
		Short: "Turn the features.k8s.io/gated-fields annotations of CRDs into CustomResourceFeatureBindings",
		Long: `Turn the annotation features.k8s.io/gated-fields of CustomResourceDefinitions,
which bound their fields, values and kinds to Features before
CustomResourceFeatureBindings and is no longer read, into a
CustomResourceFeatureBinding named after each CRD (server-side apply,
field manager kubectl-features-migrate), then remove the annotation. Every
entry keeps its meaning: its path, value, Feature and whenOff; fields and
values get whenStored Clear, as the annotation cleared them (set Hold to
hold the Feature turning off until their owners change them instead), and
a kind is held. With no CRD named, every CRD that carries the annotation is
migrated. A CRD whose annotation does not parse, or whose binding cannot be
applied, keeps it, and the command exits 1.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			client, dyn, err := clients()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return MigrateBindings(ctx, out, client, dyn, args, dryRun)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "Print the bindings that would be applied, and change nothing.")
	return cmd
}

// legacyBinding is one entry of the annotation.
type legacyBinding struct {
	Path    string  `json:"path,omitempty"`
	Value   *string `json:"value,omitempty"`
	Feature string  `json:"feature"`
	WhenOff string  `json:"whenOff,omitempty"`
}

// MigrateBindings migrates the annotation of the CRDs named (of every CRD
// that carries it, when none is) and writes what it did.
func MigrateBindings(ctx context.Context, out io.Writer, client kubernetes.Interface, dyn dynamic.Interface, names []string, dryRun bool) error {
	var crds []unstructured.Unstructured
	if len(names) == 0 {
		list, err := dyn.Resource(crdResource).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing the custom resource definitions: %w", err)
		}
		crds = list.Items
	}
	for _, name := range names {
		crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		crds = append(crds, *crd)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if !dryRun {
		fmt.Fprintln(w, "CRD\tBINDINGS\tRESULT")
	}
	failed := false
	for i := range crds {
		crd := &crds[i]
		annotation, ok := crd.GetAnnotations()[crbinding.LegacyAnnotation]
		if !ok {
			if len(names) > 0 {
				fmt.Fprintf(w, "%s\t0\tno %s annotation: nothing to migrate\n", crd.GetName(), crbinding.LegacyAnnotation)
			}
			continue
		}
		binding, err := bindingFromAnnotation(crd.GetName(), annotation)
		if err != nil {
			failed = true
			fmt.Fprintf(w, "%s\t-\tnot migrated: %v\n", crd.GetName(), err)
			continue
		}
		if dryRun {
			y, err := yaml.Marshal(binding)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "---\n%s", y)
			continue
		}
		if err := migrate(ctx, client, dyn, crd.GetName(), annotation, binding); err != nil {
			failed = true
			fmt.Fprintf(w, "%s\t%d\tnot migrated: %v\n", crd.GetName(), len(binding.Spec.Bindings), err)
			continue
		}
		fmt.Fprintf(w, "%s\t%d\tcustomresourcefeaturebinding.features.k8s.io/%s applied; annotation removed\n", crd.GetName(), len(binding.Spec.Bindings), crd.GetName())
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed {
		return ErrNotMigrated
	}
	return nil
}

// migrate applies binding, then removes the annotation from the CRD name
// unless it changed meanwhile.
func migrate(ctx context.Context, client kubernetes.Interface, dyn dynamic.Interface, name, annotation string, binding *featuresapply.CustomResourceFeatureBindingApplyConfiguration) error {
	if _, err := client.FeaturesV1alpha1().CustomResourceFeatureBindings().Apply(ctx, binding, metav1.ApplyOptions{FieldManager: migrateFieldManager}); err != nil {
		return fmt.Errorf("applying the binding: %w", err)
	}
	path := "/metadata/annotations/" + strings.ReplaceAll(strings.ReplaceAll(crbinding.LegacyAnnotation, "~", "~0"), "/", "~1")
	patch, err := json.Marshal([]map[string]any{{"op": "test", "path": path, "value": annotation}, {"op": "remove", "path": path}})
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(crdResource).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: migrateFieldManager}); err != nil {
		return fmt.Errorf("the binding is applied; removing the annotation: %w", err)
	}
	return nil
}

// bindingFromAnnotation turns the annotation of the CRD name into its
// binding: each entry keeps its path, value, Feature and whenOff; a field
// or value is cleared, as the annotation did, and a kind is held.
func bindingFromAnnotation(name, annotation string) (*featuresapply.CustomResourceFeatureBindingApplyConfiguration, error) {
	var legacy []legacyBinding
	if err := json.Unmarshal([]byte(annotation), &legacy); err != nil {
		return nil, fmt.Errorf("the annotation is not a JSON list of {path, value, feature, whenOff}: %w", err)
	}
	if len(legacy) == 0 {
		return nil, errors.New("the annotation binds nothing: remove it")
	}
	spec := featuresapply.CustomResourceFeatureBindingSpec()
	taken := map[string]bool{}
	for i, l := range legacy {
		namespace, feature, ok := strings.Cut(l.Feature, "/")
		if !ok {
			return nil, fmt.Errorf("entry %d: feature %q is not <namespace>/<name>", i, l.Feature)
		}
		b := featuresapply.CustomResourceFieldBinding().
			WithName(bindingName(l, taken)).
			WithFeature(featuresapply.FeatureReference().WithNamespace(namespace).WithName(feature))
		switch {
		case l.Path == "":
			b.WithWhenOff(featuresv1alpha1.CustomResourceWhenOffRefuse).WithWhenStored(featuresv1alpha1.CustomResourceWhenStoredHold)
		default:
			whenOff := featuresv1alpha1.CustomResourceWhenOff(l.WhenOff)
			if whenOff == "" {
				whenOff = featuresv1alpha1.CustomResourceWhenOffDrop
			}
			b.WithPath(l.Path).WithWhenOff(whenOff).WithWhenStored(featuresv1alpha1.CustomResourceWhenStoredClear)
			if l.Value != nil {
				b.WithValue(*l.Value)
			}
		}
		spec.WithBindings(b)
	}
	return featuresapply.CustomResourceFeatureBinding(name).WithSpec(spec), nil
}

var notInLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// bindingName names an entry of the annotation: "kind", or the last field
// of its path and its value ("size-huge"), as a DNS label not yet taken.
func bindingName(l legacyBinding, taken map[string]bool) string {
	name := "kind"
	if l.Path != "" {
		name = l.Path[strings.LastIndex(l.Path, ".")+1:]
		if l.Value != nil {
			name += "-" + *l.Value
		}
	}
	name = strings.Trim(notInLabel.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(name) > 56 {
		name = strings.Trim(name[:56], "-")
	}
	if name == "" {
		name = "binding"
	}
	base := name
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	taken[name] = true
	return name
}
