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

package main

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/server/resourceconfig"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/kubeapiserver"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog/standalone"
	"k8s.io/kubernetes/pkg/features/inventory"
	"k8s.io/kubernetes/pkg/features/lifecycle"
)

// emulatable is how many minor versions below its own a binary can
// emulate (KEP-4330: n-3).
const emulatable = 3

// stageAt is a gate's default and stage at one version.
type stageAt struct {
	Default    bool
	PreRelease string
}

// specAt returns the gate's default and stage at v, as the Feature API
// names stages (inventory.SpecAt and PreRelease, what the leaders
// describe Features with), or false when the gate does not exist at v.
func specAt(specs featuregate.VersionedSpecs, v *version.Version) (stageAt, bool) {
	spec, ok := inventory.SpecAt(specs, fmt.Sprintf("%d.%d", v.Major(), v.Minor()))
	if !ok {
		return stageAt{}, false
	}
	return stageAt{Default: spec.Default, PreRelease: string(inventory.PreRelease(spec))}, true
}

// generate computes the file.
func generate() ([]byte, error) {
	binary := utilfeature.DefaultMutableFeatureGate.EmulationVersion()
	var versions []*version.Version
	for i := emulatable; i >= 0; i-- {
		versions = append(versions, version.MajorMinor(binary.Major(), binary.Minor()-uint(i)))
	}
	// The lifecycles derived from the inventory (not Registry: a gate with
	// only the built-in storage version migrations has no registration of
	// its transitions).
	catalog, err := standalone.Catalog()
	if err != nil {
		return nil, err
	}
	registry, err := lifecycle.Derived(catalog)
	if err != nil {
		return nil, err
	}

	file := inventory.VersionChanges{
		BinaryVersion: fmt.Sprintf("%d.%d", binary.Major(), binary.Minor()),
		Rule:          "min-compatibility version = kube-apiserver's default: emulation version - 1, at least binary version - 3",
	}
	for _, v := range versions {
		file.Versions = append(file.Versions, fmt.Sprintf("%d.%d", v.Major(), v.Minor()))
	}

	// Gates.
	all := utilfeature.DefaultMutableFeatureGate.GetAllVersioned()
	gates := slices.Sorted(maps.Keys(all))
	storage, err := storageVersions(catalog, versions)
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(versions); i++ {
		from, to := versions[i-1], versions[i]
		step := inventory.VersionStep{From: file.Versions[i-1], To: file.Versions[i]}
		for _, g := range gates {
			if g == "AllAlpha" || g == "AllBeta" {
				continue
			}
			specs := slices.Clone(all[g])
			slices.SortStableFunc(specs, func(a, b featuregate.FeatureSpec) int {
				switch {
				case a.Version.LessThan(b.Version):
					return -1
				case b.Version.LessThan(a.Version):
					return 1
				}
				return 0
			})
			a, okA := specAt(specs, from)
			b, okB := specAt(specs, to)
			if okA == okB && a == b {
				continue
			}
			change := inventory.GateChange{Gate: string(g)}
			if okA {
				change.From = &inventory.GateStage{Default: a.Default, PreRelease: a.PreRelease}
			}
			if okB {
				change.To = &inventory.GateStage{Default: b.Default, PreRelease: b.PreRelease}
			}
			change.Lifecycle = lifecycleKind(registry, g)
			step.Gates = append(step.Gates, change)
		}
		for _, gr := range slices.SortedFunc(maps.Keys(storage[i]), compareGR) {
			if old, ok := storage[i-1][gr]; ok && old != storage[i][gr] {
				// The Feature whose version-keyed tasks rewrite it; none
				// fails make verify's freshness check (pkg/features tests
				// name the missing entry).
				gate, _ := lifecycle.StorageVersionGate(gr.String())
				step.StorageVersions = append(step.StorageVersions, inventory.StorageVersionChange{
					Resource: gr.String(), From: old.Version, To: storage[i][gr].Version, Gate: string(gate),
				})
			}
		}
		file.Steps = append(file.Steps, step)
	}
	data, err := yaml.Marshal(file)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	gateChanges, storageChanges := 0, 0
	for _, s := range file.Steps {
		gateChanges += len(s.Gates)
		storageChanges += len(s.StorageVersions)
	}
	fmt.Fprintf(&b, `# Code generated by cmd/version-changes-gen. DO NOT EDIT.
# Regenerate with hack/update-lifecycle-data.sh; hack/update-lifecycle-data.sh --check
# fails when this file is stale.
#
# What changes between each pair of consecutive versions kube-apiserver %s
# can emulate (--emulated-version), from upstream's own code:
# - gates: every kube-apiserver gate whose default or stage differs (from is
#   absent for a gate that does not exist yet at the lower version), from the
#   versioned gate specs kube-apiserver registers, with the kind of lifecycle
#   registration it has here (explicit, derived from the gate inventory, or
#   none: it only waits for uses);
# - storageVersions: every resource whose storage version differs, from
#   upstream's storage factory configuration built for each emulation version
#   (kubeapiserver.NewStorageFactoryConfigEffectiveVersion, with the
#   min-compatibility version kube-apiserver defaults to: one below the
#   emulation version, but not below the binary version - 3), for every
#   resource served with a registry store.
#
# Gate changes: %d; storage version changes: %d.
`, file.BinaryVersion, gateChanges, storageChanges)
	b.Write(data)
	return b.Bytes(), nil
}

