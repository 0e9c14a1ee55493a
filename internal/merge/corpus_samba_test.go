package merge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// sambaOps are the operations on a smb.conf of the corpus, each proved
// with testparm -s -v: Samba must read what the fragment says, in
// [global] and in every share that takes it from there, and testparm
// must find nothing it did not find in the base.
func sambaOps(f corpusFile) []op {
	shares := sambaShares(f.text)
	global := []string{"global", ""}
	ops := []op{{
		name:    "set a global key",
		frag:    "[global]\nworkgroup = CORPUS\n",
		touches: named(global, []string{"workgroup"}, nil),
		check:   sambaWants(f, map[string]map[string]string{"global": {"workgroup": "CORPUS"}}),
	}, {
		name:    "add global keys the shares take",
		frag:    "[global]\nsocket options = TCP_NODELAY\nhide dot files = no\n",
		touches: named(global, []string{"socketoptions", "hidedotfiles"}, nil),
		check:   sambaGlobalReachesShares(f),
	}, {
		name:    "add a share",
		frag:    "[corpus-new]\npath = /tmp\nread only = no\nguest ok = yes\ncomment = added by the corpus\n",
		touches: named(nil, nil, nil),
		check: sambaWants(f, map[string]map[string]string{
			"corpus-new": {"path": "/tmp", "read only": "No", "guest ok": "Yes", "comment": "added by the corpus"}}),
	}, {
		name:    "delete a misspelt share",
		frag:    "![corpus-nosuchshare]\n",
		touches: named(nil, nil, nil),
		warns:   "smb.conf.merge line 1: ![corpus-nosuchshare] deletes nothing: the file has no [corpus-nosuchshare]",
		check:   sambaWants(f, nil),
	}}
	if len(shares) == 0 {
		return ops
	}
	s, id := shares[0], sambaSectionID(shares[0])
	replacement := "path = /tmp\ncomment = replaced by the corpus\n"
	if id == "[printers" {
		replacement += "printable = yes\n" // Samba wants it of [printers]
	}
	var every strings.Builder
	want := map[string]map[string]string{}
	for _, sh := range shares {
		fmt.Fprintf(&every, "[%s]\nbrowseable = no\n", sh)
		want[sh] = map[string]string{"browseable": "No"}
	}
	ops = append(ops, op{
		name:    "set read only in the first share, whatever synonyms it has",
		frag:    "[" + s + "]\nread only = yes\n",
		touches: named([]string{id}, []string{"readonly"}, nil),
		check:   sambaWants(f, map[string]map[string]string{s: {"read only": "Yes"}}),
	}, op{
		name:    "set an inverted synonym in the first share",
		frag:    "[" + s + "]\nwritable = yes\n",
		touches: named([]string{id}, []string{"readonly"}, nil),
		check:   sambaWants(f, map[string]map[string]string{s: {"read only": "No"}}),
	}, op{
		name:    "set a key in every share",
		frag:    every.String(),
		touches: func(place, name string) bool { return name == "browseable" && place != "global" && place != "" },
		check:   sambaWants(f, want),
	}, op{
		name:    "delete the first share",
		frag:    "![" + s + "]\n",
		touches: named(nil, nil, []string{id}),
		check:   sambaGone(f, s),
	}, op{
		name:    "replace the first share",
		frag:    "![" + s + "]\n[" + s + "]\n" + replacement,
		touches: named(nil, nil, []string{id}),
		check:   sambaReplaced(f, s, "[global]\n["+s+"]\n"+replacement),
	})
	if key := sambaDeletable(f, s); key != "" {
		ops = append(ops, op{
			name:    "delete a key of the first share, under all its names",
			frag:    "[" + s + "]\n!" + key + "\n",
			touches: named([]string{id}, []string{squeezedParam(key)}, nil),
			check:   sambaUnset(f, s, key),
		})
	}
	return ops
}

func squeezedParam(key string) string {
	name, _ := sambaParam(key)
	return name
}

// sambaShares are the shares of a smb.conf, as written in its first
// header, in order (not those of included files).
func sambaShares(text []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range parseSamba(string(text)).kids {
		if k.kind == block && k.id != "global" && !seen[k.id] {
			seen[k.id] = true
			out = append(out, k.key)
		}
	}
	return out
}

// sambaDeletable is a key the first share sets under its main name
// (not a synonym, not a parametric "module:option").
func sambaDeletable(f corpusFile, share string) string {
	for _, e := range entriesOf(Samba, f.text) {
		n := sambaLine(e.raw)
		if e.place == sambaSectionID(share) && e.name == squeeze(n.key) && e.name != "path" && e.name != "include" && !strings.Contains(n.key, ":") {
			return strings.Join(strings.Fields(n.key), " ")
		}
	}
	return ""
}

