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
	"fmt"
	"os"
	"sync"
	"testing"
)

// SkipLogEnv names the file RecordSkip appends to. make test-integration sets
// it, then prints every recorded line loudly and, under CI, fails when there
// is one: a check this machine could not run must never pass unnoticed.
const SkipLogEnv = "FEATUREFLAGS_SKIP_LOG"

var skipLogMu sync.Mutex

// RecordSkip records that t leaves out the checks named by what, because of
// why, in the file named by $FEATUREFLAGS_SKIP_LOG (if set), and logs it.
// Call it for a whole test before t.Skip, or for the part a test drops.
func RecordSkip(t testing.TB, what, why string) {
	t.Helper()
	line := fmt.Sprintf("%s: %s (%s)", t.Name(), what, why)
	t.Log("SKIPPED: " + line)
	path := os.Getenv(SkipLogEnv)
	if path == "" {
		return
	}
	skipLogMu.Lock()
	defer skipLogMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("recording a skip in %s: %v", path, err)
	}
	defer func() { _ = f.Close() }()
	if _, err := fmt.Fprintln(f, line); err != nil {
		t.Fatalf("recording a skip in %s: %v", path, err)
	}
}

// RequireRoot skips t, recorded, unless the test runs as root.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		RecordSkip(t, "the whole test", why+"; run make test as root")
		t.Skip(why)
	}
}
