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

package v1alpha1

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme, serializer.EnableStrict)
)

func init() {
	utilruntime.Must(AddToScheme(scheme))
}

// Load reads the configuration file at path: YAML or JSON of kind
// FeatureLifecycleConfiguration, apiVersion
// featurelifecycle.config.k8s.io/v1alpha1, decoded strictly (an unknown or
// duplicated field is an error), defaulted and validated. An empty path is
// the defaults.
func Load(path string) (*FeatureLifecycleConfiguration, error) {
	if path == "" {
		c := &FeatureLifecycleConfiguration{}
		SetDefaults(c)
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the feature lifecycle configuration: %w", err)
	}
	c, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Decode decodes, defaults and validates a configuration file's content.
func Decode(data []byte) (*FeatureLifecycleConfiguration, error) {
	obj, gvk, err := codecs.UniversalDecoder(SchemeGroupVersion).Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	c, ok := obj.(*FeatureLifecycleConfiguration)
	if !ok {
		return nil, fmt.Errorf("got %v, want kind FeatureLifecycleConfiguration of %s", gvk, SchemeGroupVersion)
	}
	if errs := Validate(c); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return c, nil
}

// Encode returns c as YAML of this version, for a configuration file.
func Encode(c *FeatureLifecycleConfiguration) ([]byte, error) {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeYAML)
	if !ok {
		return nil, fmt.Errorf("no YAML serializer")
	}
	return runtime.Encode(codecs.EncoderForVersion(info.Serializer, SchemeGroupVersion), c)
}
