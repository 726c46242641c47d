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

package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	testutils "k8s.io/kubernetes/test/utils/featureenv"
)

// KubeletCheckedGatesFile is, from the tree's root, the list of the gates a
// real kubelet of this release checks in its first seconds. The simulated
// kubelets of the reporting package check the same gates;
// TestKubeletReportsUses (components package) compares the list with a
// real kubelet's reports and rewrites it when FEATUREFLAGS_UPDATE_TESTDATA
// is set.
const KubeletCheckedGatesFile = "test/integration/features/harness/testdata/kubelet-checked-gates.txt"

// KubeletCheckedGatesPath returns the path of KubeletCheckedGatesFile.
func KubeletCheckedGatesPath(t testing.TB) string {
	t.Helper()
	root, err := testutils.TreeRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, KubeletCheckedGatesFile)
}

// KubeletCheckedGates returns the gates KubeletCheckedGatesFile lists.
func KubeletCheckedGates(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(KubeletCheckedGatesPath(t))
	if err != nil {
		t.Fatal(err)
	}
	var gates []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			gates = append(gates, line)
		}
	}
	return gates
}
