package shmerge

import "testing"

// deviations are the merges where sh cannot give Go's bytes, as
// docs/FORMATS.md ("What the sh engine does differently") lists them:
// each with what sh gives. Go's result must differ (else the entry is
// no deviation and belongs in the other tests), and sh must give what
// the list says, under every BusyBox: a new difference fails here.
var deviations = []struct {
	name, format, base, frag string
	sh                       result
}{{
	name:   "a non-ASCII capital in a section name: only A-Z compare without case",
	format: "smb.conf", base: "[Bücher]\n\tpath = /a\n", frag: "[BÜCHER]\npath = /b\n",
	sh: result{out: "[Bücher]\n\tpath = /a\n\n[BÜCHER]\n\tpath = /b\n"},
}, {
	name:   "a non-ASCII capital in a key",
	format: "smb.conf", base: "[global]\n\tÄ = 1\n", frag: "[global]\nä = 2\n",
	sh: result{out: "[global]\n\tÄ = 1\n\tä = 2\n"},
}, {
	name:   "Unicode white space in a key: only ASCII white space does not count",
	format: "smb.conf", base: "[global]\n\tlog\u00a0level = 0\n", frag: "[global]\nlog level = 1\n",
	sh: result{out: "[global]\n\tlog\u00a0level = 0\n\tlog level = 1\n"},
}, {
	name:   "invalid UTF-8 in a quoted line: Go writes \\xe4, sh the byte",
	format: "keyvalue", base: "", frag: "k\xe4\n",
	sh: result{refused: "f.merge line 1: \"k\xe4\" is not key = value"},
}, {
	name:   "a non-printable character in a quoted line: Go writes \\u00a0, sh the bytes",
	format: "smb.conf", base: "", frag: "[global]\na\u00a0b\n",
	sh: result{refused: "f.merge line 2: \"a\u00a0b\" is not key = value"},
}, {
	name:   "Unicode white space at the end of an include's value",
	format: "smb.conf", base: "[global]\n\tinclude = /a\n", frag: "[global]\n!include = /a\u00a0\n",
	sh: result{out: "[global]\n\tinclude = /a\n", warnings: "f.merge line 2: !include = /a\u00a0 deletes nothing: [global] has no include = /a\u00a0 (misspelt, or already gone?)"},
}, {
	name:   "a NUL byte in the base: sh cannot hold it, the line is cut there",
	format: "smb.conf", base: "[global]\n\tx = 1\x00z\n\ty = 2\n", frag: "[global]\ny = 3\n",
	sh: result{out: "[global]\n\tx = 1\nz\n\ty = 3\n"},
}}

// TestDeviations pins every known difference from Go.
func TestDeviations(t *testing.T) {
	cases := make([]mergeCase, len(deviations))
	want := make([]result, len(deviations))
	for i, d := range deviations {
		cases[i] = mergeCase{name: d.name, format: d.format, base: d.base, frag: d.frag, fragName: "f.merge"}
		want[i] = d.sh
		want[i].wrote = d.sh.refused == ""
		if differ(goMerge(cases[i]), want[i]) == "" {
			t.Errorf("%s: Go gives what sh gives: no deviation", d.name)
		}
	}
	for _, sh := range shells(t) {
		got := shMerge(t, sh, cases)
		for i, d := range deviations {
			if msg := differ(want[i], got[i]); msg != "" {
				t.Errorf("BusyBox %s: %s: %s", sh.name, d.name, msg)
			}
		}
	}
}
