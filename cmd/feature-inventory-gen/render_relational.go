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
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// renderRelational writes the relationalValues section: by gate, resource
// and field, the class, the probe and, where no task is needed, why.
func (inv *inventory) renderRelational(b *bytes.Buffer) {
	b.WriteString("\n# Fields validation with the gate off refuses only in relation to other\n# values (combination, arithmetic), in what kube-apiserver wrote with the\n# gate on (prepared, prepared-copied) or in an object of the corpus, by\n# resource and field (see the header). noneNeeded says why no task is\n# derived; the other objects are held.\nrelationalValues:")
	if len(inv.relational) == 0 {
		b.WriteString(" {}\n")
		return
	}
	b.WriteString("\n")
	for _, g := range slices.Sorted(maps.Keys(inv.relational)) {
		fmt.Fprintf(b, "  %s:\n", g)
		for _, gr := range sortedGRs(inv.relational[g]) {
			fmt.Fprintf(b, "    %s:\n", gr)
			for _, f := range slices.Sorted(maps.Keys(inv.relational[g][gr])) {
				fd := inv.relational[g][gr][f]
				fmt.Fprintf(b, "      %s:\n", yamlString(f))
				fmt.Fprintf(b, "        class: %s\n", fd.class)
				probe := make([]string, len(fd.probe))
				for i, p := range fd.probe {
					probe[i] = strconv.Quote(p) // in a flow sequence: [ and , are syntax
				}
				fmt.Fprintf(b, "        probe: [%s]\n", strings.Join(probe, ", "))
				if fd.none != "" {
					fmt.Fprintf(b, "        noneNeeded: %s\n", strconv.Quote(fd.none))
				}
			}
		}
	}
}

// render writes the corpus section.
func (c *corpusReport) render(b *bytes.Buffer, trials map[string]int) {
	b.WriteString(`
# The relational probes' objects, and the corpus differential (see the
# header): the files and objects of each source, the objects accepted
# with every gate on and refused with one gate off, and every field so
# refused ("<gate> <resource> <field> (<object>)"); onlyCorpus are those
# no probe found, which relationalValues holds as class corpus.
relationalTrials:
`)
	for _, k := range slices.Sorted(maps.Keys(trials)) {
		fmt.Fprintf(b, "  %s: %d\n", k, trials[k])
	}
	b.WriteString("corpus:\n")
	for _, m := range []struct {
		key string
		m   map[string]int
	}{{"files", c.files}, {"objects", c.objects}} {
		fmt.Fprintf(b, "  %s:", m.key)
		if len(m.m) == 0 {
			b.WriteString(" {}\n")
			continue
		}
		b.WriteString("\n")
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			fmt.Fprintf(b, "    %s: %d\n", k, m.m[k])
		}
	}
	fmt.Fprintf(b, "  acceptedOnRefusedOff: %d\n", c.refusedOnly)
	fmt.Fprintf(b, "  footprints: %d\n", len(c.footprints))
	fmt.Fprintf(b, "  onlyByCorpus: %d\n", len(c.onlyCorpus))
	for _, l := range []struct {
		key  string
		list []string
	}{{"found", c.footprints}, {"onlyCorpus", c.onlyCorpus}} {
		fmt.Fprintf(b, "  %s:", l.key)
		if len(l.list) == 0 {
			b.WriteString(" []\n")
			continue
		}
		b.WriteString("\n")
		for _, m := range l.list {
			fmt.Fprintf(b, "  - %s\n", strconv.Quote(m))
		}
	}
}
