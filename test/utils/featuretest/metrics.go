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
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	featuresv1alpha1 "k8s.io/api/features/v1alpha1"
	featuresclient "k8s.io/client-go/kubernetes"
)

// Metrics are the series an apiserver exposes on /metrics, keyed by the
// series as written there (`name{label="value",...}`).
type Metrics map[string]float64

// ScrapeMetrics reads /metrics of the apiserver behind config.
func ScrapeMetrics(ctx context.Context, config *restclient.Config) (Metrics, error) {
	body, err := kubernetes.NewForConfigOrDie(config).CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	m := Metrics{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("metric line %q: %w", line, err)
		}
		m[line[:i]] = v
	}
	return m, sc.Err()
}

// Sum adds up the series of metric name whose labels include every
// label="value" pair of labels.
func (m Metrics) Sum(name string, labels ...string) float64 {
	var sum float64
	for series, v := range m {
		rest, ok := strings.CutPrefix(series, name)
		if !ok || (rest != "" && rest[0] != '{') {
			continue
		}
		all := true
		for i := 0; i+1 < len(labels); i += 2 {
			if !strings.Contains(rest, fmt.Sprintf("%s=%q", labels[i], labels[i+1])) {
				all = false
				break
			}
		}
		if all {
			sum += v
		}
	}
	return sum
}

// MigrationCounters are the migrator's metrics of one resource on one
// apiserver.
type MigrationCounters struct {
	Seen, Changed, Conflicts, Failures float64
}

// ScrapeMigrationCounters reads the migrator's metrics of resource from the
// apiserver behind config.
func ScrapeMigrationCounters(ctx context.Context, config *restclient.Config, resource string) (MigrationCounters, error) {
	m, err := ScrapeMetrics(ctx, config)
	if err != nil {
		return MigrationCounters{}, err
	}
	get := func(what string) float64 {
		return m[fmt.Sprintf("apiserver_feature_migration_objects_%s_total{resource=%q}", what, resource)]
	}
	return MigrationCounters{Seen: get("seen"), Changed: get("changed"), Conflicts: get("conflicts"), Failures: get("failures")}, nil
}

// LeaderGauge returns apiserver_feature_lifecycle_leader{feature=key} of
// the apiserver behind config, and whether the series exists.
func LeaderGauge(ctx context.Context, config *restclient.Config, key string) (float64, bool, error) {
	m, err := ScrapeMetrics(ctx, config)
	if err != nil {
		return 0, false, err
	}
	v, ok := m[fmt.Sprintf("apiserver_feature_lifecycle_leader{feature=%q}", key)]
	return v, ok, nil
}

// Led returns the keys (namespace/name) of the Features the apiserver
// behind config reports leading (apiserver_feature_lifecycle_leader 1).
func Led(ctx context.Context, config *restclient.Config) (map[string]bool, error) {
	m, err := ScrapeMetrics(ctx, config)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for series, v := range m {
		if key, ok := strings.CutPrefix(series, `apiserver_feature_lifecycle_leader{feature="`); ok && v == 1 {
			out[strings.TrimSuffix(key, `"}`)] = true
		}
	}
	return out, nil
}

// LeaderOf waits until exactly one of the apiservers behind configs (nil
// ones are skipped) reports leading key and returns its index.
func LeaderOf(t testing.TB, configs []*restclient.Config, key string, timeout time.Duration) int {
	t.Helper()
	found := -1
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		found = -1
		for i, config := range configs {
			if config == nil {
				continue
			}
			v, _, err := LeaderGauge(ctx, config, key)
			if err != nil {
				return false, nil
			}
			if v == 1 {
				if found >= 0 {
					return false, nil
				}
				found = i
			}
		}
		return found >= 0, nil
	})
	if err != nil {
		t.Fatalf("no single leader of %s: %v", key, err)
	}
	return found
}

// WaitForConverged waits until the Feature name in kube-system is in state
// with desired state equal and Converged=True, and returns it.
func WaitForConverged(t testing.TB, client featuresclient.Interface, name string, state featuresv1alpha1.FeatureState, timeout time.Duration) *featuresv1alpha1.Feature {
	t.Helper()
	// f is the last copy read; a failed read (the poll's own deadline
	// cancels the last one) keeps it.
	var f *featuresv1alpha1.Feature
	var readErr error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := client.FeaturesV1alpha1().Features("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			readErr = err
			return false, nil
		}
		f, readErr = got, nil
		return f.Status.State == state && string(f.Spec.DesiredState) == string(state) &&
			meta.IsStatusConditionTrue(f.Status.Conditions, featuresv1alpha1.FeatureConditionConverged), nil
	})
	if err != nil {
		if f == nil {
			t.Fatalf("%s did not converge to %s: it could not be read: %v", name, state, readErr)
		}
		t.Fatalf("%s did not converge to %s; last read (rv %s, last error %v): %+v / %+v", name, state, f.ResourceVersion, readErr, f.Spec, f.Status)
	}
	return f
}
