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

// Package tasks defines the tasks a Feature's transition runs (KEP-3920):
// the Task interface the lifecycle controller drives one bounded step at a
// time, and the built-in WaitForUses.
package tasks

import (
	"context"
	"time"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/flowcontrol"

	"k8s.io/kubernetes/pkg/featurelifecycle/migrator"
	"k8s.io/kubernetes/pkg/featurelifecycle/storecatalog"
)

// Task is one step of a transition. The controller calls Step on the leader
// of the Feature with the task's stored status; Step does one bounded piece
// of work and returns what to record. Steps must be idempotent: a new leader
// may repeat the last step after a crash, from the last stored checkpoint.
type Task interface {
	// Name is the task's name in status.tasks (a DNS label).
	Name() string
	// Description says in a sentence what the task does.
	Description() string
	// Step does one bounded piece of work.
	Step(ctx context.Context, env Env, f *featuresv1alpha1.Feature, t featuresv1alpha1.FeatureTask, now time.Time) (Outcome, error)
}

// Validator is implemented by the tasks whose declaration can be checked
// against the resources an apiserver serves: Validate returns the error of
// a bad declaration (a resource served without a registry store, a
// function of another type than the resource stores, ...), or nil.
type Validator interface {
	Validate(catalog *storecatalog.Catalog) error
}

// Env is what the apiserver running a task lends it.
type Env struct {
	// Stores gives the registry stores of the apiserver's resources (no
	// HTTP, no admission): in kube-apiserver, those it installed (a
	// *storecatalog.Catalog).
	Stores migrator.Stores
	// Migration tunes the storage migrations of ClearFields tasks.
	Migration migrator.Options
	// Dynamic reaches custom resources through the apiserver's API
	// (CustomResources): their storage is the apiextensions-apiserver's.
	Dynamic dynamic.Interface
	// Limiter bounds the writes of all the apiserver's storage migrations
	// (nil: migrator.SharedLimiter(Migration)).
	Limiter flowcontrol.RateLimiter
}

// Outcome is the result of one step of a task.
type Outcome struct {
	// Done removes the task from the list.
	Done bool
	// Progress, Message and Checkpoint replace the task's fields.
	Progress, Message, Checkpoint string
	// RequeueAfter is when to step again (0: at the next event or resync).
	RequeueAfter time.Duration
}

// Status returns the FeatureTask a Task starts with; a task a component
// completes (Owned) names its owner.
func Status(t Task) featuresv1alpha1.FeatureTask {
	s := featuresv1alpha1.FeatureTask{Name: t.Name(), Description: t.Description()}
	if o, ok := t.(interface{ OwnerName() string }); ok {
		s.Owner = o.OwnerName()
	}
	return s
}
