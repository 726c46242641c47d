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

package gatedfield

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, s := range []string{"spec", "spec.volumes[*].configMap.defaultUser", "a.b[*][*].c"} {
		p, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if got := p.String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
	}
	for _, s := range []string{"", "spec.", ".spec", "spec.volumes[*]", "spec.volumes[0].name", "spec[*.a", "spec.a[]", "a..b", "a]b.c"} {
		if p, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", s, p)
		}
	}
}

func TestTrimPrefixAndJoin(t *testing.T) {
	p := MustParse("spec.template.spec.volumes[*].secret")
	rest, ok := p.TrimPrefix(MustParse("spec.template.spec"))
	if !ok || rest.String() != "volumes[*].secret" {
		t.Fatalf("TrimPrefix = %v, %v", rest, ok)
	}
	if got := MustParse("template.spec").Join(rest).String(); got != "template.spec.volumes[*].secret" {
		t.Errorf("Join = %q", got)
	}
	for _, prefix := range []string{"spec.template.spec.volumes[*].secret", "spec.template.spec.volumes.secret", "status"} {
		if _, ok := p.TrimPrefix(MustParse(prefix)); ok {
			t.Errorf("TrimPrefix(%q) succeeded", prefix)
		}
	}
}

func object(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHasAndClear(t *testing.T) {
	for _, tc := range []struct {
		name, obj, path string
		has             bool
		after           string
	}{{
		name: "every list element",
		obj:  `{"spec":{"volumes":[{"name":"a","secret":{"defaultUser":1}},{"name":"b","secret":{}},{"name":"c","secret":{"defaultUser":2}}]}}`,
		path: "spec.volumes[*].secret.defaultUser", has: true,
		after: `{"spec":{"volumes":[{"name":"a","secret":{}},{"name":"b","secret":{}},{"name":"c","secret":{}}]}}`,
	}, {
		name: "nested lists",
		obj:  `{"spec":{"volumes":[{"projected":{"sources":[{"secret":{}},{"podCertificate":{"signerName":"x"}}]}}]}}`,
		path: "spec.volumes[*].projected.sources[*].podCertificate", has: true,
		after: `{"spec":{"volumes":[{"projected":{"sources":[{"secret":{}},{}]}}]}}`,
	}, {
		name: "map values",
		obj:  `{"spec":{"counters":{"a":{"value":1,"x":2},"b":{"x":3}}}}`,
		path: "spec.counters[*].value", has: true,
		after: `{"spec":{"counters":{"a":{"x":2},"b":{"x":3}}}}`,
	}, {
		name: "absent", obj: `{"spec":{"volumes":[{"name":"a"}]}}`,
		path: "spec.volumes[*].secret.defaultUser", has: false,
		after: `{"spec":{"volumes":[{"name":"a"}]}}`,
	}, {
		name: "null is not set but is cleared", obj: `{"spec":{"resources":null}}`,
		path: "spec.resources", has: false,
		after: `{"spec":{}}`,
	}, {
		name: "a scalar where a map is expected", obj: `{"spec":"x"}`,
		path: "spec.resources", has: false,
		after: `{"spec":"x"}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			obj := object(t, tc.obj)
			p := MustParse(tc.path)
			if got := p.Has(obj); got != tc.has {
				t.Errorf("Has = %v, want %v", got, tc.has)
			}
			cleared := p.Clear(obj)
			if want := object(t, tc.after); !reflect.DeepEqual(obj, want) {
				t.Errorf("after Clear: %v, want %v", obj, want)
			}
			if cleared != (tc.obj != tc.after) {
				t.Errorf("Clear = %v", cleared)
			}
			if p.Has(obj) {
				t.Errorf("Has after Clear")
			}
		})
	}
}

// TestUnless follows a field upstream drops only for some values
// (initContainers[*].restartPolicy but Always): the kept values are neither
// a use nor cleared, the others are both.
func TestUnless(t *testing.T) {
	p := MustParse("spec.initContainers[*].restartPolicy")
	keep := KeepStrings([]string{"Always"})
	sidecars := `{"spec":{"initContainers":[{"name":"a","restartPolicy":"Always"},{"name":"b"}]}}`
	obj := object(t, sidecars)
	if !p.Has(obj) {
		t.Error("Has: the field is set")
	}
	if p.HasUnless(obj, keep) {
		t.Error("HasUnless: only a kept value is set")
	}
	if p.ClearUnless(obj, keep) {
		t.Error("ClearUnless cleared a kept value")
	}
	if want := object(t, sidecars); !reflect.DeepEqual(obj, want) {
		t.Errorf("after ClearUnless: %v, want %v", obj, want)
	}

	obj = object(t, `{"spec":{"initContainers":[{"name":"a","restartPolicy":"Always"},{"name":"b","restartPolicy":"Never"},{"name":"c","restartPolicy":null}]}}`)
	if !p.HasUnless(obj, keep) {
		t.Error("HasUnless: Never is not kept")
	}
	if !p.ClearUnless(obj, keep) {
		t.Error("ClearUnless cleared nothing")
	}
	if want := object(t, `{"spec":{"initContainers":[{"name":"a","restartPolicy":"Always"},{"name":"b"},{"name":"c"}]}}`); !reflect.DeepEqual(obj, want) {
		t.Errorf("after ClearUnless: %v, want %v", obj, want)
	}
	if p.HasUnless(obj, keep) {
		t.Error("HasUnless after ClearUnless")
	}
	if KeepStrings(nil) != nil {
		t.Error("KeepStrings(nil) must keep nothing")
	}
	if keep(1) || keep("Never") || !keep("Always") {
		t.Error("KeepStrings accepts exactly its strings")
	}
	zero := KeepStrings([]string{"0"})
	if !zero(int64(0)) || !zero(float64(0)) || !zero("0") || zero(int64(1)) || zero(0.5) || zero(true) {
		t.Error(`KeepStrings("0") accepts the number 0 as a JSON number reads and the string "0", nothing else`)
	}
}

func TestValuesAndReplace(t *testing.T) {
	p := MustParse("spec.containers[*].restartPolicy")
	obj := object(t, `{"spec":{"containers":[{"restartPolicy":"Never"},{"name":"b"},{"restartPolicy":"OnFailure"}]}}`)
	if got, want := p.Values(obj), []interface{}{"Never", "OnFailure"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Values = %v, want %v", got, want)
	}
	if n := p.Replace(obj, "Always"); n != 2 {
		t.Errorf("Replace set %d fields, want 2", n)
	}
	if want := object(t, `{"spec":{"containers":[{"restartPolicy":"Always"},{"name":"b"},{"restartPolicy":"Always"}]}}`); !reflect.DeepEqual(obj, want) {
		t.Errorf("after Replace: %v, want %v", obj, want)
	}
}
