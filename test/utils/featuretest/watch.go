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

package featuretest

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
)

// Observation is one version of a Feature, seen by a watch.
type Observation struct {
	// At is when the watch delivered it.
	At time.Time
	// Feature is the version delivered.
	Feature *featuresv1alpha1.Feature
	// State is its status.state.
	State featuresv1alpha1.FeatureState
	// Task and Checkpoint are those of its active task, if any.
	Task, Checkpoint string
}

// FeatureWatcher records every version of a Feature in kube-system through
// a watch that resumes, from the last resourceVersion it saw, on another
// apiserver when one goes away: no version is missed or seen twice.
type FeatureWatcher struct {
	mu  sync.Mutex
	obs []Observation
}

// WatchFeature records the versions of Feature name until the test ends.
func WatchFeature(t testing.TB, c *Clients, name string) *FeatureWatcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	w := &FeatureWatcher{}
	go func() {
		defer close(done)
		rv := ""
		for attempt := 0; ctx.Err() == nil; attempt++ {
			client := c.Features[c.Pick(attempt)].FeaturesV1alpha1().Features("kube-system")
			if rv == "" {
				f, err := client.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				w.add(f)
				rv = f.ResourceVersion
			}
			fw, err := client.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(),
				ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range fw.ResultChan() {
				if ev.Type == watch.Error {
					rv = "" // e.g. too old a resource version: read again
					break
				}
				if f, ok := ev.Object.(*featuresv1alpha1.Feature); ok {
					rv = f.ResourceVersion
					if ev.Type != watch.Bookmark {
						w.add(f)
					}
				}
			}
			fw.Stop()
		}
	}()
	return w
}

// add records f, unless it is the version recorded last (a watch that
// resumed from scratch reads the current version again).
func (w *FeatureWatcher) add(f *featuresv1alpha1.Feature) {
	o := Observation{At: time.Now(), Feature: f, State: f.Status.State}
	if len(f.Status.Tasks) > 0 {
		o.Task, o.Checkpoint = f.Status.Tasks[0].Name, f.Status.Tasks[0].Checkpoint
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.obs); n > 0 && w.obs[n-1].Feature.ResourceVersion == f.ResourceVersion {
		return
	}
	w.obs = append(w.obs, o)
}

// Get returns the observations so far.
func (w *FeatureWatcher) Get() []Observation {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.obs)
}

// Log logs the observed states, tasks and checkpoints, with their time
// relative to since.
func (w *FeatureWatcher) Log(t testing.TB, since time.Time) {
	t.Helper()
	for _, o := range w.Get() {
		t.Logf("%+7.2fs %s %s %.200s", o.At.Sub(since).Seconds(), o.State, o.Task, o.Checkpoint)
	}
}

// States returns the states observed, without repeating a state in
// consecutive versions.
func (w *FeatureWatcher) States() []featuresv1alpha1.FeatureState {
	var out []featuresv1alpha1.FeatureState
	for _, o := range w.Get() {
		if o.State != "" && (len(out) == 0 || out[len(out)-1] != o.State) {
			out = append(out, o.State)
		}
	}
	return out
}

// ClearFieldsCheckpoints returns the observed checkpoints of the ClearFields
// task named task that have stored at least one page, decoded, each once,
// with when they were first seen.
func (w *FeatureWatcher) ClearFieldsCheckpoints(t testing.TB, task string) ([]ClearFieldsCheckpoint, []time.Time) {
	t.Helper()
	var cps []ClearFieldsCheckpoint
	var ats []time.Time
	for _, o := range w.Get() {
		if o.Task != task || o.Checkpoint == "" {
			continue
		}
		var cp ClearFieldsCheckpoint
		if err := json.Unmarshal([]byte(o.Checkpoint), &cp); err != nil {
			t.Fatalf("unreadable checkpoint of %s: %v: %s", task, err, o.Checkpoint)
		}
		if cp.Migration.Pages == 0 {
			continue
		}
		if len(cps) > 0 && reflect.DeepEqual(cps[len(cps)-1].Migration, cp.Migration) {
			continue // the same checkpoint in another status write
		}
		cps = append(cps, cp)
		ats = append(ats, o.At)
	}
	return cps, ats
}
