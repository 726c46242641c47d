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

package follow

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
)

// cacheFile is the file a follower keeps the last desired states it read
// in (Options.CacheFile), to apply at a start when the API cannot be read;
// empty for none.
type cacheFile string

// cacheContent is the content of Options.CacheFile.
type cacheContent struct {
	// Written is when the desired states were read from the API.
	Written time.Time `json:"written"`
	// Features are the desired states, by gate.
	Features []desired `json:"features"`
}

// read returns the content of the cache file.
func (c cacheFile) read() (*cacheContent, error) {
	if string(c) == "" {
		return nil, errors.New("no cache file configured")
	}
	data, err := os.ReadFile(string(c))
	if err != nil {
		return nil, err
	}
	var content cacheContent
	if err := json.Unmarshal(data, &content); err != nil {
		return nil, fmt.Errorf("reading %s: %w", string(c), err)
	}
	return &content, nil
}

// write replaces the cache file with wanted, atomically, and logs why
// when it cannot.
func (c cacheFile) write(logger klog.Logger, wanted map[featuregate.Feature]desired) {
	if string(c) == "" {
		return
	}
	content := cacheContent{Written: time.Now().UTC(), Features: []desired{}}
	for _, gate := range slices.Sorted(maps.Keys(wanted)) {
		content.Features = append(content.Features, wanted[gate])
	}
	data, err := json.MarshalIndent(content, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(string(c)), 0o755)
	}
	if err == nil {
		tmp := string(c) + ".tmp." + strconv.Itoa(os.Getpid())
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, string(c))
		}
	}
	if err != nil {
		logger.Error(err, "Cannot write the cache of followed desired states", "cacheFile", string(c))
	}
}