// sambaBase is testparm's reading of the base, read once; the base must
// pass.
func sambaBase(t *testing.T, f corpusFile) sambaDump {
	t.Helper()
	bin := tool(t, "testparm", "samba")
	f.base.once.Do(func() {
		d, err := sambaRead(bin, t.TempDir(), f.text)
		f.base.samba = d
		if err != nil {
			f.base.err = err.Error()
		}
	})
	if f.base.err != "" {
		t.Fatalf("corpus: the base: %s", f.base.err)
	}
	return f.base.samba
}

// sambaWants proves that testparm accepts the result with no complaint
// the base does not have, and reads the values want gives, by section
// and parameter (Samba's own names).
func sambaWants(f corpusFile, want map[string]map[string]string) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		_, d := sambaNoWorse(t, f, got)
		for _, s := range slices.Sorted(maps.Keys(want)) {
			for p, v := range want[s] {
				if g := d.get(s, p); !strings.EqualFold(g, v) {
					t.Errorf("testparm reads %s = %q in [%s], want %q", p, g, s, v)
				}
			}
		}
	}
}

// sambaNoWorse runs testparm on base and result: the result must bring
// no complaint the base lacks.
func sambaNoWorse(t *testing.T, f corpusFile, got []byte) (base, d sambaDump) {
	t.Helper()
	base, d = sambaBase(t, f), sambaEffective(t, got)
	had := map[string]bool{}
	for _, l := range complaints(base.stderr) {
		had[l] = true
	}
	for _, l := range complaints(d.stderr) {
		if !had[l] {
			t.Errorf("testparm complains about the result, not about the base: %s", l)
		}
	}
	return base, d
}

// complaints are the lines of testparm's report about the file.
func complaints(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "Unknown parameter") || strings.Contains(l, "Ignoring") ||
			strings.Contains(l, "found in service section") || strings.Contains(l, "ERROR") ||
			strings.Contains(l, "deprecated") || strings.Contains(l, "Badly formed") || strings.HasPrefix(l, "WARNING") {
			out = append(out, l)
		}
	}
	return out
}

// sambaGlobalReachesShares proves the fragment's [global] keys are
// global, and that hide dot files reaches every share that does not set
// its own (issue 12, faults 2 and 3: a [global] after the shares, keys
// after an include of shares).
func sambaGlobalReachesShares(f corpusFile) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		base, d := sambaNoWorse(t, f, got)
		if v := d.get("global", "socket options"); v != "TCP_NODELAY" {
			t.Errorf("testparm reads socket options = %q, want TCP_NODELAY", v)
		}
		for s := range d.sections {
			if _, own := base.sections[s]["hide dot files"]; s == "global" || own {
				continue
			}
			if v := d.get(s, "hide dot files"); v != "No" {
				t.Errorf("testparm reads hide dot files = %q in [%s], want No from [global]", v, s)
			}
		}
	}
}

// sambaGone proves the share is no longer read.
func sambaGone(f corpusFile, share string) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		if _, d := sambaNoWorse(t, f, got); d.sections[strings.ToLower(share)] != nil {
			t.Errorf("testparm still reads [%s]: %v", share, d.sections[strings.ToLower(share)])
		}
	}
}

// sambaReplaced proves the share reads as the replacement alone does.
func sambaReplaced(f corpusFile, share, alone string) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		_, d := sambaNoWorse(t, f, got)
		want := sambaEffective(t, []byte(alone)).sections[strings.ToLower(share)]
		if have := d.sections[strings.ToLower(share)]; !maps.Equal(have, want) {
			t.Errorf("testparm reads [%s] as %v, want %v", share, have, want)
		}
	}
}

// sambaUnset proves the share set param and no longer does, under any
// name. testparm names parameters in lower case, words apart.
func sambaUnset(f corpusFile, share, key string) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		param := strings.ToLower(key)
		base, d := sambaNoWorse(t, f, got)
		sec := strings.ToLower(share)
		if _, ok := base.sections[sec][param]; !ok {
			t.Fatalf("corpus: testparm reads no %s of its own in [%s] of the base: the operation proves nothing", param, share)
		}
		if v, ok := d.sections[sec][param]; ok {
			t.Errorf("testparm still reads %s = %q in [%s]", param, v, share)
		}
	}
}
