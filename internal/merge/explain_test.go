package merge

import (
	"reflect"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	tests := []struct {
		name   string
		format string
		layers []Layer
		want   []Origin
	}{{
		name:   "base, merge and add",
		format: Samba,
		layers: []Layer{
			{Name: "base", Kind: KindBase, Data: []byte("[global]\n\tworkgroup = HOME\n\tlog level = 0\n[public]\n\tpath = /srv\n")},
			{Name: "smb.conf.merge", Kind: KindMerge, Data: []byte("[global]\nlog level = 1\nsocket options = TCP_NODELAY\n[media]\npath = /mnt\n")},
			{Name: "smb.conf.add", Kind: KindAdd, Data: []byte("[extra]\n\tpath = /x\n")},
		},
		want: []Origin{
			{"global", "workgroup", "HOME", "base", 2},
			{"global", "log level", "1", "smb.conf.merge line 2", 3},
			{"global", "socket options", "TCP_NODELAY", "smb.conf.merge line 3", 4},
			{"public", "path", "/srv", "base", 6},
			{"media", "path", "/mnt", "smb.conf.merge line 5", 9},
			{"extra", "path", "/x", "smb.conf.add", 11},
		},
	}, {
		name:   "a replacement owns everything; an add after it owns its keys",
		format: Samba,
		layers: []Layer{
			{Name: "base", Kind: KindBase, Data: []byte("[global]\n\tworkgroup = FIRMWARE\n")},
			{Name: "smb.conf", Kind: KindReplace, Data: []byte("log level = 2\n[global]\n\tworkgroup = HOME\n")},
			{Name: "smb.conf.add", Kind: KindAdd, Data: []byte("\tdead time = 5\n")},
		},
		want: []Origin{
			{"global", "log level", "2", "smb.conf", 1},
			{"global", "workgroup", "HOME", "smb.conf", 3},
			{"global", "dead time", "5", "smb.conf.add", 4},
		},
	}, {
		name:   "an add after a base without a final newline",
		format: KeyValue,
		layers: []Layer{
			{Name: "base", Kind: KindBase, Data: []byte("a = 1")},
			{Name: "sysctl.conf.add", Kind: KindAdd, Data: []byte("b = 2\n")},
		},
		want: []Origin{
			{"", "a", "1", "base", 1},
			{"", "b", "2", "sysctl.conf.add", 2},
		},
	}, {
		name:   "proftpd blocks name the section",
		format: ProFTPD,
		layers: []Layer{
			{Name: "base", Kind: KindBase, Data: []byte("<IfModule mod_ident.c>\n  IdentLookups on\n</IfModule>\nPort 21\n")},
			{Name: "proftpd.conf.merge", Kind: KindMerge, Data: []byte("IdentLookups off\n<Global>\n  AllowOverwrite on\n</Global>\n")},
		},
		want: []Origin{
			{"<IfModule mod_ident.c>", "IdentLookups", "off", "proftpd.conf.merge line 1", 2},
			{"", "Port", "21", "base", 4},
			{"<Global>", "AllowOverwrite", "on", "proftpd.conf.merge line 3", 6},
		},
	}, {
		name:   "issue 12: a synonym that undid the merge is gone, so explain credits what Samba reads",
		format: Samba,
		layers: []Layer{
			{Name: "base", Kind: KindBase, Data: []byte("[SambaDrive]\n\tpath = /mnt/usb\n\tread only = no\n\twritable = yes\n")},
			{Name: "smb.conf.merge", Kind: KindMerge, Data: []byte("[SambaDrive]\nread only = yes\n")},
		},
		want: []Origin{
			{"SambaDrive", "path", "/mnt/usb", "base", 2},
			{"SambaDrive", "read only", "yes", "smb.conf.merge line 2", 3},
		},
	}, {
		name:   "exports and continuation lines",
		format: Exports,
		layers: []Layer{
			{Kind: KindBase, Data: []byte("/srv \\\n  a(rw) \\\n  b(ro)\n")},
			{Name: "exports.merge", Kind: KindMerge, Data: []byte("/mnt c(rw)\n")},
		},
		want: []Origin{
			{"", "/srv", "a(rw) b(ro)", "base", 1},
			{"", "/mnt", "c(rw)", "exports.merge line 1", 4},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Explain(tt.format, tt.layers)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Explain:\ngot  %+v\nwant %+v", got, tt.want)
			}
			checkLines(t, tt.format, tt.layers, got)
		})
	}
}

// checkLines builds the target the way the engine does (Merge for a
// merge layer, append for an add) and proves each origin's line holds
// its key.
func checkLines(t *testing.T, format string, layers []Layer, origins []Origin) {
	t.Helper()
	var text []byte
	for _, l := range layers {
		switch l.Kind {
		case KindBase, KindReplace:
			text = l.Data
		case KindMerge:
			var err error
			if text, err = Merge(format, text, l.Data, l.Name); err != nil {
				t.Fatal(err)
			}
		case KindAdd:
			if len(text) > 0 && text[len(text)-1] != '\n' {
				text = append(text, '\n')
			}
			text = append(text, l.Data...)
		}
	}
	lines := strings.Split(string(text), "\n")
	for _, o := range origins {
		if o.Line < 1 || o.Line > len(lines) || !strings.Contains(lines[o.Line-1], o.Key) {
			t.Errorf("origin %+v: line %d of the target does not hold %q:\n%s", o, o.Line, o.Key, text)
		}
	}
}

func TestExplainErrors(t *testing.T) {
	if _, _, err := Explain(Samba, []Layer{{Name: "x", Kind: "patch"}}); err == nil || !strings.Contains(err.Error(), `x: unknown layer kind "patch"`) {
		t.Errorf("unknown kind: %v", err)
	}
	_, _, err := Explain(Samba, []Layer{{Kind: KindBase}, {Name: "smb.conf.merge", Kind: KindMerge, Data: []byte("a = 1\n")}})
	if err == nil || !strings.Contains(err.Error(), "smb.conf.merge line 1: a key outside any section") {
		t.Errorf("bad fragment: %v", err)
	}
	if _, _, err := Explain("ini", nil); err == nil {
		t.Error("unknown format accepted")
	}
}

// TestExplainRealWorld explains the seeds' merge onto Debian's smb.conf:
// the tuning comes from the fragment, the rest from the base.
func TestExplainRealWorld(t *testing.T) {
	base := readTestdata(t, "debian-smb.conf")
	layers := []Layer{{Name: "base", Kind: KindBase, Data: base}, {Name: "smb.conf.merge", Kind: KindMerge, Data: []byte(sambaSeed)}}
	got, _, err := Explain(Samba, layers)
	if err != nil {
		t.Fatal(err)
	}
	checkLines(t, Samba, layers, got)
	from := map[string]string{}
	for _, o := range got {
		if o.Section == "global" {
			from[o.Key] = o.Source
		}
	}
	if from["workgroup"] != "base" || from["getwd cache"] != "smb.conf.merge line 3" || from["socket options"] != "smb.conf.merge line 11" {
		t.Errorf("origins of [global]: %v", from)
	}
}
