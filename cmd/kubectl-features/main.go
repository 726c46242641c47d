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

// Command kubectl-features is a kubectl plugin (put it on PATH and run
// kubectl features ...) for the feature lifecycle. check tells whether the
// cluster's kube-apiservers can move to another emulation version: every
// blocker with what to do, and what the move changes; it exits 1 when
// something blocks the move. rollout drives the rollout in steps of a
// Dynamic Feature (start, status, pause, resume, abort).
//
//	kubectl features check --to-version 1.36
//	kubectl features rollout start ExtendWebSocketsToKubelet --to Enabled
//	kubectl features rollout status -w ExtendWebSocketsToKubelet
package main

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/kubernetes/cmd/kubectl-features/app"
)

func main() {
	if err := app.NewCommand(os.Stdout).Execute(); err != nil {
		if !errors.Is(err, app.ErrBlocked) && !errors.Is(err, app.ErrRolloutStopped) {
			fmt.Fprintln(os.Stderr, "error:", err)
		}
		os.Exit(1)
	}
}