// lifecycleKind says how g is registered in the lifecycle registry.
func lifecycleKind(registry map[featuregate.Feature]lifecycle.Lifecycle, g featuregate.Feature) string {
	if _, ok := lifecycle.Lifecycles[g]; ok {
		return "explicit"
	}
	if _, ok := registry[g]; ok {
		return "derived"
	}
	return "none"
}

// storageVersions returns, for each version, the storage version of every
// resource served with a registry store, as kube-apiserver emulating it
// stores it.
func storageVersions(catalog *storecatalog.Catalog, versions []*version.Version) ([]map[schema.GroupResource]schema.GroupVersion, error) {
	// Every resource kube-apiserver serves with a registry store, as the
	// store catalog holds them (upstream's providers on no storage).
	rs := catalog.GroupResources()
	if len(rs) == 0 {
		return nil, fmt.Errorf("no resource with a registry store in kube-apiserver's store catalog")
	}
	binary := utilfeature.DefaultMutableFeatureGate.EmulationVersion()
	var out []map[schema.GroupResource]schema.GroupVersion
	for _, v := range versions {
		// kube-apiserver's own effective version, with its floors: the
		// min-compatibility version it defaults to is one below the
		// emulation version, but not below binary - 3 (at the lowest
		// emulation version both are the same).
		ev := utilcompatibility.DefaultBuildEffectiveVersion()
		if !ev.BinaryVersion().EqualTo(binary) {
			return nil, fmt.Errorf("kube-apiserver's binary version is %s, its gates' %s", ev.BinaryVersion(), binary)
		}
		ev.SetEmulationVersion(v)
		sfc := kubeapiserver.NewStorageFactoryConfigEffectiveVersion(ev)
		encoding := resourceconfig.MergeResourceEncodingConfigs(sfc.DefaultResourceEncoding, sfc.ResourceEncodingOverrides)
		m := map[schema.GroupResource]schema.GroupVersion{}
		for _, gr := range rs {
			gv, err := storageVersion(catalog, encoding, gr)
			if err != nil {
				return nil, fmt.Errorf("%s at %s: %w", gr, v, err)
			}
			m[gr] = gv
		}
		out = append(out, m)
	}
	return out, nil
}

// storageVersion is the version gr's objects are stored in under encoding.
func storageVersion(catalog *storecatalog.Catalog, encoding *serverstorage.DefaultResourceEncodingConfig, gr schema.GroupResource) (schema.GroupVersion, error) {
	if !legacyscheme.Scheme.IsGroupRegistered(gr.Group) {
		return schema.GroupVersion{}, fmt.Errorf("group %q is not registered", gr.Group)
	}
	example, err := catalog.NewObject(gr)
	if err != nil {
		return schema.GroupVersion{}, err
	}
	return encoding.BackwardCompatibileStorageEncodingFor(gr, example)
}

func compareGR(a, b schema.GroupResource) int { return cmp.Compare(a.String(), b.String()) }
